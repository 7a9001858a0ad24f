"""What a virtual crawler knows of each queued page, and so which it visits first.

Every order gives a queued page an estimate I'(P) (higher goes first; ties
in discovery order), computed only from the pages visited so far, as in
Cho, Garcia-Molina & Page's `reorder_queue()`:

- `breadth-first`: first discovered, first visited (estimate = -discovery number);
- `backlink`: IB'(P), links to P seen so far;
- `pagerank`: IR'(P) over the graph seen so far (unvisited pages have no known
  links, so they count as linking to every page), recomputed every `every`
  visits; between recomputes a newly seen link adds d * IR'(source) / c(source);
- `random`: a random number drawn when the page is discovered.

`visited(page, targets)` is told each visit and returns the pages whose
estimate changed, or None when every estimate may have changed.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np

from webcrawler.errors import OrderingError
from webcrawler.importance.pagerank import DAMPING, pagerank_edges


class EstimateOrder:
    """Base: a constant estimate per page (breadth-first)."""

    name = "breadth-first"

    def __init__(self) -> None:
        self.estimate: dict[int, float] = {}
        self.discovery: dict[int, int] = {}

    def discovered(self, page: int) -> None:
        self.discovery[page] = len(self.discovery)
        self.estimate[page] = self.initial(page)

    def initial(self, page: int) -> float:
        return -float(self.discovery[page])

    def visited(self, page: int, targets: Sequence[int]) -> list[int] | None:
        return []


class RandomOrder(EstimateOrder):
    name = "random"

    def __init__(self, seed: int = 0) -> None:
        super().__init__()
        self.rng = random.Random(seed)

    def initial(self, page: int) -> float:
        return self.rng.random()


class BacklinkOrder(EstimateOrder):
    """IB'(P): the number of visited pages seen linking to P."""

    name = "backlink"

    def initial(self, page: int) -> float:
        return 0.0

    def visited(self, page: int, targets: Sequence[int]) -> list[int] | None:
        for target in targets:
            self.estimate[target] += 1.0
        return list(targets)


class PageRankOrder(EstimateOrder):
    """IR'(P) over the pages and links seen so far, recomputed every `every` visits."""

    name = "pagerank"

    def __init__(self, every: int = 10, d: float = DAMPING) -> None:
        super().__init__()
        self.every = max(1, every)
        self.d = d
        self.nodes: list[int] = []  # compact index (= discovery number) -> page
        self.sources: list[int] = []
        self.targets: list[int] = []
        self.out_degree: dict[int, int] = {}
        self.rank = np.zeros(0)
        self._since = 0

    def initial(self, page: int) -> float:
        self.nodes.append(page)
        return 1.0 - self.d

    def visited(self, page: int, targets: Sequence[int]) -> list[int] | None:
        source = self.discovery[page]
        self.sources.extend([source] * len(targets))
        self.targets.extend(self.discovery[t] for t in targets)
        self.out_degree[page] = len(targets)
        if targets:
            share = self.d * self.estimate[page] / len(targets)
            for target in targets:
                self.estimate[target] += share
        self._since += 1
        if self._since < self.every:
            return list(targets)
        self._since = 0
        self.recompute()
        return None

    def recompute(self) -> None:
        n = len(self.nodes)
        self.rank = pagerank_edges(n, np.asarray(self.sources, dtype=np.int64),
                                   np.asarray(self.targets, dtype=np.int64), self.d,
                                   start=self.rank, tol=1e-4)
        for index, page in enumerate(self.nodes):
            self.estimate[page] = float(self.rank[index])


ORDER_NAMES = ("breadth-first", "backlink", "pagerank", "server-first", "random")


def make_estimate_order(name: str, pages: int, seed: int = 0) -> EstimateOrder:
    """The estimate behind `name` (server-first ranks buffers breadth-first)."""
    if name in ("breadth-first", "server-first"):
        return EstimateOrder()
    if name == "backlink":
        return BacklinkOrder()
    if name == "pagerank":
        return PageRankOrder(every=max(1, pages // 200))
    if name == "random":
        return RandomOrder(seed)
    raise OrderingError(f"unknown order {name!r}: choose from {', '.join(ORDER_NAMES)}")
