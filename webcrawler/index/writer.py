"""The index's single writer, run by the engine in its own process.

`commit()` must stay cheap on the crawl's path: new documents land in a new
segment, and segments are merged in tiers (`bounded_merge`: `fan_in` similar-sized
segments at a time, at most `max_merge_docs` documents in one merge; `merging.py`
copies posting blocks rather than re-sorting postings). Every segment costs every
query a little, so merges go all the way up to `max_merge_docs` (block copying
makes large merges affordable). `optimize()` merges everything into one
segment (the CLI's `webcrawler optimize`).
Readers in other processes keep working across commits (Whoosh writes a new
table of contents atomically; old segment files stay readable while open).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from whoosh import index
from whoosh.writing import SegmentWriter

from webcrawler.index import boundfile
from webcrawler.index.format import check_format, check_whoosh, shard_count, write_format
from webcrawler.index.merging import merge_all, merge_segment
from webcrawler.index.models import IndexDamaged, IndexedDocument
from webcrawler.index.postings import ContentCodec, add_document, fast_pool
from webcrawler.index.schema import build_schema, fields_of
from webcrawler.index.storage import SEGMENT_SUFFIX, IndexStorage

log = logging.getLogger(__name__)

LOCK_WAIT = 300.0  # seconds to wait for another process's write lock
TOC_PREFIX = "MAIN"  # Whoosh's default index name: _MAIN_<generation>.toc


def choose_merge(sizes: Sequence[int], fan_in: int, max_merge_docs: int) -> list[int]:
    """Which segments (indices into `sizes`, their document counts) to merge now.

    Tiers are powers of `fan_in` in documents. In the lowest tier holding `fan_in`
    segments, the smallest are merged, as many as fit in `max_merge_docs` (at least
    two); otherwise nothing. Each document is rewritten about log_fan_in(N / commit)
    times and the index keeps at most fan_in - 1 segments a tier, plus segments too
    big to merge again.
    """
    tiers: dict[int, list[int]] = {}
    for i, size in enumerate(sizes):
        tiers.setdefault(int(math.log(max(size, 1), fan_in)), []).append(i)
    for tier in sorted(tiers):
        if len(tiers[tier]) < fan_in:
            continue
        group, total = [], 0
        for i in sorted(tiers[tier], key=lambda i: sizes[i])[:fan_in]:
            if total + sizes[i] > max_merge_docs:
                break
            group.append(i)
            total += sizes[i]
        if len(group) >= 2:
            return group
    return []


def bounded_merge(fan_in: int = 8, max_merge_docs: int = 150_000) -> Callable:
    """A Whoosh merge policy: merge what `choose_merge` picks (one merge a commit).

    `max_merge_docs` bounds a merge's time (merging copies posting blocks: about 1,400
    generated-web documents a second, so 150,000 take under two minutes), which the
    crawl's outbox slack absorbs (engine/pipeline/index_sink.py)."""

    def policy(writer: SegmentWriter, segments: list) -> list:
        chosen = choose_merge([s.doc_count_all() for s in segments], fan_in, max_merge_docs)
        for i in chosen:
            merge_segment(writer, segments[i])
        return [s for i, s in enumerate(segments) if i not in chosen]

    return policy


