"""Virtual crawlers: crawl the stored crawl again, in another order, without the network.

The repository stands in for the Web (Cho, Garcia-Molina & Page, Fig. 1):
visiting a page reveals its links and nothing else, so each crawler decides
only from what it has seen. A crawler keeps its queue of seen URLs in a heap
keyed by (not hot, -I'(P), discovery), re-pushing a page when its estimate
changes (stale entries are skipped when they surface). Server-first instead
replays the WebCrawler's order: a new server's first page before any
server's second, then servers least recently visited first, each server's
pages breadth-first.

With a hot query (Fig. 5), URLs whose anchor text or URL mention every
query word, or that lie within `estimates.HOT_DISTANCE` links of a visited page on the
topic, go before the rest.

Limited buffers (PBC) ride along: each keeps at most B visited pages and
drops the one with the lowest current estimate when full.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from webcrawler.engine.scheduling.orders import estimates
from webcrawler.evaluate.orders import EstimateOrder, make_estimate_order
from webcrawler.importance.graph import CrawlGraph
from webcrawler.importance.similarity import query_words
from webcrawler.protocol.urls import split


class HotQueue(estimates.HotQueue):
    """The paper's hot queue over the graph: a visited page's text is known, so `on_topic`
    says at once whether its links are one link from a page on the topic."""

    def __init__(self, words: list[str], on_topic: Callable[[int], bool]) -> None:
        super().__init__(words)
        self.on_topic_page = on_topic

    def discovered(self, page: int, url: str) -> None:
        self.seen(page, url)

    def visited(self, page: int, targets: Sequence[int], anchors: dict[tuple[int, int], str]
                ) -> list[int]:
        named = [t for t in targets if self.anchored(t, anchors.get((page, t), ""))]
        return named + self.spread(page, targets, self.on_topic_page(page))


class Buffer:
    """At most `capacity` visited pages; the lowest current estimate is dropped first."""

    def __init__(self, capacity: int, order: EstimateOrder) -> None:
        self.capacity = capacity
        self.order = order
        self.pages: set[int] = set()
        self._heap: list[tuple[float, int, int]] = []

    def _push(self, page: int) -> None:
        heapq.heappush(self._heap, (self.order.value(page), -self.order.discovery[page], page))

    def add(self, page: int) -> None:
        self.pages.add(page)
        self._push(page)
        while len(self.pages) > self.capacity:
            estimate, _, victim = heapq.heappop(self._heap)
            if victim in self.pages and estimate == self.order.value(victim):
                self.pages.discard(victim)

    def changed(self, pages: Sequence[int] | None) -> None:
        if pages is None:
            self._heap = []
            for page in self.pages:
                self._push(page)
        else:
            for page in pages:
                if page in self.pages:
                    self._push(page)


@dataclass
class CrawlResult:
    order: str
    visits: list[int]  # pages in visiting order
    buffers: dict[int, set[int]]  # capacity -> pages kept at the end


class VirtualCrawler:
    """One crawl of `graph` from `start` in the order called `name`."""

    def __init__(self, graph: CrawlGraph, name: str, start: Sequence[int], *,
                 hot: HotQueue | None = None, buffers: Sequence[int] = (), seed: int = 0) -> None:
        self.graph = graph
        self.name = name
        self.order = make_estimate_order(name, len(graph), seed)
        self.hot = hot
        self.buffers = [Buffer(b, self.order) for b in buffers]
        self.start = list(start)
        self._heap: list[tuple[tuple[int, float, int], int]] = []
        self._key: dict[int, tuple[int, float, int]] = {}
        self._servers = ServerFirstQueue(graph) if name == "server-first" else None

    def run(self) -> CrawlResult:
        for start in self.start:
            self._discover(start)
        visits: list[int] = []
        while (page := self._pop()) is not None:
            visits.append(page)
            targets = self.graph.out[page]
            for target in targets:
                if target not in self.order.discovery:
                    self._discover(target, parent=page)
            changed = self.order.visited(page, targets)
            if self.hot is not None:
                hot_changed = self.hot.visited(page, targets, self.graph.anchors)
                if changed is not None:
                    changed = changed + hot_changed
            self._rekey(changed)
            for buffer in self.buffers:
                buffer.changed(changed)
                buffer.add(page)
        return CrawlResult(self.name, visits, {b.capacity: b.pages for b in self.buffers})

    def _discover(self, page: int, parent: int | None = None) -> None:
        self.order.discovered(page)
        if self.hot is not None:
            self.hot.discovered(page, self.graph.urls[page])
        if self._servers is not None:
            self._servers.push(page, parent)
        else:
            self._push(page)

    def _key_of(self, page: int) -> tuple[int, float, int]:
        hot = 0 if self.hot is None or self.hot.hot(page) else 1
        return hot, -self.order.value(page), self.order.discovery[page]

    def _push(self, page: int) -> None:
        key = self._key_of(page)
        self._key[page] = key
        heapq.heappush(self._heap, (key, page))

    def _rekey(self, pages: Sequence[int] | None) -> None:
        if self._servers is not None:
            return
        if pages is None:
            self._heap = [(self._key_of(p), p) for p in self._key]
            self._key = {p: k for k, p in self._heap}
            heapq.heapify(self._heap)
            return
        for page in pages:
            if page in self._key and self._key_of(page) != self._key[page]:
                self._push(page)

    def _pop(self) -> int | None:
        if self._servers is not None:
            return self._servers.pop()
        while self._heap:
            key, page = heapq.heappop(self._heap)
            if self._key.get(page) == key:
                del self._key[page]
                return page
        return None


class ServerFirstQueue:
    """Pinkerton's order over the graph: new servers first, then least recently visited."""

    def __init__(self, graph: CrawlGraph) -> None:
        self.graph = graph
        self.depth: dict[int, int] = {}
        self.per_server: dict[str, list[tuple[int, int, int]]] = {}
        self.new: list[str] = []  # servers never visited, in discovery order
        self.last_visit: dict[str, int] = {}
        self._count = 0

    def push(self, page: int, parent: int | None) -> None:
        self.depth[page] = 0 if parent is None else self.depth[parent] + 1
        server = split(self.graph.urls[page])[0]
        if server not in self.per_server:
            self.per_server[server] = []
            self.new.append(server)
        self._count += 1
        heapq.heappush(self.per_server[server], (self.depth[page], self._count, page))

    def pop(self) -> int | None:
        while self.new:
            server = self.new.pop(0)
            if self.per_server[server]:
                return self._take(server)
        ready = [(self.last_visit.get(s, -1), s) for s, queue in self.per_server.items() if queue]
        return self._take(min(ready)[1]) if ready else None

    def _take(self, server: str) -> int:
        self._count += 1
        self.last_visit[server] = self._count
        return heapq.heappop(self.per_server[server])[2]


def reachable(graph: CrawlGraph, start: Sequence[int]) -> set[int]:
    """Pages reachable from `start` by links."""
    seen, stack = set(start), list(start)
    while stack:
        for target in graph.out[stack.pop()]:
            if target not in seen:
                seen.add(target)
                stack.append(target)
    return seen


def hot_queue_for(query: str, on_topic: Callable[[int], bool]) -> HotQueue:
    return HotQueue(query_words(query), on_topic)
