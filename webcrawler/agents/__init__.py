"""Agents: everything that touches HTTP and HTML. Never imports sqlalchemy or whoosh."""
