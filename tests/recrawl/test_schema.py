"""The recrawl columns and the responses table, and the in-place upgrade of an old database."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sqlalchemy import inspect

from webcrawler.database.schema import connect, sqlite_url

RECRAWL_COLUMNS = {"etag", "last_modified", "last_change", "times_trivial", "times_unmodified",
                   "change_bucket", "next_due", "sketch"}


def _old_database(path: Path) -> None:
    """A documents table as schema 1 made it (no recrawl columns), with one row."""
    db = sqlite3.connect(path)
    db.executescript("""
        CREATE TABLE servers (id INTEGER PRIMARY KEY, scheme VARCHAR(8) NOT NULL,
            host VARCHAR(255) NOT NULL, port INTEGER NOT NULL, first_seen FLOAT NOT NULL,
            visited BOOLEAN NOT NULL, last_access FLOAT NOT NULL, next_allowed FLOAT NOT NULL,
            queued INTEGER NOT NULL, docs_known INTEGER NOT NULL, docs_fetched INTEGER NOT NULL,
            docs_failed INTEGER NOT NULL, robots_status INTEGER, robots_txt TEXT,
            robots_fetched_at FLOAT, robots_expires_at FLOAT, crawl_delay FLOAT);
        CREATE TABLE documents (id INTEGER PRIMARY KEY, server_id INTEGER NOT NULL,
            path TEXT NOT NULL, state VARCHAR(12) NOT NULL, reason VARCHAR(32), detail TEXT,
            depth INTEGER NOT NULL, discovered_at FLOAT NOT NULL, status INTEGER,
            content_type VARCHAR(128), title TEXT, length INTEGER, checksum VARCHAR(64),
            last_fetch FLOAT, times_fetched INTEGER NOT NULL, times_changed INTEGER NOT NULL,
            redirects INTEGER NOT NULL);
        INSERT INTO servers VALUES (1, 'http', 'a', 80, 0, 1, 0, 0, 0, 1, 1, 0, NULL, NULL,
            NULL, NULL, NULL);
        INSERT INTO documents VALUES (1, 1, '/', 'fetched', NULL, NULL, 0, 0, 200, 'text/html',
            't', 10, 'abc', 1.0, 1, 0, 0);
    """)
    db.commit()
    db.close()


def test_old_database_gains_the_recrawl_columns_and_keeps_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "webcrawler.db"
    _old_database(path)
    engine = connect(sqlite_url(tmp_path))
    try:
        with engine.connect() as conn:
            names = {c["name"] for c in inspect(conn).get_columns("documents")}
            assert RECRAWL_COLUMNS <= names
            assert "responses" in inspect(conn).get_table_names()
            row = conn.exec_driver_sql(
                "SELECT path, times_trivial, times_unmodified, change_bucket, etag "
                "FROM documents").one()
            assert tuple(row) == ("/", 0, 0, 0, None)
    finally:
        engine.dispose()
    engine = connect(sqlite_url(tmp_path))  # a second open changes nothing
    engine.dispose()
