"""The index outbox's SQL, in one place: what the crawl's sinks and the index writers write to it.

The outbox (`index_outbox`, engine/pipeline/outbox.py says what its rows mean) is written
by the crawl through its store (`CrawlStore.outbox_*`) and acknowledged by whoever indexed
it: the crawl for the one index process, each shard's writer for itself, a rebuild for
everything. All of them run these statements on the connection they hold, uncommitted.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from sqlalchemy import and_, bindparam, delete, func, select, update
from sqlalchemy.engine import Connection

from webcrawler.database.schema import INDEXED, documents, index_outbox


def acknowledge_batches(conn: Connection, batches: Sequence[int], removals: Iterable[int]) -> None:
    """The index has committed `batches`: documents stay as INDEXED, and the removal rows of
    those of them in `removals` (the batches that may hold one) go."""
    removing = sorted(removals)
    if removing:
        conn.execute(delete(index_outbox).where(and_(index_outbox.c.batch.in_(removing),
                                                     func.length(index_outbox.c.payload) == 0)))
    if batches:
        conn.execute(update(index_outbox).where(index_outbox.c.batch.in_(batches)).values(batch=INDEXED))


def rebatch(conn: Connection, doc_ids: Sequence[int], batch: int) -> int:
    """Move the committed document rows of `doc_ids` to `batch` (uncommitted); how many."""
    if not doc_ids:
        return 0
    result = conn.execute(update(index_outbox).where(and_(
        index_outbox.c.doc_id.in_(list(doc_ids)), index_outbox.c.batch == INDEXED,
        func.length(index_outbox.c.payload) > 0)).values(batch=batch))
    return int(result.rowcount or 0)


def forget_removals(conn: Connection) -> None:
    """A rebuilt index never had the removed documents: their rows have nothing left to do."""
    conn.execute(delete(index_outbox).where(func.length(index_outbox.c.payload) == 0))


def record_languages(conn: Connection, languages: Mapping[int, str]) -> None:
    """Store the languages of documents the index has committed (pipeline/languages.py)."""
    if languages:
        conn.execute(update(documents).where(documents.c.id == bindparam("p_id"))
                     .values(language=bindparam("p_language")),
                     [{"p_id": doc_id, "p_language": language[:16]}
                      for doc_id, language in languages.items()])


def record_inlinks(conn: Connection, inlinks: Mapping[int, int]) -> None:
    """Store the in-link counts the index's committed entries were built with: the index
    writer's side; the crawl reads them back through its store (`LinkBook.indexed_in_links`,
    pipeline/link_refresh.py)."""
    if inlinks:
        conn.execute(update(index_outbox).where(index_outbox.c.doc_id == bindparam("p_id"))
                     .values(inlinks=bindparam("p_inlinks")),
                     [{"p_id": doc_id, "p_inlinks": n} for doc_id, n in inlinks.items()])


def top_batch(conn: Connection) -> int:
    """The highest batch number used (0 for none)."""
    return int(conn.execute(select(func.max(index_outbox.c.batch))).scalar() or 0)


def lowest_batch(conn: Connection) -> int:
    """The lowest batch number used (0 for none)."""
    return int(conn.execute(select(func.min(index_outbox.c.batch))).scalar() or 0)


def unsent_batches(conn: Connection) -> list[int]:
    """The numbers of the batches the index has not acknowledged, in order."""
    return sorted(int(n) for (n,) in conn.execute(
        select(index_outbox.c.batch).distinct().where(index_outbox.c.batch != INDEXED)))


def rows_waiting(conn: Connection) -> int:
    """Committed rows that no shard writer has indexed yet (an index range scan)."""
    query = select(func.count()).select_from(index_outbox).where(index_outbox.c.batch > INDEXED)
    return int(conn.execute(query).scalar() or 0)
