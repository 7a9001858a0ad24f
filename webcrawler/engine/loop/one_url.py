"""One URL per document: what a page that would be indexed is judged by first.

An alias of its canonical URL (canonical.py) or a near-duplicate of an indexed page
(near_duplicates.py) is stored and not indexed. Both ask the store (its aliases, its
sketches: interfaces.py's `OneURLBook`, which the SQL and the in-memory store both answer),
so every client of the document path judges alike: `webcrawler index` and real-time search
(index_hooks.py), and the toolkit's `AddToIndex` (toolkit/actions/index.py), so a Workbench
crawl indexes one URL per document as a batch crawl does.
"""

from __future__ import annotations

from collections.abc import Callable

from webcrawler.engine.loop.canonical import Book, Canonicals
from webcrawler.engine.loop.near_duplicates import NEAR_DUPLICATE, NearDuplicates
from webcrawler.engine.loop.policies import DocumentSink, Scope
from webcrawler.engine.records import FrontierEntry
from webcrawler.protocol.messages import Document


class OneURLPerDocument:
    """The `Judge` (documents.py) of a crawl that indexes: canonical URLs, then
    near-duplicates; its `line` is the summary's."""

    def __init__(self, store: Book, scope: Scope, sink: DocumentSink,
                 url_of: Callable[[FrontierEntry], str],
                 queue: Callable[[str, int], int], threshold: float) -> None:
        self.canonicals = Canonicals(store, scope, sink, url_of, queue)
        self.near_duplicates = NearDuplicates(store, threshold, sink)

    def __call__(self, entry: FrontierEntry, doc: Document, reason: str | None
                 ) -> tuple[str | None, str | None, bytes]:
        detail = None
        if reason is None:
            reason, detail = self.canonicals.judge(entry, doc)
        sketch = doc.sketch or self.near_duplicates.sketch(doc, reason)
        if reason is None and (near := self.near_duplicates.judge(
                entry, sketch, doc.content_type)):
            reason, detail = NEAR_DUPLICATE, near
        return reason, detail, sketch

    def line(self) -> str:
        """Aliases and near-duplicates kept out of the index ("" when none)."""
        return "; ".join(part for part in (self.canonicals.line(), self.near_duplicates.line())
                         if part)
