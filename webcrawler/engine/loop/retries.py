"""Retries that respect the server: a passing error costs a wait, not the page.

The real web fails in passing: a 503 while a server restarts, a 429 when we came too fast, a
connection reset, a timeout. Such a failure is not final: the page is asked again after a
capped exponential backoff with jitter (so servers that failed together are not asked again
together), up to `retries` more times; only the last failure is final, and every try's reason
is kept with the page (documents.tries, documents.attempts).

A server that says how long to wait (Retry-After, in seconds or as a date) is obeyed for the
whole server, not just the URL: a 429 or 503, and a server that cannot be reached at all,
pause every request to it (`ServerState.paused_until`, which the scheduler never sends
before). A wait longer than `max_retry_after` is not waited for in this crawl: the page fails
with the server's figure in its reason, the server stays paused for the whole window, and
the crawl does not wait for it (a resumed crawl asks again).

What counts as passing (engine/records.py's `passing`, which the SQL store's resume asks of
the database too): connection refused or reset, connect and read timeouts, DNS failures,
an agent that held the page past its deadline, and the statuses 429, 500, 502, 503, 504
(not a certificate that does not verify, nor a page that never finishes within the total
timeout). A resumed crawl gives such failures a new set of tries. A server that has never
answered and whose host is unknown or refuses connections is not tried again in this crawl
(`nobody_there`).
"""

from __future__ import annotations

import heapq
import json
import logging
import random
from dataclasses import dataclass, field

from webcrawler.database.states import State
from webcrawler.engine.interfaces import DocumentBook
from webcrawler.engine.records import (
    PAGE_PASSING_REASONS,
    PASSING_REASONS,
    PASSING_STATUSES,
    FrontierEntry,
    ServerState,
    passing,
)
from webcrawler.engine.scheduling.scheduler import Scheduler
from webcrawler.protocol.messages import Failure, Reason, RobotsFile
from webcrawler.settings import Settings

log = logging.getLogger(__name__)

SERVER_STATUSES = frozenset({429, 503})  # the server speaks for itself, not for one page
RETRY = "retry"  # what the crawl summary and `stats` call a try after a failure
RECOVERED = "recovered"  # a page fetched after failed tries
FINAL = "final failures"


def nobody_there(server: ServerState, reason: str, status: int | None) -> bool:
    """Is this a server that has never answered us, and whose host is unknown or refuses
    connections? Nothing listens there: a crawl gives it up at its first robots.txt request
    instead of trying it again for seconds (a resumed crawl asks again; a server that has
    answered before and refuses now is restarting, and is tried again)."""
    return status is None and reason in (Reason.REFUSED, Reason.DNS) and not server.visited


def whole_server(reason: str, status: int | None) -> bool:
    """Does this failure speak for the server (pause it all) rather than for one page?"""
    return status in SERVER_STATUSES or reason in PASSING_REASONS - PAGE_PASSING_REASONS


@dataclass(order=True)
class _Waiting:
    due: float  # monotonic
    seq: int
    entry: FrontierEntry = field(compare=False)


@dataclass
class RetryCounts:
    """What the summary, the progress line and the metrics show."""

    retries: int = 0  # tries made after a failure
    recovered: int = 0  # pages fetched after failed tries


