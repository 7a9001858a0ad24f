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
    return HistoryReader(url).read(columns)


class HistoryReader:
    """Repeated reads of one crawl's history (`--plan auto` reads it every period): its tables
    are reflected once, the schema being fixed while a crawl runs; reflecting them took two
    thirds of each read's CPU (docs/recrawl-model.md, "What a re-solve costs"). Each read opens
    and disposes its own read-only connection, as stored_history's one read does."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._documents: Table | None = None
        self._crawls: Table | None = None

    def read(self, columns: Sequence[str]) -> StoredHistory:
        """`columns` of every document and the crawl cost, as stored_history returns them."""
        try:
            engine = connect(self.url, readonly=True)
            try:
                with engine.connect() as conn:
                    if self._documents is None:
                        self._documents = Table("documents", MetaData(), autoload_with=conn)
                    docs = self._documents
                    missing = tuple(name for name in columns if name not in docs.c)
                    if missing:
                        return StoredHistory(missing=missing)
                    rows = list(conn.execute(select(*(docs.c[n] for n in columns))).all())
                    if self._crawls is None:
                        self._crawls = Table("crawls", MetaData(), autoload_with=conn)
                    seconds, fetched = _crawl_seconds(conn, self._crawls)
            finally:
                engine.dispose()
        except SQLAlchemyError as exc:
            return StoredHistory(unreadable=str(exc).splitlines()[0])
        return StoredHistory(rows, seconds, fetched)


def _crawl_seconds(conn: Connection, crawls: Table) -> tuple[float, float]:
    """Wall seconds the crawls ran and the documents they retrieved (the crawl cost)."""
    row = conn.execute(select(func.sum(crawls.c.ended_at - crawls.c.started_at),
                              func.sum(crawls.c.documents)).where(crawls.c.ended_at.is_not(None))).one()
    return float(row[0] or 0.0), float(row[1] or 0.0)
