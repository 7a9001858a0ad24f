"""The recrawl side of `webcrawler stats`: what incremental crawling has seen.

Read from the documents' change history (the recrawl columns; a database made
before them has none, and the section says so): pages due for a recrawl now,
pages recrawled and how often, the outcomes of recrawls (unmodified: a 304 or a
byte-identical body; trivially changed: the body differed but the shingles say
alike; changed: non-trivially), pages gone (404/410 on a recrawl), and the
histogram of the one-byte change-frequency buckets (WebFountain section 3).
Only reads.
"""

from __future__ import annotations

import logging
import time
from dataclasses import asdict, dataclass, field

from sqlalchemy import func, inspect, select
from sqlalchemy.engine import Connection
from sqlalchemy.exc import OperationalError

from webcrawler.database.schema import documents
from webcrawler.database.states import State
from webcrawler.query_server.sources import Sources

log = logging.getLogger(__name__)

NEEDED = ("times_trivial", "times_unmodified", "change_bucket", "next_due")


@dataclass(frozen=True)
class RecrawlFigures:
    available: bool = False  # the database has the recrawl columns
    stored: int = 0  # documents fetched and held
    gone: int = 0  # documents that answered 404/410 on a recrawl
    due: int = 0  # stored documents whose recrawl is due now
    recrawled: int = 0  # stored documents fetched more than once
    recrawls: int = 0  # fetches beyond each document's first (gone ones too)
    unmodified: int = 0  # 304s and byte-identical bodies
    not_modified: int = 0  # of which 304s (no body sent)
    trivial: int = 0  # bodies that differed trivially
    changed: int = 0  # non-trivial changes
    buckets: dict[int, int] = field(default_factory=dict)  # change bucket -> documents

    def to_json(self) -> dict[str, object]:
        return asdict(self)


def gather_recrawl(conn: Connection, now: float | None = None) -> RecrawlFigures:
    """The figures, or `available=False` on a database without the recrawl columns."""
    present = {c["name"] for c in inspect(conn).get_columns("documents")}
    if not set(NEEDED) <= present:
        return RecrawlFigures()
    d = documents
    held = d.c.state == State.FETCHED
    row = conn.execute(select(
        func.count().filter(held),
        func.count().filter(d.c.state == "gone"),
        func.count().filter(held, d.c.next_due <= (time.time() if now is None else now)),
        func.count().filter(held, d.c.times_fetched > 1),
        func.coalesce(func.sum(d.c.times_fetched - 1).filter(d.c.times_fetched > 1), 0),
        func.coalesce(func.sum(d.c.times_unmodified), 0),
        func.coalesce(func.sum(d.c.times_trivial), 0),
        func.coalesce(func.sum(d.c.times_changed), 0),
    )).one()
    not_modified = conn.execute(select(func.coalesce(func.sum(d.c.times_not_modified), 0))).scalar_one() \
        if "times_not_modified" in present else 0
    buckets = conn.execute(select(d.c.change_bucket, func.count()).where(held)
                           .group_by(d.c.change_bucket).order_by(d.c.change_bucket))
    stored, gone, due, recrawled, recrawls, unmodified, trivial, changed = row
    return RecrawlFigures(True, stored, gone, due, recrawled, recrawls, unmodified, not_modified,
                        trivial, changed, buckets={int(b): n for b, n in buckets})


def recrawl_lines(figures: RecrawlFigures) -> list[str]:
    """The section as `webcrawler stats` prints it."""
    if not figures.available:
        return ["recrawl    none (this database predates incremental crawling)"]
    f = figures
    histogram = " ".join(f"{bucket}:{count}" for bucket, count in f.buckets.items()) or "none"
    return [f"recrawl    {f.due} due now, {f.recrawled} of {f.stored} stored recrawled "
            f"({f.recrawls} fetches), {f.gone} gone",
            f"  outcomes {f.unmodified} unmodified ({f.not_modified} answered 304, "
            f"{f.unmodified - f.not_modified} identical), {f.trivial} trivially changed, "
            f"{f.changed} changed",
            f"  buckets  {histogram}  (bucket:documents)"]


def recrawl_figures(sources: Sources) -> RecrawlFigures:
    """`gather_recrawl` on the sources' database (nothing when there is none yet)."""
    engine = sources.engine()
    if engine is None:
        return RecrawlFigures()
    try:
        with engine.connect() as conn:
            return gather_recrawl(conn)
    except OperationalError as error:
        log.warning("recrawl statistics unavailable: %s", error.orig)
        return RecrawlFigures()
