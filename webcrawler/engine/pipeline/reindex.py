"""`webcrawler index --reindex`: rebuild the full-text index from the database.

The database keeps every indexed document's text (the `index_outbox` rows, kept
as INDEXED once the index has them: see engine/pipeline/index_sink.py), so a damaged index,
or one in another format after a Whoosh upgrade, can be rebuilt without a
refetch. The old index directory is moved aside (`index.damaged-<time>`, or
`index.previous-<time>` when it was sound), never deleted; a new one is built
from the stored documents in doc_id order, one commit per `BATCH`, with progress
on stderr; the summary goes to stdout. Then every stored row is marked INDEXED, and
removal rows not applied yet are dropped (the new index never had their documents).
With `--index-shards S` the index is rebuilt as S shards (`index/writing/shards.py`); without,
as many as it had.

Documents fetched before the database kept their text (meta
`index_text_kept_since`) cannot be rebuilt: they are counted in the summary and
stay in the database as fetched, so the crawl does not fetch them again (a new
crawl in a fresh --data-dir would). The crawl does not continue: run
`webcrawler index` again to resume it.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from sqlalchemy import and_, func, select, update
from sqlalchemy.engine import Engine

from webcrawler.database.schema import (
    INDEXED,
    TEXT_KEPT_SINCE,
    check_database,
    connect,
    documents,
    index_outbox,
    meta,
)
from webcrawler.database.states import State
from webcrawler.engine.pipeline.languages import detected, with_stored
from webcrawler.engine.pipeline.link_evidence import with_links
from webcrawler.engine.pipeline.outbox import unpack
from webcrawler.engine.store.outbox_rows import forget_removals, record_inlinks, record_languages
from webcrawler.errors import NothingToDo
from webcrawler.index import (
    IndexDamaged,
    IndexedDocument,
    IndexWriter,
    check,
    open_shard_writer,
    set_aside,
    shard_of,
    shards_wanted,
)
from webcrawler.settings import Settings

BATCH = 1_000  # documents a commit, as the crawl's index process commits (MAX_BATCHES_PER_COMMIT)


class NothingToReindex(NothingToDo):
    """The data directory has no database to rebuild the index from."""


def run_reindex(settings: Settings, progress: bool = True) -> str:
    """Rebuild the index of `settings.data_dir` from its database; return the summary.
    Raises NothingToReindex (writing nothing) when there is no database."""
    if not settings.db_url and not settings.paths.database.exists():
        raise NothingToReindex(f"no database in {settings.data_dir}: nothing to rebuild the index "
                               "from (give the crawl's --data-dir)")
    check_database(settings.database_url)
    engine = connect(settings.database_url)
    try:
        shards = shards_wanted(settings.index_dir, settings.index_shards)  # before it moves
        moved = set_aside(settings.index_dir, damaged=_is_damaged(settings.index_dir))
        started = time.monotonic()
        total = _count(engine)
        done = 0
        with _shard_writers(settings.index_dir, shards) as writers:
            for docs in _stored(engine):
                for k, writer in enumerate(writers):
                    writer.add([d for d in docs if shard_of(d.doc_id, len(writers)) == k])
                    writer.commit()
                done += len(docs)
                if progress:
                    rate = done / max(time.monotonic() - started, 1e-6)
                    print(f"reindexed {done:,} of {total:,} documents ({rate:,.0f}/s)", file=sys.stderr)
        with engine.begin() as conn:
            forget_removals(conn)
            conn.execute(update(index_outbox).where(index_outbox.c.batch != INDEXED).values(batch=INDEXED))
        missing = _without_text(engine)
    finally:
        engine.dispose()
    return _summary(done, time.monotonic() - started, moved, missing)


@contextlib.contextmanager
def _shard_writers(index_dir: Path, shards: int) -> Iterator[list[IndexWriter]]:
    """A writer per shard (one: the one index's writer)."""
    with contextlib.ExitStack() as stack:
        yield [stack.enter_context(open_shard_writer(index_dir, k, shards)) for k in range(shards)]


def _is_damaged(index_dir: Path) -> bool:
    try:
        check(index_dir)
    except IndexDamaged:
        return True
    return False


def _fetched_with_text():
    return (select(index_outbox.c.doc_id, index_outbox.c.payload)
            .join(documents, documents.c.id == index_outbox.c.doc_id)
            .where(documents.c.state == State.FETCHED, func.length(index_outbox.c.payload) > 0))


def _count(engine: Engine) -> int:
    with engine.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(_fetched_with_text().subquery()))
                   .scalar() or 0)


def _stored(engine: Engine) -> Iterator[list[IndexedDocument]]:
    """The stored documents in doc_id order, `BATCH` at a time (keyset pages: no long read),
    with their anchor texts and link counts as the links table has them now, and their
    languages as stored (detected, and stored, for those that have none)."""
    last = -1
    while True:
        with engine.connect() as conn:
            rows = conn.execute(_fetched_with_text().where(index_outbox.c.doc_id > last)
                                .order_by(index_outbox.c.doc_id).limit(BATCH)).all()
            docs, languages = detected(with_stored(conn, with_links(
                conn, [unpack(payload) for _doc_id, payload in rows])))
        if not rows:
            return
        with engine.begin() as conn:
            record_languages(conn, languages)
            record_inlinks(conn, {doc.doc_id: doc.inlinks for doc in docs})
        last = rows[-1][0]
        yield docs


def _without_text(engine: Engine) -> int:
    """Fetched documents from before the database kept indexed text (none are stored)."""
    with engine.connect() as conn:
        since = conn.execute(select(meta.c.value).where(meta.c.key == TEXT_KEPT_SINCE)).scalar()
        stored = select(index_outbox.c.doc_id).where(index_outbox.c.doc_id == documents.c.id)
        query = select(func.count()).select_from(documents).where(and_(
            documents.c.state == State.FETCHED, documents.c.last_fetch < float(since or 0),
            ~stored.exists()))
        return int(conn.execute(query).scalar() or 0)


def _summary(done: int, seconds: float, moved: Path | None, missing: int) -> str:
    lines = [f"index rebuilt: {done:,} documents in {seconds:.1f} s "
             f"({done / max(seconds, 1e-6):,.0f} documents/s)"]
    if moved is not None:
        lines.append(f"the previous index was moved to {moved} (delete it when satisfied)")
    if missing:
        lines.append(f"{missing:,} documents fetched before this version kept indexed text are not "
                     "in the index: the database has no text for them (noindex pages and duplicates "
                     "among them never were indexed); a new crawl in a fresh --data-dir fetches them")
    lines.append("run `webcrawler index` to resume the crawl")
    return "\n".join(lines)
