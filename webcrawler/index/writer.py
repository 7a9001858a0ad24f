"""The index's single writer, run by the engine in its own process.

`commit()` must stay cheap on the crawl's path: new documents land in a new
segment, and segments are merged in bounded steps (`bounded_merge`: at most
`fan_in` similar-sized segments, never more than `max_merge_docs` documents in
one merge; `merging.py` copies the postings a block at a time). `optimize()`
merges everything into one segment and is for the CLI, not the crawl: at 50,000
documents the crawl's merges leave about 33 segments, which measured costs a
query only ~1-2 ms more than one segment (bench/index_speed.py).
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

from webcrawler.index.merging import merge_all, merge_segment
from webcrawler.index.models import IndexedDocument
from webcrawler.index.postings import ContentCodec, fast_pool
from webcrawler.index.schema import build_schema, fields_of
from webcrawler.index.storage import IndexStorage

log = logging.getLogger(__name__)

LOCK_WAIT = 300.0  # seconds to wait for another process's write lock


def bounded_merge(fan_in: int = 8, max_merge_docs: int = 12_000) -> Callable:
    """A Whoosh merge policy: merge the `fan_in` smallest segments of one size tier.

    Tiers are powers of `fan_in` (in documents); a merge happens only when a tier holds
    `fan_in` segments and their sum stays under `max_merge_docs`, so one commit merges
    at most that many documents.
    """

    def policy(writer: SegmentWriter, segments: list) -> list:
        tiers: dict[int, list] = {}
        for seg in segments:
            count = max(seg.doc_count_all(), 1)
            tiers.setdefault(int(math.log(count, fan_in)), []).append(seg)
        for tier in sorted(tiers):
            group = sorted(tiers[tier], key=lambda s: s.doc_count_all())[:fan_in]
            if len(group) >= fan_in and sum(s.doc_count_all() for s in group) <= max_merge_docs:
                for seg in group:
                    merge_segment(writer, seg)
                return [s for s in segments if s not in group]
        return segments

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
        for doc in docs:
            writer.update_document(**fields_of(doc))

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

    def optimize(self) -> None:
        """Commit pending changes, then merge the whole index into one segment (slow)."""
        self.commit()
        writer, self._writer = self._current(), None
        writer.commit(mergetype=merge_all)

    def doc_ids(self) -> set[int]:
        """The doc_ids the committed index holds (uncommitted changes are not counted)."""
        with self._ix.reader() as reader:
            if reader.doc_count() == 0:
                return set()
            column = reader.column_reader("doc_id")
            return {int(column[n]) for n in reader.all_doc_ids()}

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
    Segments are read through `IndexStorage` (memory-mapped, never copied)."""
    index_dir = Path(index_dir)
    storage = IndexStorage(str(index_dir))
    if index.exists_in(str(index_dir)):
        return storage.open_index()
    if not create:
        raise FileNotFoundError(f"no index in {index_dir}")
    index_dir.mkdir(parents=True, exist_ok=True)
    return storage.create_index(build_schema())


def open_writer(index_dir: Path, **kwargs: object) -> IndexWriter:
    """The index's writer; creates the index when `index_dir` holds none."""
    return IndexWriter(open_index(index_dir, create=True), **kwargs)  # type: ignore[arg-type]
