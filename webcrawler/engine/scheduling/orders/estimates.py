"""Cho, Garcia-Molina & Page's importance estimates, one implementation for every crawl that ranks by them.

The live orders (document_keys.py, under `webcrawler index --order`) and the ordering harness's
virtual crawlers (webcrawler/evaluate/) rank queued pages by the same estimates, so that what
the harness measures is what a crawl does. Each knows only the pages visited so far (the
paper's `reorder_queue()`), and is told each visit's links:

- `Backlinks`: IB'(P), links to P seen so far;
- `PageRankEstimate`: IR'(P) over the graph seen so far, recomputed every so many visits;
  between recomputes a new link adds d * IR'(source) / c(source) to its target, so a new
  URL has a place at once;
- `HotQueue`: the paper's hot queue (Fig. 5): URLs whose anchor text or URL mention the
  query, or within `HOT_DISTANCE` links of a page on the topic, go first.

Pages are numbers (a crawl's document ids, the harness's graph nodes). A visit returns the
pages whose estimate changed, or None when every estimate may have. Nothing here does I/O.
"""

from __future__ import annotations

import logging
import time
from array import array
from collections.abc import Sequence

import numpy as np

from webcrawler.importance.pagerank import DAMPING, pagerank_edges
from webcrawler.importance.similarity import mentions, query_words

log = logging.getLogger(__name__)

HOT_DISTANCE = 3
FAR = 1 << 30


class Backlinks:
    """IB'(P): the number of visited pages seen linking to P."""

    def __init__(self) -> None:
        self.count: dict[int, int] = {}

    def value(self, page: int) -> int:
        return self.count.get(page, 0)

    def linked(self, targets: Sequence[int]) -> list[int]:
        """A visited page links to `targets` (a target twice: two links)."""
        for target in targets:
            self.count[target] = self.count.get(target, 0) + 1
        return list(targets)


class PageRankEstimate:
    """IR'(P) over the pages and links seen so far. A page not yet visited has no known
    links, so it counts as linking to every page (pagerank_edges' dangling pages).

    It is recomputed after `every` visits, or after one visit in `grow` of the pages seen
    when that is more (a large crawl recomputes less often); `tol` and `max_iter` bound
    each recompute, warm-started from the last."""

    def __init__(self, every: int, grow: int | None = None, tol: float = 1e-4,
                 max_iter: int = 200, d: float = DAMPING) -> None:
        self.every = max(1, every)
        self.grow = grow
        self.tol = tol
        self.max_iter = max_iter
        self.d = d
        self.node: dict[int, int] = {}  # page -> node number, in the order pages were seen
        self.sources = array("q")
        self.targets = array("q")
        self.rank = np.zeros(0)
        self.estimate: dict[int, float] = {}
        self._since = 0

    def seen(self, page: int) -> int:
        """`page`'s node number (numbered now if it is new)."""
        number = self.node.get(page)
        if number is None:
            number = self.node[page] = len(self.node)
        return number

    def value(self, page: int) -> float:
        return self.estimate.get(page, 1.0 - self.d)

    def add_link(self, source: int, target: int) -> None:
        """A stored link, read when a crawl resumes (no estimate moves until `recompute`)."""
        self.sources.append(self.seen(source))
        self.targets.append(self.seen(target))

    def linked(self, page: int, targets: Sequence[int]) -> list[int] | None:
        """`page` was visited and links to `targets`."""
        source = self.seen(page)
        for target in targets:
            self.sources.append(source)
            self.targets.append(self.seen(target))
        if targets:
            share = self.d * self.value(page) / len(targets)
            for target in targets:
                self.estimate[target] = self.value(target) + share
        self._since += 1
        if self._since < max(self.every, len(self.node) // self.grow if self.grow else 0):
            return list(targets)
        self.recompute()
        return None

    def recompute(self) -> None:
        began = time.perf_counter()
        sources = np.frombuffer(self.sources, dtype=np.int64).copy()  # no view: arrays grow
        targets = np.frombuffer(self.targets, dtype=np.int64).copy()
        self.rank = pagerank_edges(len(self.node), sources, targets, self.d, start=self.rank,
                                   tol=self.tol, max_iter=self.max_iter)
        values = self.rank.tolist()
        self.estimate = {page: values[number] for page, number in self.node.items()}
        self._since = 0
        log.debug("PageRank of %d pages in %.3f s", len(self.node), time.perf_counter() - began)


class HotQueue:
    """The hot queue for `query`: which queued pages go first. A page is named when its URL
    or the anchor text of a link to it mentions every query word; `distance` counts links
    from a page known to be on the topic (the caller says which are)."""

    def __init__(self, query: str | Sequence[str]) -> None:
        self.words = query_words(query) if isinstance(query, str) else list(query)
        self.named: set[int] = set()
        self.distance: dict[int, int] = {}

    def hot(self, page: int) -> bool:
        return page in self.named or self.distance.get(page, FAR) <= HOT_DISTANCE

    def seen(self, page: int, url: str) -> None:
        if mentions(url, self.words):
            self.named.add(page)

    def anchored(self, target: int, anchor: str) -> bool:
        """A link to `target` with this anchor text; True when it names `target` now."""
        if anchor and target not in self.named and mentions(anchor, self.words):
            self.named.add(target)
            return True
        return False

    def on_topic(self, page: int) -> None:
        self.distance[page] = 0

    def spread(self, source: int, targets: Sequence[int], on_topic: bool) -> list[int]:
        """`source` links to `targets`: they are one link further than it from the topic."""
        here = 0 if on_topic else self.distance.get(source, FAR)
        changed = []
        for target in targets:
            if here + 1 < self.distance.get(target, FAR):
                self.distance[target] = here + 1
                changed.append(target)
        return changed
