"""The ready queue of a personal crawl: links approved by `should_visit`, not yet retrieved.

SPHINX section 2: "breadth-first and depth-first traversal are simulated by
different policies on the ready queue: FIFO for breadth-first, LIFO for
depth-first ... the ready queue is actually a priority queue, so shouldVisit
can define an arbitrary traversal strategy by attaching priority values".

Politeness needs the queue split by server (one request in flight per server,
a delay between two), so each server keeps a heap of its links under the
order's key, and the engine's `BestFirstServers` (engine/scheduling/orders/best_first.py,
the server order of the batch and real-time orders too) offers the ready server
whose best link is best overall. On one server the
order is exactly FIFO / LIFO / highest priority first; across servers it is
as close as politeness allows.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable

from webcrawler.engine.records import ServerState
from webcrawler.engine.scheduling.orders.best_first import NOTHING, BestFirstServers, Key
from webcrawler.errors import ToolkitError
from webcrawler.toolkit.model import Link

ORDERS: dict[str, Callable[[Link, int], Key]] = {
    "bfs": lambda link, seq: (float(seq),),
    "dfs": lambda link, seq: (float(-seq),),
    "priority": lambda link, seq: (-link.priority, float(seq)),
}


class ReadyLinks:
    """Per-server heaps of ready links, and the order of servers (`servers`) to match."""

    def __init__(self, order: str) -> None:
        if order not in ORDERS:
            raise ToolkitError(f"unknown order {order!r}: choose from {', '.join(ORDERS)}")
        self._key = ORDERS[order]
        self._counter = itertools.count()
        self._heaps: dict[int, list[tuple[Key, int, int, Link]]] = {}
        self.servers = BestFirstServers(self.best_key)

    def push(self, server: ServerState, doc_id: int, link: Link) -> None:
        """Queue `link`, stored in the crawl's store as document `doc_id` (the store counts
        the server's queued documents)."""
        seq = next(self._counter)
        heap = self._heaps.setdefault(server.id, [])
        before = heap[0][0] if heap else NOTHING
        heapq.heappush(heap, (self._key(link, seq), seq, doc_id, link))
        if heap[0][0] < before:
            self.servers.reprioritise(server)

    def pop(self, server: ServerState) -> tuple[int, Link] | None:
        """The best ready link of `server` with its document id, or None when it has none."""
        heap = self._heaps.get(server.id)
        if not heap:
            return None
        _, _, doc_id, link = heapq.heappop(heap)
        return doc_id, link

    def best_key(self, server: ServerState) -> Key:
        heap = self._heaps.get(server.id)
        return heap[0][0] if heap else NOTHING

    def __len__(self) -> int:
        return sum(len(heap) for heap in self._heaps.values())
