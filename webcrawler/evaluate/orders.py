"""What a virtual crawler knows of each queued page, and so which it visits first.

Every order gives a queued page an estimate I'(P) (higher goes first; ties
in discovery order), computed only from the pages visited so far, as in
Cho, Garcia-Molina & Page's `reorder_queue()`. The estimates are the live crawl's
(webcrawler/engine/scheduling/orders/estimates.py), so the harness measures the orders
`webcrawler index --order` crawls by:

- `breadth-first`: first discovered, first visited (estimate = -discovery number);
- `backlink`: IB'(P), links to P seen so far (`Backlinks`);
- `pagerank`: IR'(P) over the graph seen so far (`PageRankEstimate`), recomputed every
  `every` visits;
- `random`: a random number drawn when the page is discovered.

`visited(page, targets)` is told each visit and returns the pages whose
estimate changed, or None when every estimate may have changed.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from webcrawler.engine.scheduling.orders.estimates import Backlinks, PageRankEstimate
from webcrawler.errors import OrderingError


class EstimateOrder:
    """Base: a constant estimate per page (breadth-first)."""

    name = "breadth-first"

    def __init__(self) -> None:
        self.discovery: dict[int, int] = {}

    def discovered(self, page: int) -> None:
        self.discovery[page] = len(self.discovery)

    def value(self, page: int) -> float:
        """I'(P) now (higher goes first)."""
        return -float(self.discovery[page])

    def visited(self, page: int, targets: Sequence[int]) -> list[int] | None:
        return []


class RandomOrder(EstimateOrder):
    name = "random"

    def __init__(self, seed: int = 0) -> None:
        super().__init__()
        self.rng = random.Random(seed)
        self.drawn: dict[int, float] = {}

    def discovered(self, page: int) -> None:
        super().discovered(page)
        self.drawn[page] = self.rng.random()

    def value(self, page: int) -> float:
        return self.drawn[page]


class BacklinkOrder(EstimateOrder):
    """IB'(P): the number of visited pages seen linking to P."""

    name = "backlink"

    def __init__(self) -> None:
        super().__init__()
        self.backlinks = Backlinks()

    def value(self, page: int) -> float:
        return float(self.backlinks.value(page))

    def visited(self, page: int, targets: Sequence[int]) -> list[int] | None:
        return self.backlinks.linked(targets)


class PageRankOrder(EstimateOrder):
    """IR'(P) over the pages and links seen so far, recomputed every `every` visits."""

    name = "pagerank"

    def __init__(self, every: int = 10) -> None:
        super().__init__()
        self.rank = PageRankEstimate(every=every)

    def discovered(self, page: int) -> None:
        super().discovered(page)
        self.rank.seen(page)  # numbered in discovery order

    def value(self, page: int) -> float:
        return self.rank.value(page)

    def visited(self, page: int, targets: Sequence[int]) -> list[int] | None:
        return self.rank.linked(page, targets)


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
