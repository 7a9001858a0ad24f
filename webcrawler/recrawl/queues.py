"""Each server's two queues, never-crawled and due for a recrawl (WebFountain Figure 1).

The scheduler (engine/scheduling/scheduler.py) visits the active servers round robin, politely;
this frontier answers "which document of this server next?" from two per-server
queues joined by a weighted aggregator: the never-crawled URLs (the database's
breadth-first frontier, as in the batch crawl) and the pages whose recrawl is due
(ordered by due time). The recrawl queue's weight is the plan's `share`.

Pages not due yet wait in one heap by due time; `tick` moves those that fell due
into their server's queue and tells the scheduler the server has work again.
`pull_ahead` spends bandwidth that would otherwise go unused (issue 35: the buckets policy
used 4.0 of 5 fetches a second, the model 1.3-2.0): each server with nothing to do gets the
waiting page whose fetch now gains the most expected freshness (`gain`), among the
PULL_SCAN due soonest, so that every idle server is busy again, not only the one whose page
happens to head the heap. Neither ever brings a page back within `min_revisit` seconds of its
last fetch: a small site whose pages all look due (or whose bandwidth goes unused) is not
fetched in a loop; such a page is passed over, not waited for. Nothing here does I/O but the
store's one-row reads.
"""

from __future__ import annotations

import heapq
import math
import time
from collections.abc import Callable
from typing import Protocol

from webcrawler.database.states import State
from webcrawler.engine.interfaces import RecrawlBook, ServerBook
from webcrawler.engine.records import FoundLink, FrontierEntry, ServerState
from webcrawler.engine.scheduling.frontier import Frontier
from webcrawler.engine.scheduling.sequencers import FifoQueue

RECRAWLABLE = (State.FETCHED, State.REDIRECTED)
PULL_SCAN = 256  # waiting pages (soonest due first) pull_ahead weighs at most


def gain(rate: float, since: float, until_due: float) -> float:
    """Expected fresh seconds a fetch now adds before the page's planned fetch, `until_due`
    seconds away, for a page of Poisson change `rate` fetched `since` seconds ago: it is stale
    now with probability 1 - exp(-rate since), and fresh again it stays so for
    (1 - exp(-rate until_due)) / rate of the seconds to come. Small for a page that never
    changes (nothing to gain) and for one that changes much faster than it can be visited
    (stale again at once), as in Cho and Garcia-Molina's optimum."""
    if rate <= 0:
        return 0.0
    return -math.expm1(-rate * since) * -math.expm1(-rate * max(until_due, 0.0)) / rate


class Book(RecrawlBook, ServerBook, Protocol):
    """The store as the recrawl queues ask it (either store: engine/interfaces.py)."""


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

    def __init__(self, store: Book, inner: Frontier, share: float,
                 min_revisit: float = 0.0) -> None:
        self.store = store
        self.min_revisit = min_revisit
        self._not_before: dict[int, float] = {}  # doc id -> wall clock, pages fetched this run
        self._known: dict[int, tuple[float, float]] = {}  # doc id -> (last fetch, change rate)
        self.prior_rate = 0.0  # changes a second assumed of a page whose rate is unknown
        self.inner = inner
        self.share = min(1.0, max(0.0, share))
        self._waiting: list[tuple[float, int, int]] = []  # (due, doc id, server id)
        self._due: dict[int, FifoQueue[int]] = {}
        self._turns: dict[int, WeightedAggregator] = {}
        self.recrawls = 0  # recrawl entries handed out (the rest of the fetches are new URLs)

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

    def note(self, doc_id: int, last_fetch: float, rate: float | None) -> None:
        """What pull_ahead weighs a page by: its last fetch and change rate (None: unknown)."""
        self._known[doc_id] = (last_fetch, -1.0 if rate is None else rate)

    def forget(self, doc_id: int) -> None:
        self._known.pop(doc_id, None)

    def next_wakeup(self) -> float | None:
        """Wall-clock time the next page falls due, if any."""
        return self._waiting[0][0] if self._waiting else None

    def tick(self, now: float, scheduler: Notify, mono: float) -> int:
        """Move pages that fell due (wall clock `now`) to their servers' queues."""
        moved = 0
        while self._waiting and self._waiting[0][0] <= now:
            moved += self._release(heapq.heappop(self._waiting), scheduler, mono)
        return moved

    def pull_ahead(self, count: int, scheduler: Notify, mono: float,
                   idle: Callable[[int], bool]) -> int:
        """Make due now, for at most `count` servers with nothing to do (`idle(server id)`),
        each one's waiting page whose fetch gains the most (bandwidth that would go unused)."""
        now, best = time.time(), dict[int, tuple[float, int]]()
        looked: list[tuple[float, int, int]] = []
        while self._waiting and len(looked) < PULL_SCAN:
            item = heapq.heappop(self._waiting)
            looked.append(item)
            due, doc_id, server_id = item
            if self._not_before.get(doc_id, 0.0) > now or not idle(server_id):
                continue  # fetched less than min_revisit ago, or its server is busy
            value = self._gain(doc_id, now, due)
            if server_id not in best or value > best[server_id][0]:
                best[server_id] = (value, len(looked) - 1)
        chosen = sorted(best.values(), reverse=True)[:count]
        taken = {index for _, index in chosen}
        for index, item in enumerate(looked):
            if index not in taken:
                heapq.heappush(self._waiting, item)
        return sum(self._release(looked[index], scheduler, mono) for _, index in chosen)

    def _gain(self, doc_id: int, now: float, due: float) -> float:
        last, rate = self._known.get(doc_id, (now, -1.0))
        return gain(self.prior_rate if rate < 0 else rate, now - last, due - now)

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
            row = self.store.recrawl_row(doc_id)
            if row is None or row[5] not in RECRAWLABLE or row[6] is None:
                continue  # gone, or no longer scheduled
            path, depth, redirects, etag, last_modified = row[:5]
            self.recrawls += 1
            return FrontierEntry(doc_id, server.id, path, depth, redirects, recrawl=True,
                                 etag=etag or "", last_modified=last_modified or "")
        return None
