"""Real-time search: crawl now for documents like the user's query (search.py), and how its
progress reads (report.py).
"""
