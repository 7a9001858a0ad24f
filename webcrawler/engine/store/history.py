"""A stored crawl's change history, read only, for the recrawl model (recrawl/history.py).

Between two incremental crawls the model is fitted to what the last ones saw: the
`documents` columns incremental crawling keeps and the `crawls` table's run times. The
columns are read by name (reflected), so a crawl made before incremental crawling existed
is told apart from a damaged one: the reader names the missing columns, or the error that
kept it from reading, and the recrawl turns either into its one line.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import MetaData, Table, func, select
from sqlalchemy.engine import Connection
from sqlalchemy.exc import SQLAlchemyError

from webcrawler.database.schema import connect


@dataclass(frozen=True)
class StoredHistory:
    """The rows of the columns asked for, and the crawl cost: wall seconds the crawls ran and
    the documents they retrieved."""

    rows: list[Any] = field(default_factory=list)  # named tuples of the columns asked for
    seconds: float = 0.0
    fetched: float = 0.0
    missing: tuple[str, ...] = ()  # columns asked for that the documents table lacks
    unreadable: str = ""  # the first line of the error that kept the database from being read


def stored_history(url: str, columns: Sequence[str]) -> StoredHistory:
    """`columns` of every document of the crawl at `url`, and its crawl cost; opened read-only."""
    try:
        engine = connect(url, readonly=True)
        try:
            with engine.connect() as conn:
                docs = Table("documents", MetaData(), autoload_with=conn)
                missing = tuple(name for name in columns if name not in docs.c)
                if missing:
                    return StoredHistory(missing=missing)
                rows = list(conn.execute(select(*(docs.c[n] for n in columns))).all())
                seconds, fetched = _crawl_seconds(conn)
        finally:
            engine.dispose()
    except SQLAlchemyError as exc:
        return StoredHistory(unreadable=str(exc).splitlines()[0])
    return StoredHistory(rows, seconds, fetched)


def _crawl_seconds(conn: Connection) -> tuple[float, float]:
    """Wall seconds the crawls ran and the documents they retrieved (the crawl cost)."""
    crawls = Table("crawls", MetaData(), autoload_with=conn)
    row = conn.execute(select(func.sum(crawls.c.ended_at - crawls.c.started_at),
                              func.sum(crawls.c.documents)).where(crawls.c.ended_at.is_not(None))).one()
    return float(row[0] or 0.0), float(row[1] or 0.0)
