"""Scheduling and politeness: which server gets the next free agent, which of its documents
comes next, and how long to wait before asking a server again (also across processes).
"""
