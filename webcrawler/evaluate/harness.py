"""Run the virtual crawlers over a stored crawl and measure them (PCS, PST, PBC)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from webcrawler.errors import OrderingError
from webcrawler.evaluate import measures as m
from webcrawler.evaluate.virtual import VirtualCrawler, hot_queue_for, reachable
from webcrawler.importance.graph import CrawlGraph
from webcrawler.importance.metrics import Importance

PCS_FRACTIONS = tuple(i / 100 for i in range(1, 101))
PBC_FRACTIONS = (0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
DEFAULT_ORDERS = ("breadth-first", "backlink", "pagerank", "server-first", "random")


@dataclass
class Evaluation:
    spec: str
    threshold: float
    total: int  # T: pages reachable from the start
    hot: int  # H
    hot_query: str
    seconds: float = 0.0
    fractions: dict[str, list[float]] = field(default_factory=dict)
    curves: dict[str, dict[str, list[float]]] = field(default_factory=dict)  # measure -> crawler -> %

    def describe(self) -> str:
        hot = f"; hot queue for {self.hot_query!r}" if self.hot_query else ""
        return f"G = {self.threshold:g}: {self.hot} hot of T = {self.total} pages{hot}"

    def value_at(self, measure: str, crawler: str, fraction: float) -> float:
        xs = self.fractions[measure]
        i = min(range(len(xs)), key=lambda j: abs(xs[j] - fraction))
        return self.curves[measure][crawler][i]


def evaluate(graph: CrawlGraph, importance: Importance, start: Sequence[int], *,
             threshold: float | None = None, orders: Sequence[str] = DEFAULT_ORDERS,
             seed: int = 0) -> Evaluation:
    """Crawl `graph` from `start` in each order; PCS and PST over the crawl, PBC over buffer sizes."""
    began = time.perf_counter()
    pages = reachable(graph, start)
    values = importance.values
    if threshold is not None:
        g = threshold
    elif importance.query:  # on the topic: any positive similarity
        g = min((values[p] for p in pages if values[p] > 0), default=1.0)
    else:
        g = m.default_threshold(values, pages)
    hot = m.hot_pages(values, g, pages)
    if not hot:
        raise OrderingError(f"no page has importance >= {g:g}: lower --threshold")
    total = len(pages)
    # Restrict importance to the reachable pages: unreachable ones rank last.
    local = [values[p] if p in pages else float("-inf") for p in range(len(graph))]
    ks = m.counts_at(PCS_FRACTIONS, total)
    capacities = sorted(set(m.counts_at(PBC_FRACTIONS, total)))
    result = Evaluation(importance.spec, g, total, len(hot), importance.query)
    result.fractions = {"pst": [k / total for k in ks], "pcs": [k / total for k in ks],
                        "pbc": [b / total for b in capacities]}
    result.curves = {"pst": {}, "pcs": {}, "pbc": {}}
    for name in orders:
        queue = hot_queue_for(importance.query, lambda p: values[p] > 0) if importance.query else None
        crawl = VirtualCrawler(graph, name, start, hot=queue, buffers=capacities, seed=seed).run()
        result.curves["pst"][name] = m.pst(crawl.visits, hot, ks)
        result.curves["pcs"][name] = m.pcs(crawl.visits, local, ks)
        result.curves["pbc"][name] = [m.pbc(crawl.buffers[b], hot, b) for b in capacities]
    result.curves["pst"]["ideal"] = m.ideal_pst(ks, len(hot))
    result.curves["pst"]["random (expected)"] = m.random_pst(ks, total)
    result.curves["pcs"]["ideal"] = m.ideal_pcs(ks)
    result.curves["pcs"]["random (expected)"] = m.random_pcs(ks, total)
    result.curves["pbc"]["ideal"] = m.ideal_pbc(capacities, len(hot))
    result.curves["pbc"]["random (expected)"] = m.random_pbc(capacities, len(hot), total)
    result.seconds = time.perf_counter() - began
    return result
