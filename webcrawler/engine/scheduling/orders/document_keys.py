"""Document priorities for the live orders: smaller keys are fetched first.

Each policy turns what the crawl has seen into a key per queued document,
cheaply, and says which keys changed when links are found. The estimates behind
them are estimates.py's, the ones the ordering harness (webcrawler/evaluate/) measures:

- `BreadthFirstKeys`: (depth, id), the store's own order, across servers;
- `BacklinkKeys`: IB'(P), links seen so far (most first);
- `PageRankKeys`: IR'(P) over the graph seen so far (d = 0.9), recomputed
  every `min_every` documents or more, growing with the graph;
- `HotQueryKeys`: the paper's hot queue in front of another policy: URLs whose
  anchor text or URL mention the query, or within three links of a page that
  does, go first.

`links_found` returns the ids whose key changed, or None when all may have.
Policies never touch the network; `load` reads the stored links once when a
crawl resumes, through the store (`interfaces.OrderBook`: either store).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Protocol

from webcrawler.engine.interfaces import OrderBook
from webcrawler.engine.records import FoundLink
from webcrawler.engine.scheduling.orders.best_first import Key
from webcrawler.engine.scheduling.orders.estimates import Backlinks, HotQueue, PageRankEstimate
from webcrawler.importance.similarity import WORD, mentions

ON_TOPIC_COUNT = 10


class DocumentKeys(Protocol):
    def load(self, store: OrderBook) -> None:
        """A resumed crawl: read the stored links this policy needs (once, before crawling)."""

    def seen(self, doc_id: int, url: str) -> None:
        """A queued document entered the frontier (found now, or loaded from the database)."""

    def key(self, doc_id: int, depth: int) -> Key:
        """The document's priority now (smallest first)."""

    def links_found(self, source: int | None, found: list[FoundLink]) -> Iterable[int] | None:
        """Links stored from `source` (None: seeds, redirects); ids whose key changed, or None (all)."""


class BreadthFirstKeys:
    def load(self, store: OrderBook) -> None:
        pass

    def seen(self, doc_id: int, url: str) -> None:
        pass

    def key(self, doc_id: int, depth: int) -> Key:
        return (depth, doc_id)

    def links_found(self, source: int | None, found: list[FoundLink]) -> Iterable[int] | None:
        return ()


class BacklinkKeys(BreadthFirstKeys):
    """IB'(P): the number of stored pages seen linking to P (estimates.Backlinks)."""

    def __init__(self) -> None:
        self.backlinks = Backlinks()

    def load(self, store: OrderBook) -> None:
        self.backlinks.count.update(store.links_per_target())

    def key(self, doc_id: int, depth: int) -> Key:
        return (-self.backlinks.value(doc_id), depth, doc_id)

    def links_found(self, source: int | None, found: list[FoundLink]) -> Iterable[int] | None:
        if source is None:
            return ()
        return self.backlinks.linked([link.target_id for link in found])


class PageRankKeys(BreadthFirstKeys):
    """IR'(P) over every document and link seen so far (estimates.PageRankEstimate),
    recomputed every `min_every` documents or one in a hundred of those seen, roughly."""

    def __init__(self, min_every: int = 50) -> None:
        self.rank = PageRankEstimate(every=min_every, grow=100, tol=1e-3, max_iter=50)

    def load(self, store: OrderBook) -> None:
        for source, target in store.stored_links():
            self.rank.add_link(source, target)
        if self.rank.node:
            self.rank.recompute()

    def key(self, doc_id: int, depth: int) -> Key:
        return (-self.rank.value(doc_id), depth, doc_id)

    def links_found(self, source: int | None, found: list[FoundLink]) -> Iterable[int] | None:
        if source is None:
            for link in found:
                self.rank.seen(link.target_id)
            return ()
        return self.rank.linked(source, [link.target_id for link in found])


class HotQueryKeys:
    """The hot queue (Cho et al., Fig. 5; estimates.HotQueue) in front of another policy's keys.
    A page's text is read after its links are stored (`page_read`), so until then a page
    whose URL or an anchor names the query stands in for one on the topic."""

    def __init__(self, query: str, base: DocumentKeys) -> None:
        self.queue = HotQueue(query)
        self.base = base
        self._last: tuple[int, list[int]] = (-1, [])

    def load(self, store: OrderBook) -> None:
        self.base.load(store)

    def seen(self, doc_id: int, url: str) -> None:
        self.queue.seen(doc_id, url)
        self.base.seen(doc_id, url)

    def hot(self, doc_id: int) -> bool:
        return self.queue.hot(doc_id)

    def key(self, doc_id: int, depth: int) -> Key:
        return (0 if self.hot(doc_id) else 1, *self.base.key(doc_id, depth))

    def links_found(self, source: int | None, found: list[FoundLink]) -> Iterable[int] | None:
        changed = self.base.links_found(source, found)
        mine = [link.target_id for link in found if self.queue.anchored(link.target_id, link.anchor)]
        if source is not None:
            self._last = (source, [link.target_id for link in found])
            mine += self.queue.spread(source, self._last[1], source in self.queue.named)
        return None if changed is None else [*changed, *mine]

    def page_read(self, doc_id: int, title: str, text: str) -> list[int]:
        """A fetched page: when it is on the topic (the paper's test: the query in its title, or
        each query word ten times or more in its text), its links are one link from a hot page."""
        counts = Counter(WORD.findall(text.lower()))
        words = self.queue.words
        if not (mentions(title, words) or all(counts[w] >= ON_TOPIC_COUNT for w in words)):
            return []
        self.queue.on_topic(doc_id)
        targets = self._last[1] if self._last[0] == doc_id else []
        return self.queue.spread(doc_id, targets, True)
