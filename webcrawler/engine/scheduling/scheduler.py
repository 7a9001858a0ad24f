"""Which server gets the next free agent: the WebCrawler's server-first order.

Pinkerton 1994: "every time a document on a new server is found, that server
is placed on a list of servers to be visited right away. Before any other
documents are visited, a document on each of the new servers is retrieved
and indexed. When all known servers have been visited, indexing proceeds
sequentially through a list of all servers until a new one is found."

Here that is a composition of sequencers (see `sequencers`):

    ServerFirstOrder = PriorityAggregator([NewServers (FIFO),
                                           LeastRecentlyAccessed], strict=True)

wrapped in a `Scheduler`, which keeps servers polite and offers each one to
the order only when it may be asked again.

`strict` keeps second documents back while any new server still waits for
its first, even when that server is busy fetching its robots.txt. Which
document of a server comes next (breadth-first by depth) is the store's
question; this module only orders servers and keeps them polite: at most one
request in flight per server, and a delay after each answer before the next
request (`Crawl-delay` when the site asks for more).

The scheduler holds one small object per server and no documents, so a pick
costs O(log servers) whatever the size of the frontier.
"""

from __future__ import annotations

import heapq
from typing import Protocol

from webcrawler.engine.records import ServerState
from webcrawler.engine.scheduling.sequencers import FifoQueue, PriorityAggregator, PriorityQueue


class ServerOrder(Protocol):
    """The order of servers that are ready now: a sequencer the scheduler feeds.

    `push` offers a ready server; `hold` / `release` say that a server with
    work is not ready (in flight, cooling) or is again, for orders that must
    wait for it (server-first does; most don't).
    """

    def push(self, server: ServerState) -> None: ...
    def hold(self, server: ServerState) -> None: ...
    def release(self, server: ServerState) -> None: ...
    def has_next(self) -> bool: ...
    def next(self) -> ServerState: ...
    def backlog(self) -> int: ...


class NewServers(FifoQueue[ServerState]):
    """Servers not yet visited, in discovery order.

    Its backlog also counts new servers that are not ready (busy with
    robots.txt, cooling down, or with their first document in flight), so a
    strict aggregator waits for them.
    """

    def __init__(self) -> None:
        super().__init__()
        self.waiting: set[int] = set()

    def backlog(self) -> int:
        return super().backlog() + len(self.waiting)


class ServerFirstOrder(PriorityAggregator[ServerState]):
    """Pinkerton's order: new servers first (FIFO), then least recently accessed."""

    def __init__(self) -> None:
        self.new = NewServers()
        self.known: PriorityQueue[ServerState] = PriorityQueue()
        super().__init__([self.new, self.known], strict=True)

    def push(self, server: ServerState) -> None:
        if server.visited:
            self.known.push(server, server.last_access)
        else:
            self.new.waiting.discard(server.id)
            self.new.push(server)

    def hold(self, server: ServerState) -> None:
        if not server.visited:
            self.new.waiting.add(server.id)

    def release(self, server: ServerState) -> None:
        self.new.waiting.discard(server.id)

    def backlog(self) -> int:
        """Servers ready now (new servers that hold the others back are not counted)."""
        return super().backlog() - len(self.new.waiting)