class IndexWriter:
    """Adds, replaces and deletes documents; `commit()` makes them visible to searchers."""

    def __init__(self, ix: index.Index, merge: Callable | None = None, limitmb: int = 128) -> None:
        self._ix = ix
        self._merge = merge or bounded_merge()
        self._limitmb = limitmb
        self._writer: SegmentWriter | None = None

    def _current(self) -> SegmentWriter:
        if self._writer is None:
            # Another writer process (a real-time search beside `webcrawler index`) holds the
            # lock only while it adds and commits a batch: wait for it rather than fail.
            self._writer = fast_pool(
                self._ix.writer(
                    limitmb=self._limitmb, codec=ContentCodec(), timeout=LOCK_WAIT, delay=0.05
                )
            )
        return self._writer

    def add(self, docs: Sequence[IndexedDocument]) -> None:
        """Index `docs`; a document whose doc_id is already indexed is replaced."""
        writer = self._current()
        values = [fields_of(doc) for doc in docs]
        with writer.searcher() as searcher:  # one searcher for the batch's replacements
            for fields in values:
                writer.delete_by_term("doc_id", fields["doc_id"], searcher=searcher)
        for fields in values:
            add_document(writer, fields)

    def delete(self, doc_ids: Iterable[int]) -> None:
        """Remove documents by doc_id (ids not in the index are ignored)."""
        writer = self._current()
        for doc_id in doc_ids:
            writer.delete_by_term("doc_id", str(doc_id))

    def commit(self) -> None:
        """Make the changes since the last commit durable and visible. Cheap: bounded merges."""
        if self._writer is not None:
            writer, self._writer = self._writer, None
            writer.commit(mergetype=self._merge)
            boundfile.write_missing(self._ix)  # a merged segment's window bounds (pruning.py)

    def optimize(self) -> None:
        """Commit pending changes, then merge the whole index into one segment (slow)."""
        self.commit()
        writer, self._writer = self._current(), None
        writer.commit(mergetype=merge_all)
        boundfile.write_missing(self._ix)

    def doc_ids(self) -> set[int]:
        """The doc_ids the committed index holds (uncommitted changes are not counted)."""
        with self._ix.reader() as reader:
            if reader.doc_count() == 0:
                return set()
            column = reader.column_reader("doc_id")
            return {int(column[n]) for n in reader.all_doc_ids()}

    def discard(self) -> None:
        """Drop the changes since the last commit and release the index's write lock: what a
        failed writer does instead of `close`, whose commit would only fail again."""
        writer, self._writer = self._writer, None
        try:
            if writer is not None:
                _cancel(writer)
        finally:
            self._ix.close()

    def close(self) -> None:
        """Commit pending changes and release the index's write lock."""
        try:
            self.commit()
        finally:
            self._ix.close()

    def __enter__(self) -> IndexWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_index(index_dir: Path, create: bool) -> index.Index:
    """Open the Whoosh index in `index_dir`, creating it (and the directory) when asked.
    Segments are read through `IndexStorage` (memory-mapped, never copied). Raises
    IndexDamaged for an index in another format (`format.py`) or whose table of contents
    cannot be read."""
    index_dir = Path(index_dir)
    storage = IndexStorage(str(index_dir))
    if has_index(index_dir):
        try:
            ix = storage.open_index()
        except OSError:  # a commit replaced the TOC as it was read: the caller looks again
            raise
        except Exception as error:  # garbage in the TOC: pickle, struct, index errors alike
            log.debug("opening the index in %s: %r", index_dir, error)
            _close_streams(error)
            raise IndexDamaged(index_dir, "has a table of contents (_MAIN_*.toc) that cannot be "
                                          "read") from None
        check_format(index_dir, ix, adopt=create)
        return ix
    refuse_orphan_segments(index_dir)
    if not create:
        raise FileNotFoundError(f"no index in {index_dir}")
    shards = shard_count(index_dir)
    if shards > 1:  # never write one index over a shard layout
        raise IndexDamaged(index_dir, f"is split into {shards} shards",
                           remedy=f"write it with `webcrawler index-writer --shards {shards}`")
    check_whoosh(index_dir)
    index_dir.mkdir(parents=True, exist_ok=True)
    write_format(index_dir)
    return storage.create_index(build_schema())


def _close_streams(error: BaseException) -> None:
    """Close the files Whoosh's TOC.read left open when it raised (its `stream` local):
    otherwise they are closed by the garbage collector, with a ResourceWarning."""
    trace = error.__traceback__
    while trace is not None:
        close = getattr(trace.tb_frame.f_locals.get("stream"), "close", None)
        if callable(close):
            close()
        trace = trace.tb_next


def refuse_orphan_segments(index_dir: Path) -> None:
    """Segments without a table of contents are an index that lost it, not a new index."""
    if Path(index_dir).is_dir() and any(Path(index_dir).glob("*" + SEGMENT_SUFFIX)):
        raise IndexDamaged(index_dir, "has segment files but no table of contents (_MAIN_*.toc)")


def has_index(index_dir: Path) -> bool:
    """Whether `index_dir` holds a Whoosh table of contents (an index, maybe empty)."""
    return Path(index_dir).is_dir() and any(Path(index_dir).glob(f"_{TOC_PREFIX}_*.toc"))


def _cancel(writer: SegmentWriter) -> None:
    """Cancel `writer`; when the disk filled in the middle of a document, cancelling writes that
    document's columns out and fails again: then only the lock is released, and the half-written
    segment, in no table of contents, is a set of files the next commit cleans up."""
    try:
        writer.cancel()
    except OSError:
        if writer.writelock:
            writer.writelock.release()


def open_writer(index_dir: Path, **kwargs: object) -> IndexWriter:
    """The index's writer; creates the index when `index_dir` holds none."""
    return IndexWriter(open_index(index_dir, create=True), **kwargs)  # type: ignore[arg-type]
