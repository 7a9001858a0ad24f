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

import contextlib
import gc
import logging
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

from whoosh import index
from whoosh.writing import SegmentWriter

from webcrawler.index.format.merging import merge_all, merge_segment
from webcrawler.index.format.opening import open_index
from webcrawler.index.format.postings import ContentCodec, add_document, close_files, fast_pool
from webcrawler.index.format.schema import fields_of
from webcrawler.index.models import IndexedDocument
from webcrawler.index.search import boundfile

log = logging.getLogger(__name__)

LOCK_WAIT = 300.0  # seconds to wait for another process's write lock
# The pool a commit's postings are held in before they spill to runs on disk (runs.py), in MB
# as the pool estimates them (about what they take: postings.WORD_BYTES). A crawl's commit of text-heavy
# pages (5,000 words) passed 128: each was spilled, written and read back, CPU that memory
# the machine has to spare saves (docs/measurements.md, "The writer's pool").
POOL_MB = 256


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


@contextlib.contextmanager
def _no_collection() -> Iterator[None]:
    """Python's cycle collector paused: adding a batch and committing it make a tuple, list
    or bytes object per posting (hundreds of thousands a commit, none in a cycle), and the
    collector, started every 700 new objects, walked the young ones and, as they aged, the
    pool's every posting again and again. It runs as before once the call returns."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


class IndexWriter:
    """Adds, replaces and deletes documents; `commit()` makes them visible to searchers."""

    def __init__(self, ix: index.Index, merge: Callable | None = None, limitmb: int = POOL_MB) -> None:
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
        with _no_collection():
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
            with _no_collection():
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


def _cancel(writer: SegmentWriter) -> None:
    """Cancel `writer`; when the disk filled in the middle of a document, cancelling writes that
    document's columns out and fails again: then only the lock is released, and the half-written
    segment, in no table of contents, is a set of files the next commit cleans up (its files
    closed first, not left open for the garbage collector)."""
    try:
        writer.cancel()
    except OSError as failure:
        close_files(writer, failure)
        if writer.writelock:
            writer.writelock.release()


def open_writer(index_dir: Path, **kwargs: object) -> IndexWriter:
    """The index's writer; creates the index when `index_dir` holds none."""
    return IndexWriter(open_index(index_dir, create=True), **kwargs)  # type: ignore[arg-type]
