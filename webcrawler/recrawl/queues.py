"""Each server's two queues, never-crawled and due for a recrawl (WebFountain Figure 1).

The scheduler (engine/scheduling/scheduler.py) visits the active servers round robin, politely;
this frontier answers "which document of this server next?" from two per-server
queues joined by a weighted aggregator: the never-crawled URLs (the database's
breadth-first frontier, as in the batch crawl) and the pages whose recrawl is due
(ordered by due time). The recrawl queue's weight is the plan's `share`.

Pages not due yet wait in one heap by due time; `tick` moves those that fell due
into their server's queue and tells the scheduler the server has work again.
`pull_ahead` spends bandwidth that would otherwise go unused on the pages due
soonest. Neither ever brings a page back within `min_revisit` seconds of its last fetch:
a small site whose pages all look due (or whose bandwidth goes unused) is not fetched in a
loop. Nothing here does I/O but the store's one-row reads.
"""

from __future__ import annotations

import heapq
import time
from typing import Protocol

from sqlalchemy import bindparam, select

from webcrawler.database.schema import documents
from webcrawler.database.states import State
from webcrawler.engine.records import FoundLink, ServerState
from webcrawler.engine.scheduling.frontier import Frontier
from webcrawler.engine.scheduling.sequencers import FifoQueue
from webcrawler.engine.store.prepared import Prepared
from webcrawler.engine.store.sql import CrawlStore, FrontierEntry

RECRAWLABLE = (State.FETCHED, State.REDIRECTED)


class Notify(Protocol):
    def work_added(self, server: ServerState, now: float) -> None: ...


class WeightedAggregator:
    """Stride scheduling over children that may each be empty: a child of weight w gets a
    w / sum(weights) share of the turns while both can give; an empty child's turn goes to
    the other. A weight of 0 takes only turns no other child can."""

    def __init__(self, weights: tuple[float, ...]) -> None:
        self.weights = weights
        self.passes = [0.0] * len(weights)

    def order(self, ready: list[bool]) -> list[int]:
        """Indexes of the children to try, best first."""
        return sorted((i for i, ok in enumerate(ready) if ok),
                      key=lambda i: (self.weights[i] <= 0, self.passes[i]))

    def took(self, index: int) -> None:
        weight = self.weights[index]
        self.passes[index] += 1.0 / weight if weight > 0 else 0.0
        low = min(self.passes)
        self.passes = [p - low for p in self.passes]  # keep the numbers small


class RecrawlQueues:
    """The incremental crawl's frontier: new documents and due recrawls, per server."""

    def __init__(self, store: CrawlStore, inner: Frontier, share: float,
                 min_revisit: float = 0.0) -> None:
        self.store = store
        self.min_revisit = min_revisit
        self._not_before: dict[int, float] = {}  # doc id -> wall clock, pages fetched this run
        self.inner = inner
        self.share = min(1.0, max(0.0, share))
        self._waiting: list[tuple[float, int, int]] = []  # (due, doc id, server id)
        self._due: dict[int, FifoQueue[int]] = {}
        self._turns: dict[int, WeightedAggregator] = {}
        self.recrawls = 0  # recrawl entries handed out (the rest of the fetches are new URLs)
        d = documents.c
        self._row = Prepared(store.conn, select(
            d.path, d.depth, d.redirects, d.etag, d.last_modified, d.state, d.next_due
        ).where(d.id == bindparam("p_id")))

    # --- the schedule -----------------------------------------------------
    def schedule(self, doc_id: int, server_id: int, due: float | None,
                 fetched: float | None = None) -> float | None:
        """Queue a page for `due` (None: never); one `fetched` just now waits at least
        min_revisit. Returns the due time kept."""
        if due is None:
            return None
        if fetched is not None and self.min_revisit > 0:
            self._not_before[doc_id] = fetched + self.min_revisit
            due = max(due, fetched + self.min_revisit)
        heapq.heappush(self._waiting, (due, doc_id, server_id))
        return due

    def next_wakeup(self) -> float | None:
        """Wall-clock time the next page falls due, if any."""
        return self._waiting[0][0] if self._waiting else None

    def tick(self, now: float, scheduler: Notify, mono: float) -> int:
        """Move pages that fell due (wall clock `now`) to their servers' queues."""
        moved = 0
        while self._waiting and self._waiting[0][0] <= now:
            moved += self._release(heapq.heappop(self._waiting), scheduler, mono)
        return moved

    def pull_ahead(self, count: int, scheduler: Notify, mono: float) -> int:
        """Make the `count` pages due soonest due now (bandwidth that would go unused)."""
        moved, now = 0, time.time()
        while self._waiting and moved < count:
            if self._not_before.get(self._waiting[0][1], 0.0) > now:
                break  # the soonest page was fetched less than min_revisit ago
            moved += self._release(heapq.heappop(self._waiting), scheduler, mono)
        return moved

    def due_now(self) -> int:
        return sum(queue.backlog() for queue in self._due.values())

    def waiting(self) -> int:
        return len(self._waiting)

    def _release(self, item: tuple[float, int, int], scheduler: Notify, mono: float) -> int:
        _, doc_id, server_id = item
        self._not_before.pop(doc_id, None)
        server = self.store.servers_by_id.get(server_id)
        if server is None:
            return 0
        self._due.setdefault(server_id, FifoQueue()).push(doc_id)
        server.recrawl_ready += 1
        scheduler.work_added(server, mono)
        return 1

    def set_share(self, share: float) -> None:
        """A new weight of the recrawl queue (the model's plan of a new period), for every server."""
        self.share = min(1.0, max(0.0, share))
        for turns in self._turns.values():
            turns.weights = (1.0 - self.share, self.share)

    # --- Frontier -----------------------------------------------------------
    def next_document(self, server: ServerState) -> FrontierEntry | None:
        turns = self._turns.setdefault(server.id, WeightedAggregator((1.0 - self.share, self.share)))
        due = self._due.get(server.id)
        new = server.queued > 0 and not server.capped  # --max-docs-per-server caps new pages only
        for child in turns.order([new, due is not None and due.has_next()]):
            entry = self._recrawl(server) if child else self.inner.next_document(server)
            if entry is not None:
                turns.took(child)
                return entry
            if not child:
                server.queued = 0
        return None

    def links_found(self, source: FrontierEntry | None, links: list[FoundLink]) -> None:
        self.inner.links_found(source, links)

    def _recrawl(self, server: ServerState) -> FrontierEntry | None:
        due = self._due[server.id]
        while due.has_next():
            doc_id = due.next()
            server.recrawl_ready = max(0, server.recrawl_ready - 1)
            row = self._row.one(p_id=doc_id)
            if row is None or row[5] not in RECRAWLABLE or row[6] is None:
                continue  # gone, or no longer scheduled
            path, depth, redirects, etag, last_modified = row[:5]
            self.recrawls += 1
            return FrontierEntry(doc_id, server.id, path, depth, redirects, recrawl=True,
                                 etag=etag or "", last_modified=last_modified or "")
        return None
