"""What the index holds and how the last crawl went: /stats and /api/stats.

`gather_stats` reads the database (documents by state, servers, links,
failures by reason, the last crawl) and the index (documents, bytes). Either
may be missing; the numbers are then zero and `database` / `index` say so.
The figures are cached for a few seconds (the `stats_ttl` option).
"""

from __future__ import annotations

import logging
import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime

from flask import Blueprint, current_app, jsonify, render_template
from flask.typing import ResponseReturnValue
from sqlalchemy import func, select
from sqlalchemy.engine import Connection
from sqlalchemy.exc import OperationalError

from webcrawler.database.schema import crawls, documents, links, servers
from webcrawler.database.states import State
from webcrawler.protocol.messages import SITEMAP_TYPE
from webcrawler.query_server.sources import Sources

log = logging.getLogger(__name__)

bp = Blueprint("stats", __name__)


@dataclass(frozen=True)
class CrawlSummary:
    """The most recent crawl: times are Unix seconds, `ended_at` None while it runs."""

    started_at: float
    ended_at: float | None
    documents: int
    failures: int
    stop_reason: str | None
    rate_per_hour: float  # documents retrieved per hour of the crawl (so far)
    requests: int | None = None  # requests sent (robots.txt too); None: not recorded
    fetch_rate: float | None = None  # its --fetch-rate cap (0: none)
    requests_per_second: float | None = None


@dataclass(frozen=True)
class Stats:
    database: bool = False  # the database answered
    index: bool = False  # an index exists
    documents: dict[str, int] = field(default_factory=dict)  # by state
    servers_known: int = 0
    servers_visited: int = 0
    servers_indexed: int = 0  # with at least one document retrieved
    links: int = 0
    failures: dict[str, int] = field(default_factory=dict)  # failed documents by reason
    exclusions: dict[str, int] = field(default_factory=dict)  # excluded documents by reason
    retries: int = 0  # tries made after a passing failure (engine/loop/retries.py)
    recovered: int = 0  # documents fetched after failed tries
    index_documents: int = 0
    index_bytes: int = 0
    sitemaps: int = 0  # sitemap files read
    sitemap_urls: int = 0  # distinct URLs they listed
    last_crawl: CrawlSummary | None = None

    @property
    def searchable(self) -> int:
        """Documents one can find: the index's count, or the database's while there is no index."""
        return self.index_documents if self.index else self.documents.get(State.FETCHED, 0)

    def to_json(self) -> dict[str, object]:
        return asdict(self)


def gather_stats(sources: Sources) -> Stats:
    """Fresh figures from the database and the index (uncached)."""
    size = sources.index_size()
    figures: dict[str, object] = {
        "index": size is not None,
        "index_documents": size[0] if size else 0,
        "index_bytes": size[1] if size else 0,
    }
    engine = sources.engine()
    if engine is not None:
        try:
            with engine.connect() as conn:
                figures.update(_database_figures(conn))
                figures["database"] = True
        except OperationalError as error:  # no schema yet, or the file is unreadable
            log.warning("statistics unavailable: %s", error.orig)
    return Stats(**figures)  # type: ignore[arg-type]


def current_stats() -> Stats:
    sources: Sources = current_app.extensions["webcrawler.sources"]
    return sources.cached("stats", lambda: gather_stats(sources))


def _database_figures(conn: Connection) -> dict[str, object]:
    by_state = conn.execute(select(documents.c.state, func.count()).group_by(documents.c.state))
    server_row = conn.execute(
        select(
            func.count(),
            func.count().filter(servers.c.visited.is_(True)),
            func.count().filter(servers.c.docs_fetched > 0),
        )
    ).one()
    return {
        "documents": {state: count for state, count in by_state},
        "servers_known": server_row[0],
        "servers_visited": server_row[1],
        "servers_indexed": server_row[2],
        "links": conn.execute(select(func.count()).select_from(links)).scalar_one(),
        "failures": _by_reason(conn, State.FAILED),
        "exclusions": _by_reason(conn, State.EXCLUDED),
        **_retries(conn),
        **_sitemap_figures(conn),
        "last_crawl": _last_crawl(conn),
    }


def _retries(conn: Connection) -> dict[str, int]:
    """Tries made after a failure, and the documents they recovered (documents.tries)."""
    d = documents.c
    row = conn.execute(select(
        func.coalesce(func.sum(d.tries - 1), 0),
        func.count().filter(d.state == State.FETCHED))
        .where(d.tries > 1)).one()
    return {"retries": int(row[0]), "recovered": int(row[1])}


def _sitemap_figures(conn: Connection) -> dict[str, int]:
    """Sitemaps read, and the distinct URLs they listed that are not sitemaps themselves."""
    read = select(documents.c.id).where(documents.c.content_type == SITEMAP_TYPE)
    target = documents.alias("target")
    listed = (select(func.count(func.distinct(links.c.target_id)))
              .select_from(links.join(target, target.c.id == links.c.target_id))
              .where(links.c.source_id.in_(read),
                     func.coalesce(target.c.content_type, "") != SITEMAP_TYPE))
    return {"sitemaps": conn.execute(select(func.count()).select_from(read.subquery())).scalar_one(),
            "sitemap_urls": conn.execute(listed).scalar_one()}


def _by_reason(conn: Connection, state: str) -> dict[str, int]:
    reason = func.coalesce(documents.c.reason, "unknown")
    rows = conn.execute(
        select(reason, func.count())
        .where(documents.c.state == state)
        .group_by(reason)
        .order_by(func.count().desc())
    )
    return {name: count for name, count in rows}


def _last_crawl(conn: Connection) -> CrawlSummary | None:
    row = conn.execute(select(crawls).order_by(crawls.c.id.desc()).limit(1)).first()
    if row is None:
        return None
    elapsed = (row.ended_at or time.time()) - row.started_at
    rate = row.documents * 3600.0 / elapsed if elapsed > 0 else 0.0
    return CrawlSummary(
        started_at=row.started_at,
        ended_at=row.ended_at,
        documents=row.documents,
        failures=row.failures,
        stop_reason=row.stop_reason,
        rate_per_hour=round(rate, 1),
        requests=row.requests,
        fetch_rate=row.fetch_rate,
        requests_per_second=None if row.requests is None or elapsed <= 0
        else round(row.requests / elapsed, 3),
    )


@bp.get("/stats")
def stats_page() -> ResponseReturnValue:
    return render_template("stats.html", stats=current_stats())


@bp.get("/api/stats")
def stats_json() -> ResponseReturnValue:
    return jsonify(current_stats().to_json())


@bp.app_template_filter("isotime")
def isotime(seconds: float, sep: str = "T") -> str:
    """Unix seconds as an ISO 8601 UTC time, to the second."""
    moment = datetime.fromtimestamp(seconds, tz=UTC).replace(tzinfo=None)
    return moment.isoformat(sep=sep, timespec="seconds")
