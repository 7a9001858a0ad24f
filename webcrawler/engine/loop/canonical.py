"""One search result per document: pages that name another URL as their canonical one.

A site serves one article under several URLs (a print view, a mobile path, a sorted
listing) and says which is the real one with `<link rel="canonical">` or a
`Link: <...>; rel="canonical"` header (the agent reads both). The page is indexed under
that canonical URL, and every other URL that names it is kept as an alias (the
`aliases` table), not indexed:

- the canonical URL is queued like a link (the crawl's scope decides; a canonical
  outside it is ignored, and the page indexed under its own URL, with the reason in its
  row's detail);
- an alias fetched after its canonical page is in the index is stored, not indexed;
- an alias fetched before is indexed for the time being, and leaves the index when its
  canonical page is indexed; should the canonical page never be fetched (a 404, a
  robots.txt rule), the alias stays in the index: a search always finds one of them,
  never two.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from webcrawler.engine.interfaces import DocumentBook, OneURLBook
from webcrawler.engine.loop.policies import DocumentSink, Scope
from webcrawler.engine.records import FrontierEntry
from webcrawler.protocol.messages import Document

ALIAS = "canonical"  # the reason stored with an alias: indexed under its canonical URL


class Book(OneURLBook, DocumentBook, Protocol):
    """The store as canonical URLs ask it (either store: interfaces.py)."""


class Canonicals:
    """Owned by the crawl loop; asked about every first fetch before it is indexed."""

    def __init__(self, store: Book, scope: Scope, sink: DocumentSink,
                 url_of: Callable[[FrontierEntry], str],
                 queue: Callable[[str, int], int]) -> None:
        self.store = store
        self.scope = scope
        self.sink = sink
        self._url_of = url_of
        self._queue = queue
        # canonical ids with aliases: only their fetch asks the store for them
        self._named = store.canonical_ids()
        self.aliases = 0  # pages stored as aliases in this run (the summary)

    def judge(self, entry: FrontierEntry, doc: Document) -> tuple[str | None, str | None]:
        """(reason, detail) for a page about to be indexed: ("canonical", "alias of URL") keeps
        it out of the index, (None, why) indexes it with a note, (None, None) as it is."""
        url = self._url_of(entry)
        if not doc.canonical or doc.canonical == url:
            self._indexing_canonical(entry.doc_id)
            return None, None
        why = self.scope.why_not(doc.canonical, entry.depth)
        if why is not None:
            return None, f"canonical {doc.canonical[:1500]} ignored: {why}"
        canonical_id = self._queue(doc.canonical, entry.depth)
        self._alias(entry.doc_id, canonical_id)
        if self._indexed(canonical_id):
            self.aliases += 1
            return ALIAS, f"alias of {doc.canonical[:1500]}"
        return None, f"indexed until its canonical {doc.canonical[:1500]} is"

    def line(self) -> str:
        return f"aliases {self.aliases} (canonical URLs)" if self.aliases else ""

    def _indexing_canonical(self, doc_id: int) -> None:
        """`doc_id` is going into the index under its own URL: its aliases leave it."""
        if doc_id not in self._named:
            return
        for alias_id in self.store.aliases_of(doc_id):
            self.sink.remove(alias_id)
            self.store.annotate(alias_id, reason=ALIAS)
            self.aliases += 1

    def _alias(self, doc_id: int, canonical_id: int) -> None:
        if doc_id == canonical_id:
            return
        self._named.add(canonical_id)
        self.store.add_alias(doc_id, canonical_id)

    def _indexed(self, doc_id: int) -> bool:
        return self.store.indexed(doc_id)
