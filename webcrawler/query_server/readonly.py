"""Opening the crawl's SQLite database so that reading it changes nothing on disk.

A plain read-only SQLite connection to a WAL database still creates the
`-wal` and `-shm` files when they are missing (and `mode=ro` then leaves them
behind, since it may not delete them). The query server must never create or
change files in the data directory, so each connection is opened for what it
finds: while a writer (`webcrawler index`, a real-time job) is connected, its
`-wal` file exists and `mode=ro` shares it; when there is none, no connection
is open anywhere, the main file holds everything, and `immutable=1` reads it
without any lock or side file. Connections are not pooled (NullPool), so each
request chooses afresh and sees a writer that started since.

Other databases (any SQLAlchemy URL) go through `connect(readonly=True)`.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from urllib.parse import quote

from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.pool import NullPool

from webcrawler.database.schema import connect

BUSY_TIMEOUT_MS = 30_000


def open_readonly(db_url: str) -> Engine:
    """A read-only engine for `db_url` that writes nothing (SQLite files included)."""
    url = make_url(db_url)
    path = url.database
    if url.get_backend_name() != "sqlite" or path in (None, "", ":memory:"):
        return connect(db_url, readonly=True)
    file = Path(path).resolve()

    def creator() -> sqlite3.Connection:
        mode = "ro" if Path(f"{file}-wal").exists() else "ro&immutable=1"
        conn = sqlite3.connect(f"file:{quote(str(file))}?mode={mode}", uri=True,
                               check_same_thread=False)
        conn.isolation_level = None  # SQLAlchemy's BEGIN (below) starts transactions
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA query_only = ON")
        return conn

    engine = create_engine("sqlite://", creator=creator, poolclass=NullPool)

    @event.listens_for(engine, "begin")
    def _begin(conn):
        conn.exec_driver_sql("BEGIN")  # one snapshot for the statements of a request

    return engine
