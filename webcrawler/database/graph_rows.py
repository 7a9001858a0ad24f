"""The stored crawl's link graph as rows, read only: what importance/graph.py builds its graph from.

The importance measures (webcrawler/importance/) read a finished crawl, never the live one, and
stand below the engine (its priority orders use their PageRank), so they cannot ask the
crawl's store: the database room reads the rows for them, and they see no SQL.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import and_, or_, select
from sqlalchemy.engine import Engine

from webcrawler.database.schema import connect, documents, links, servers
from webcrawler.database.states import State
from webcrawler.protocol import urls

Database = str | Engine  # an SQLAlchemy URL, or an engine the caller opened


@dataclass(frozen=True)
class GraphRows:
    origins: dict[int, str]  # server id -> scheme://host[:port]
    pages: list[tuple[int, int, str, str | None]]  # (id, server id, path, title) of the
    #                                                fetched pages (no duplicate), by id
    redirected: set[int]  # documents that are redirects
    links: list[tuple[int, int, str | None]]  # (source, target, anchor) of every stored link


def graph_rows(db: Database) -> GraphRows:
    """The rows of the stored crawl at `db` (an SQLAlchemy URL, opened read-only, or an engine)."""
    engine = connect(db, readonly=True) if isinstance(db, str) else db
    try:
        with engine.connect() as conn:
            origins = {row.id: urls.origin(row.scheme, row.host, row.port)
                       for row in conn.execute(select(servers.c.id, servers.c.scheme,
                                                      servers.c.host, servers.c.port))}
            pages = [(p.id, p.server_id, p.path, p.title) for p in conn.execute(
                select(documents.c.id, documents.c.server_id, documents.c.path, documents.c.title)
                .where(and_(documents.c.state == State.FETCHED,
                            or_(documents.c.reason.is_(None), documents.c.reason != "duplicate")))
                .order_by(documents.c.id))]
            redirected = {row.id for row in conn.execute(
                select(documents.c.id).where(documents.c.state == State.REDIRECTED))}
            rows = [(r.source_id, r.target_id, r.anchor) for r in conn.execute(
                select(links.c.source_id, links.c.target_id, links.c.anchor))]
    finally:
        if isinstance(db, str):
            engine.dispose()
    return GraphRows(origins, pages, redirected, rows)