class Scheduler:
    """Per-server politeness around an order of ready servers.

    The owner reports events: `add`, `work_added`, `dispatched`, `answered`,
    `defer`, `idle`; and asks `next_server(now)` for a server to give a free
    agent. At most one request is in flight per server, and after each answer
    the server waits `delay` seconds (or its larger Crawl-delay).
    """

    def __init__(self, delay: float, order: ServerOrder | None = None) -> None:
        self.delay = delay
        self.order: ServerOrder = order if order is not None else ServerFirstOrder()
        self._cooling: list[tuple[float, int, ServerState]] = []
        self._parked: set[int] = set()  # ids of servers in no structure: busy, cooling or idle
        self._cooling_ids: set[int] = set()
        self.servers: dict[int, ServerState] = {}

    # --- events -------------------------------------------------------
    def add(self, server: ServerState, now: float) -> None:
        """A server the crawl now knows (new, or loaded when resuming)."""
        self.servers[server.id] = server
        self._parked.add(server.id)
        self._make_ready(server, now)

    def work_added(self, server: ServerState, now: float) -> None:
        """Documents were queued on `server`: make it eligible if it is idle."""
        self._make_ready(server, now)

    def dispatched(self, server: ServerState) -> None:
        """A request to `server` is going out: it leaves every queue until answered."""
        server.in_flight = True
        self._parked.add(server.id)
        self._hold(server)

    def answered(self, server: ServerState, now: float, first_document_done: bool) -> None:
        """The request is answered: wait `delay`, or the larger Crawl-delay or adaptive delay,
        and never before a pause the server asked for; then the server may go again. A new
        server so paused no longer holds back the others (as a deferred one)."""
        server.in_flight = False
        if first_document_done and not server.visited:
            server.visited = True
            self._release(server)
        wait = server.wait(self.delay)
        paused = server.paused_until > now + wait
        if paused:
            self._release(server)
        server.next_allowed = max(now + wait, server.paused_until)
        self._cool(server, hold_back=not paused)

    def defer(self, server: ServerState, until: float) -> None:
        """Keep `server` out until `until` (monotonic), e.g. while its robots.txt is unavailable.

        A deferred new server no longer holds back the others.
        """
        self._parked.add(server.id)
        self._release(server)
        server.next_allowed = max(until, server.paused_until)
        self._cool(server, hold_back=False)

    def idle(self, server: ServerState) -> None:
        """`server` has nothing to do now: park it until `work_added`."""
        self._release(server)
        self._parked.add(server.id)

    # --- picking ------------------------------------------------------
    def next_server(self, now: float) -> ServerState | None:
        """The server to serve next, or None when every server with work must wait.

        The caller must follow with `dispatched` or `idle` for the server it got.
        """
        self._wake(now)
        if self.order.has_next():
            server = self.order.next()
            self._parked.add(server.id)
            return server
        return None

    def next_wakeup(self) -> float | None:
        """Monotonic time at which a cooling server becomes ready, if any."""
        return self._cooling[0][0] if self._cooling else None

    def poll_timeout(self, now: float, deadline: float, most: float = 0.25) -> float:
        """How long a crawl loop may wait for answers: until the next server wakes, at
        most `most` seconds (stop requests are seen), never past `deadline`."""
        wake = self.next_wakeup()
        timeout = most if wake is None else min(most, max(0.0, wake - now))
        return min(timeout, max(0.0, deadline - now))

    def ready(self) -> int:
        """Servers with work that could be served now."""
        return self.order.backlog()

    def cooling(self) -> list[ServerState]:
        """Servers waiting out their delay (or a robots.txt retry)."""
        return [self.servers[i] for i in self._cooling_ids]

    # --- internals ----------------------------------------------------
    def _cool(self, server: ServerState, hold_back: bool = True) -> None:
        if server.id in self._cooling_ids:
            return
        self._cooling_ids.add(server.id)
        heapq.heappush(self._cooling, (server.next_allowed, server.id, server))
        if hold_back and server.has_work():
            self._hold(server)

    def _wake(self, now: float) -> None:
        while self._cooling and self._cooling[0][0] <= now:
            _, _, server = heapq.heappop(self._cooling)
            self._cooling_ids.discard(server.id)
            if server.next_allowed > now:  # pushed back while cooling
                self._cool(server)
                continue
            self._make_ready(server, now)

    def _make_ready(self, server: ServerState, now: float) -> None:
        if server.id not in self._parked or server.in_flight or server.id in self._cooling_ids:
            return
        if not server.has_work():
            self._release(server)
            return  # stays parked until work_added
        if server.next_allowed > now:
            self._cool(server)
            return
        self._parked.discard(server.id)
        self.order.push(server)

    def _hold(self, server: ServerState) -> None:
        self.order.hold(server)

    def _release(self, server: ServerState) -> None:
        self.order.release(server)
