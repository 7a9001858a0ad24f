"""The server order shared by every best-first crawl: the ready server holding the best item first.

Cho, Garcia-Molina & Page's orders (and SPHINX's priority ready queue) rank
documents, but politeness schedules servers: the Scheduler offers a server
only when it may be asked again. `BestFirstServers` is the `ServerOrder` that
reconciles the two: a `PriorityQueue` of the ready servers, each keyed by the
key of its best queued item (smaller first), re-pushed when that key
changes (lazy: the stale entry is skipped when it surfaces). A pick costs
O(log servers).

Its users: the batch orders' `PriorityFrontier` (priority_frontier.py), the
real-time search's `AnchorFrontier` (anchor_text.py) and the toolkit's ready
queue (toolkit/ready.py). Never does I/O and never looks at the clock.
"""

from __future__ import annotations

from collections.abc import Callable

from webcrawler.engine.records import ServerState
from webcrawler.engine.scheduling.sequencers import PriorityQueue

Key = tuple[float, ...]
NOTHING: Key = (float("inf"),)  # the key of a server with nothing queued


class BestFirstServers:
    """Ready servers, the one whose best item has the smallest key first."""

    def __init__(self, best_key: Callable[[ServerState], Key]) -> None:
        self.best_key = best_key  # the frontier's: the key of a server's best item now
        self.queue: PriorityQueue[ServerState] = PriorityQueue()

    def push(self, server: ServerState) -> None:
        self.queue.push(server, self.best_key(server))

    def reprioritise(self, server: ServerState) -> None:
        """`server`'s best item changed: re-key it if it is offered now."""
        if server in self.queue:
            self.push(server)

    def hold(self, server: ServerState) -> None:
        pass

    def release(self, server: ServerState) -> None:
        pass

    def has_next(self) -> bool:
        return self.queue.has_next()

    def next(self) -> ServerState:
        return self.queue.next()

    def backlog(self) -> int:
        return self.queue.backlog()
