"""The database room: what the crawl keeps, and how it is kept, in SQLite or PostgreSQL.

    schema.py          the tables, `connect` (creates or widens them) and the damaged-file checks
    dialects.py        everything that differs between SQLite and PostgreSQL
    states.py          a document's states, light: no SQLAlchemy, for the loop and the in-memory store
    graph_rows.py      a finished crawl's pages and links, read only, for the importance measures
    storage_errors.py  a full disk told apart from a bug, for the database and the index alike

This `__init__` stays empty: importing `states` or `storage_errors` must not load SQLAlchemy.
"""