class Retries:
    """Decides after each failure whether, and when, a page is asked again; holds the pages
    waiting, per server; remembers each page's failed tries until its last."""

    def __init__(self, settings: Settings, store: DocumentBook,
                 rng: random.Random | None = None) -> None:
        self.limit = settings.retries
        self.backoff = settings.retry_backoff
        self.cap = settings.max_retry_after
        self.store = store
        self.rng = rng or random.Random()
        self.counts = RetryCounts()
        self.robots_failures: dict[int, Failure] = {}  # server id -> why robots.txt is unreachable
        self._waiting: dict[int, list[_Waiting]] = {}  # server id -> heap
        self._tries: dict[int, list[list[object]]] = {}  # doc id -> failed tries
        self._seq = 0

    # --- the crawl asks -------------------------------------------------
    def next_due(self, server: ServerState, now: float) -> FrontierEntry | None:
        """A page of `server` whose wait is over, to be asked again now; else None."""
        heap = self._waiting.get(server.id)
        if not heap or heap[0].due > now:
            return None
        waiting = heapq.heappop(heap)
        server.retrying -= 1
        self.counts.retries += 1
        return waiting.entry

    def park(self, scheduler: Scheduler, server: ServerState) -> None:
        """`server` has nothing to do now: idle, or back when its next retry is due."""
        heap = self._waiting.get(server.id)
        if heap:
            scheduler.defer(server, heap[0].due)
        else:
            scheduler.idle(server)

    def worth_waiting(self, server: ServerState, now: float, robots_retrying: bool) -> bool:
        """Should a crawl with nothing else to do wait for `server`? Not for a pause beyond
        the cap, nor for a robots.txt that failed for good (asked again much later)."""
        if server.paused_until - now > self.cap:
            return False
        return not robots_retrying or 0 < server.robots_tries <= self.limit

    # --- answers ----------------------------------------------------------
    def failed(self, entry: FrontierEntry, server: ServerState, failure: Failure,
               now: float) -> bool:
        """A try of `entry` failed: True when it will be asked again (the crawl records
        nothing more), False when this failure is final (`final_values` says what to store)."""
        tries = self._tries.setdefault(entry.doc_id, [])
        tries.append([failure.reason, failure.status, failure.detail[:200]])
        if not passing(failure.reason, failure.status, failure.detail):
            return False
        wait = self._wait(len(tries), failure.retry_after)
        if whole_server(failure.reason, failure.status):
            server.paused_until = max(server.paused_until, now + wait)
        if len(tries) > self.limit or wait > self.cap:
            if wait > self.cap:
                tries[-1][2] = f"{tries[-1][2]}; asked to wait {wait:.0f} s, more than " \
                               f"max_retry_after {self.cap:g} s"
            return False
        self._seq += 1
        heapq.heappush(self._waiting.setdefault(server.id, []),
                       _Waiting(now + wait, self._seq, entry))
        server.retrying += 1
        self.store.annotate(entry.doc_id, state=State.RETRYING, reason=failure.reason,
                            status=failure.status, detail=failure.detail[:2000], tries=len(tries),
                            attempts=json.dumps(tries))
        log.info("%s%s: %s, try %d of %d again in %.1f s", server.origin, entry.path,
                 failure.detail or failure.reason, len(tries) + 1, self.limit + 1, wait)
        return True

    def final_values(self, entry: FrontierEntry) -> dict[str, object]:
        """What to store with a final failure: the tries and their reasons, when there were
        more than one or the one was passing (no retries allowed, or a wait beyond the cap)."""
        tries = self._tries.pop(entry.doc_id, [])
        if len(tries) > 1 or (tries and passing(str(tries[0][0]), tries[0][1])):  # type: ignore[arg-type]
            return {"tries": len(tries), "attempts": json.dumps(tries)}
        return {}

    def fetched(self, entry: FrontierEntry) -> None:
        """`entry` was retrieved: when after failed tries, a recovery, stored with them."""
        tries = self._tries.pop(entry.doc_id, None)
        if not tries:
            return
        self.counts.recovered += 1
        self.store.annotate(entry.doc_id, tries=len(tries) + 1, attempts=json.dumps(tries))

    def robots_answered(self, server: ServerState, answer: object, now: float) -> None:
        """robots.txt answered: after a passing failure, ask again soon (the server's pages
        wait, since an unavailable robots.txt disallows all); after `retries` such failures,
        robots_txt.py's longer `robots_retry` stands."""
        status = answer.status if isinstance(answer, RobotsFile) else None
        reason = answer.reason if isinstance(answer, RobotsFile) else Reason.AGENT_DIED
        failed = status is None or status in PASSING_STATUSES
        detail = getattr(answer, "detail", "")
        if failed:
            self.robots_failures[server.id] = Failure(
                0, server.origin + "/robots.txt", reason if status is None else Reason.HTTP_ERROR,
                detail or (f"HTTP {status}" if status else reason), status)
        else:
            self.robots_failures.pop(server.id, None)
        if not failed or not passing(reason if status is None else Reason.HTTP_ERROR, status,
                                     detail) or nobody_there(server, reason, status):
            server.robots_tries = 0
            return
        server.robots_tries += 1
        wait = self._wait(server.robots_tries, getattr(answer, "retry_after", None))
        server.paused_until = max(server.paused_until, now + wait)
        if server.robots_tries <= self.limit and wait <= self.cap:
            server.robots_retry_at = now + wait

    # --- internals --------------------------------------------------------
    def _wait(self, tries: int, retry_after: float | None) -> float:
        """Seconds before try `tries` + 1: the backoff (doubling, jittered, capped), or the
        server's Retry-After when longer (never shortened by jitter)."""
        backoff = min(self.cap, self.backoff * 2 ** (tries - 1)) * self.rng.uniform(0.5, 1.0)
        return max(backoff, retry_after or 0.0)
