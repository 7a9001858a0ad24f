"""Document priorities for the live orders: smaller keys are fetched first.

Each policy turns what the crawl has seen into a key per queued document,
cheaply, and says which keys changed when links are found:

- `BreadthFirstKeys`: (depth, id), the store's own order, across servers;
- `BacklinkKeys`: IB'(P), links seen so far (most first);
- `PageRankKeys`: IR'(P) over the graph seen so far (d = 0.9), recomputed with
  numpy every `every` documents (at least `min_every`, growing with the
  graph); between recomputes a new link adds d * IR'(source) / c(source) to
  its target, so new URLs are placed at once;
- `HotQueryKeys`: the paper's hot queue in front of another policy: URLs whose
  anchor text or URL mention the query, or within three links of a page that
  does, go first.

`links_found` returns the ids whose key changed, or None when all may have.
Policies never touch the network; `load` reads the stored links once when a
crawl resumes, through the store (`interfaces.OrderBook`: either store).
"""

from __future__ import annotations

import logging
import time
from array import array
from collections import Counter
from collections.abc import Iterable
from typing import Protocol

import numpy as np

from webcrawler.engine.interfaces import OrderBook
from webcrawler.engine.records import FoundLink
from webcrawler.engine.scheduling.orders.best_first import Key
from webcrawler.importance.pagerank import DAMPING, pagerank_edges
from webcrawler.importance.similarity import WORD, mentions, query_words

log = logging.getLogger(__name__)

HOT_DISTANCE = 3
ON_TOPIC_COUNT = 10
FAR = 1 << 30


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
    """IB'(P): the number of stored pages seen linking to P."""

    def __init__(self) -> None:
        self.count: dict[int, int] = {}

    def load(self, store: OrderBook) -> None:
        self.count.update(store.links_per_target())

    def key(self, doc_id: int, depth: int) -> Key:
        return (-self.count.get(doc_id, 0), depth, doc_id)

    def links_found(self, source: int | None, found: list[FoundLink]) -> Iterable[int] | None:
        if source is None:
            return ()
        for link in found:
            self.count[link.target_id] = self.count.get(link.target_id, 0) + 1
        return [link.target_id for link in found]


class PageRankKeys(BreadthFirstKeys):
    """IR'(P) over every document and link seen so far."""

    def __init__(self, min_every: int = 50, d: float = DAMPING) -> None:
        self.d = d
        self.min_every = min_every
        self.node: dict[int, int] = {}  # doc id -> node number
        self.sources = array("q")
        self.targets = array("q")
        self.out_degree: dict[int, int] = {}
        self.rank = np.zeros(0)
        self.estimate: dict[int, float] = {}
        self._since = 0
        self.recomputes = 0
        self.seconds = 0.0

    def _node(self, doc_id: int) -> int:
        number = self.node.get(doc_id)
        if number is None:
            number = self.node[doc_id] = len(self.node)
        return number

    def load(self, store: OrderBook) -> None:
        for source, target in store.stored_links():
            self.sources.append(self._node(source))
            self.targets.append(self._node(target))
            self.out_degree[source] = self.out_degree.get(source, 0) + 1
        if self.node:
            self.recompute()

    def key(self, doc_id: int, depth: int) -> Key:
        return (-self.estimate.get(doc_id, 1.0 - self.d), depth, doc_id)

    def links_found(self, source: int | None, found: list[FoundLink]) -> Iterable[int] | None:
        if source is None:
            for link in found:
                self._node(link.target_id)
            return ()
        s = self._node(source)
        for link in found:
            self.sources.append(s)
            self.targets.append(self._node(link.target_id))
        self.out_degree[source] = self.out_degree.get(source, 0) + len(found)
        if found:
            share = self.d * self.estimate.get(source, 1.0 - self.d) / len(found)
            for link in found:
                self.estimate[link.target_id] = self.estimate.get(link.target_id, 1.0 - self.d) + share
        self._since += 1
        if self._since < max(self.min_every, len(self.node) // 100):
            return [link.target_id for link in found]
        self.recompute()
        return None

    def recompute(self) -> None:
        began = time.perf_counter()
        n = len(self.node)
        sources = np.frombuffer(self.sources, dtype=np.int64).copy()  # no view: arrays grow
        targets = np.frombuffer(self.targets, dtype=np.int64).copy()
        self.rank = pagerank_edges(n, sources, targets, self.d,
                                   start=self.rank, tol=1e-3, max_iter=50)
        values = self.rank.tolist()
        self.estimate = {doc: values[number] for doc, number in self.node.items()}
        self._since = 0
        self.recomputes += 1
        self.seconds += time.perf_counter() - began
        log.debug("PageRank of %d documents in %.3f s", n, time.perf_counter() - began)


class HotQueryKeys:
    """The hot queue (Cho et al., Fig. 5) in front of another policy's keys."""

    def __init__(self, query: str, base: DocumentKeys) -> None:
        self.words = query_words(query)
        self.base = base
        self.named: set[int] = set()  # its URL or an anchor pointing to it mentions the query
        self.distance: dict[int, int] = {}  # links from a page that mentions the query
        self._last: tuple[int, list[int]] = (-1, [])

    def load(self, store: OrderBook) -> None:
        self.base.load(store)

    def seen(self, doc_id: int, url: str) -> None:
        if mentions(url, self.words):
            self.named.add(doc_id)
        self.base.seen(doc_id, url)

    def hot(self, doc_id: int) -> bool:
        return doc_id in self.named or self.distance.get(doc_id, FAR) <= HOT_DISTANCE

    def key(self, doc_id: int, depth: int) -> Key:
        return (0 if self.hot(doc_id) else 1, *self.base.key(doc_id, depth))

    def links_found(self, source: int | None, found: list[FoundLink]) -> Iterable[int] | None:
        changed = self.base.links_found(source, found)
        mine = []
        for link in found:
            if link.anchor and link.target_id not in self.named and mentions(link.anchor, self.words):
                self.named.add(link.target_id)
                mine.append(link.target_id)
        if source is not None:
            self._last = (source, [link.target_id for link in found])
            mine += self._spread(source, self._last[1])
        return None if changed is None else [*changed, *mine]

    def page_read(self, doc_id: int, title: str, text: str) -> list[int]:
        """A fetched page: when it is on the topic (the paper's test: the query in its title, or
        each query word ten times or more in its text), its links are one link from a hot page."""
        counts = Counter(WORD.findall(text.lower()))
        if not (mentions(title, self.words) or all(counts[w] >= ON_TOPIC_COUNT for w in self.words)):
            return []
        self.distance[doc_id] = 0
        return self._spread(doc_id, self._last[1] if self._last[0] == doc_id else [])

    def _spread(self, source: int, targets: list[int]) -> list[int]:
        here = 0 if source in self.named else self.distance.get(source, FAR)
        changed = []
        for target in targets:
            if here + 1 < self.distance.get(target, FAR):
                self.distance[target] = here + 1
                changed.append(target)
        return changed
