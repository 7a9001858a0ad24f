"""One search result per document: pages whose text resembles a page already indexed.

Mirrors, print views and copies that differ by a date, a counter or the navigation are
not byte-identical (the checksum misses them) but their w-shingle sketches
(webcrawler/text/shingles.py: the 256 smallest shingle hashes, Broder 1997) resemble each
other. A page that resembles an indexed page at least `threshold` (Jaccard, estimated
from the sketches) is stored as its near-duplicate (reason `near-duplicate`, the other
page named in the detail) and not indexed.

Between two formats the HTML page is the one indexed: a site's PDF print of a page is fetched
as often before the page as after it, and a search should lead to the page (its links, its
language, its size), not to its print. An HTML page that resembles an indexed PDF (or any
other format) takes its place: the other leaves the index, stored as the HTML page's
near-duplicate and kept as its alias (the `aliases` table, as a canonical URL's aliases
are); an other format that resembles an indexed HTML page is its near-duplicate and alias.

The cost per page stays constant as the crawl grows: each indexed page is filed under
its sketch's BAND_KEYS smallest hashes (one MinHash value each); a new page is compared
only with the pages filed under at least MIN_SHARED of its own keys (two near-duplicate
pages share most of their smallest hashes, two pages that share a site's navigation a
few), at most MAX_CANDIDATES of them, the most recent first, and each bucket keeps its
BUCKET_SIZE newest pages. The measured threshold: docs/near-duplicates.md.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from webcrawler.engine.loop.canonical import Book
from webcrawler.engine.loop.policies import DocumentSink, NullSink
from webcrawler.engine.records import FrontierEntry
from webcrawler.protocol.filetypes import mime_type
from webcrawler.protocol.messages import KIND_OF_TYPE, Document
from webcrawler.text.shingles import resemblance, sketch

NEAR_DUPLICATE = "near-duplicate"  # the reason stored with a near-duplicate
BAND_KEYS = 8
MIN_SHARED = 4
MAX_CANDIDATES = 8
BUCKET_SIZE = 32
MIN_SHINGLES = 24  # shorter pages (error pages, stubs) are too alike to judge this way


class NearDuplicates:
    """Owned by the crawl loop: asked about every first fetch that would be indexed."""

    def __init__(self, store: Book, threshold: float, sink: DocumentSink | None = None) -> None:
        self.store = store
        self.threshold = threshold
        self.sink = sink or NullSink()  # where an indexed page is taken out for its HTML twin
        self._buckets: dict[int, deque[int]] = {}
        self.found = 0  # near-duplicates in this run (the summary)
        if threshold > 0:
            self._load()

    def sketch(self, doc: Document, reason: str | None) -> bytes:
        """The sketch of a page that may be indexed (b"" when off or not): made here, not in
        the agents, so that a batch crawl's agents never load numpy (0.2 s each start)."""
        if self.threshold <= 0 or reason is not None or not doc.text:
            return b""
        return sketch(doc.text)

    def judge(self, entry: FrontierEntry, page_sketch: bytes, content_type: str = "") -> str:
        """Why the page is a near-duplicate ("resembles document N (r)"), or "" when it is not
        one (or is the HTML twin of an indexed page of another format, which it replaces):
        then it is filed, for the pages after it."""
        if self.threshold <= 0 or not page_sketch:
            return ""
        count, hashes = _parts(page_sketch)
        if count < MIN_SHINGLES:
            return ""
        keys = [int(h) for h in hashes[:BAND_KEYS]]
        best = self._most_alike(page_sketch, keys)
        if best is not None and best[1] >= self.threshold:
            other, score, other_type = best
            self.found += 1
            if is_html(content_type) and not is_html(other_type):
                self._replace(other, entry.doc_id, score)
                self._file(entry.doc_id, keys)
                return ""
            if mime_type(content_type) != mime_type(other_type):
                self._alias(entry.doc_id, other)
            return f"resembles document {other} ({score:.2f})"
        self._file(entry.doc_id, keys)
        return ""

    def line(self) -> str:
        return f"near-duplicates {self.found} not indexed" if self.found else ""

    def _replace(self, other: int, html: int, score: float) -> None:
        """The indexed `other` leaves the index for its HTML twin `html`, kept as its alias."""
        self.sink.remove(other)
        self.store.annotate(other, reason=NEAR_DUPLICATE,
                            detail=f"resembles document {html} ({score:.2f}), indexed as HTML")
        self.store.add_alias(other, html)

    def _alias(self, doc_id: int, twin: int) -> None:
        self.store.add_alias(doc_id, twin)

    def _most_alike(self, sketch: bytes, keys: list[int]) -> tuple[int, float, str] | None:
        shared: dict[int, int] = {}
        for key in keys:
            for doc_id in self._buckets.get(key, ()):
                shared[doc_id] = shared.get(doc_id, 0) + 1
        alike = [(n, doc_id) for doc_id, n in shared.items() if n >= MIN_SHARED]
        if not alike:  # most pages: no indexed page shares enough of their smallest hashes
            return None
        candidates = [doc_id for _, doc_id in sorted(alike, key=lambda pair: -pair[0])[:MAX_CANDIDATES]]
        rows = self.store.indexed_sketches(candidates)  # still indexed: not an alias its
        # canonical page took out of the index
        scored = [(doc_id, resemblance(sketch, other), kind) for doc_id, other, kind in rows]
        return max(scored, key=lambda found: found[1], default=None)

    def _file(self, doc_id: int, keys: list[int]) -> None:
        for key in keys:
            bucket = self._buckets.get(key)
            if bucket is None:
                bucket = self._buckets[key] = deque(maxlen=BUCKET_SIZE)
            bucket.appendleft(doc_id)

    def _load(self) -> None:
        """A resumed crawl: file the indexed pages that have a sketch."""
        for doc_id, stored, _ in self.store.indexed_sketches():
            count, hashes = _parts(stored)
            if count >= MIN_SHINGLES:
                self._file(doc_id, [int(h) for h in hashes[:BAND_KEYS]])


def _parts(sketch: bytes) -> tuple[int, np.ndarray]:
    values = np.frombuffer(sketch, dtype="<u4")
    return (int(values[0]), values[1:]) if values.size else (0, values)


def is_html(content_type: str) -> bool:
    return KIND_OF_TYPE.get(mime_type(content_type)) == "html"
