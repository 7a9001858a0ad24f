"""One shard's index writer, fed from the database's outbox (docs/scale-out.md, "Index shards").

With S shards there are S writers, each a process that needs only the database
and its shard's directory, so it can run on another host
(`webcrawler index-writer --shard K --shards S`), or be started by the engine
itself (`webcrawler index --index-shards S`). No message crosses from the engine:
a writer polls `index_outbox` for its own rows (doc_id % S == K, the shard rule of
`index/writing/shards.py`) that are not INDEXED yet, oldest batch first, adds them to its
shard, commits, and then marks exactly those rows INDEXED, each only if its batch
is still the one read: a row the engine replaced meanwhile (the page fetched
again) keeps its new batch and is taken next round. A removal row (`outbox.py`)
is applied as the one index process applies it: the document is deleted from the
shard and the row goes. A writer that dies loses nothing: its rows are still waiting, and adding a
document twice replaces it. Writers never share a row, so they never conflict.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import and_, bindparam, delete, select, update
from sqlalchemy.engine import Connection, Engine

from webcrawler.database.schema import INDEXED, REMOVED, connect, index_outbox
from webcrawler.engine.pipeline.outbox import apply
from webcrawler.engine.store.outbox_rows import record_inlinks, record_languages
from webcrawler.index import IndexWriter, open_shard_writer

log = logging.getLogger(__name__)

ROWS_PER_COMMIT = 1_000  # as the one writer's largest commit (indexer.MAX_BATCHES_PER_COMMIT)
POLL_SECONDS = 0.5  # an idle writer looks at the outbox this often


@dataclass
class ShardWriterSummary:
    shard: int
    shards: int
    documents: int = 0
    removed: int = 0
    commits: int = 0
    seconds: float = 0.0

    def __str__(self) -> str:
        rate = self.documents / max(self.seconds, 1e-6)
        return (f"shard {self.shard} of {self.shards}: {self.documents:,} documents indexed, "
                f"{self.removed:,} removed, {self.commits:,} commits in {self.seconds:.1f} s "
                f"({rate:,.0f} documents/s)")


def mine(shard: int, shards: int):
    """The outbox rows of shard `shard` that the index has not committed."""
    return and_(index_outbox.c.batch > INDEXED, index_outbox.c.doc_id % shards == shard)


def take(conn: Connection, shard: int, shards: int,
         limit: int = ROWS_PER_COMMIT) -> list[tuple[int, int, bytes]]:
    """Up to `limit` waiting rows (doc_id, batch, payload) of the shard, oldest batch first."""
    query = (select(index_outbox.c.doc_id, index_outbox.c.batch, index_outbox.c.payload)
             .where(mine(shard, shards)).order_by(index_outbox.c.batch, index_outbox.c.doc_id)
             .limit(limit))
    return [(int(d), int(b), bytes(p)) for d, b, p in conn.execute(query)]


@dataclass
class Databases:
    """The writer's two engines: a read-only one to look (on SQLite a read takes no write
    lock, so polling never waits for the crawl) and a writable one to acknowledge."""

    reader: Engine
    writer: Engine

    @classmethod
    def open(cls, db_url: str) -> Databases:
        writer = connect(db_url)  # creates the schema first, for a writer started before the crawl
        return cls(connect(db_url, readonly=True), writer)

    def close(self) -> None:
        self.reader.dispose()
        self.writer.dispose()


def index_round(writer: IndexWriter, databases: Databases, shard: int, shards: int,
                summary: ShardWriterSummary) -> int:
    """Index one commit's worth of waiting rows; how many rows it took (0: none waiting)."""
    with databases.reader.connect() as conn:
        rows = take(conn, shard, shards)
        if not rows:
            return 0
        added, removed, languages, inlinks = apply(
            writer, ((doc_id, payload) for doc_id, _batch, payload in rows), conn)
    writer.commit()
    _acknowledge(databases.writer, rows, languages, inlinks)
    summary.documents += added
    summary.removed += removed
    summary.commits += 1
    return len(rows)


def _acknowledge(engine: Engine, rows: list[tuple[int, int, bytes]],
                 languages: dict[int, str], inlinks: dict[int, int]) -> None:
    """The committed rows: documents marked INDEXED, removals deleted; each only if the
    engine has not replaced the row since it was read (same batch). The documents'
    languages and the in-links they were indexed with are stored (`languages.py`,
    `link_refresh.py`)."""
    same = and_(index_outbox.c.doc_id == bindparam("p_id"), index_outbox.c.batch == bindparam("p_batch"))
    indexed = [{"p_id": d, "p_batch": b} for d, b, payload in rows if payload != REMOVED]
    removed = [{"p_id": d, "p_batch": b} for d, b, payload in rows if payload == REMOVED]
    with engine.begin() as conn:
        if indexed:
            conn.execute(update(index_outbox).where(same).values(batch=INDEXED), indexed)
        if removed:
            conn.execute(delete(index_outbox).where(same), removed)
        record_languages(conn, languages)
        record_inlinks(conn, inlinks)


def run_shard_writer(index_dir: Path, db_url: str, shard: int, shards: int,
                     stop: Callable[[], bool], until_empty: bool = False,
                     report: Callable[[ShardWriterSummary], None] | None = None) -> ShardWriterSummary:
    """Index the shard's outbox rows until `stop()` (or, `until_empty`, until none wait)."""
    summary = ShardWriterSummary(shard, shards)
    started = time.monotonic()
    databases = Databases.open(db_url)
    try:
        with open_shard_writer(index_dir, shard, shards) as writer:
            _loop(writer, databases, summary, stop, until_empty, report, started)
    finally:
        databases.close()
    summary.seconds = time.monotonic() - started
    return summary


def _loop(writer: IndexWriter, databases: Databases, summary: ShardWriterSummary,
          stop: Callable[[], bool], until_empty: bool,
          report: Callable[[ShardWriterSummary], None] | None, started: float) -> None:
    while not stop():
        taken = index_round(writer, databases, summary.shard, summary.shards, summary)
        summary.seconds = time.monotonic() - started
        if taken and report is not None:
            report(summary)
        if not taken:
            if until_empty:
                return
            time.sleep(POLL_SECONDS)
