"""The engine's shared records: what its rooms hand each other, at the bottom of the engine.

The store fills them, scheduling orders them, the loop and the pipeline pass them on; so
they live below all four, and the rooms stand in one order with no cycle (tests/test_boundaries.py):

    records  <-  interfaces  <-  store  <-  scheduling  <-  pipeline  <-  loop  <-  realtime

    FrontierEntry   a document waiting to be fetched
    NewURL          a URL found in a page (or a redirect), ready to be stored
    ServerState     what the engine knows of one server between commits
    FoundLink       a link the crawl just stored, for the orders that learn from links
    passing()       would a later try of a failure likely pass? (with its reasons and
                    statuses, which the SQL store's resume asks of the database too)

Plain data and one rule: nothing of the engine, no SQLAlchemy.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from webcrawler.protocol.messages import Reason


@dataclass(frozen=True, slots=True)
class FrontierEntry:
    """A document waiting to be fetched."""

    doc_id: int
    server_id: int
    path: str
    depth: int
    redirects: int = 0
    recrawl: bool = False  # fetched before: its answer goes to webcrawler/recrawl/
    etag: str = ""  # the validators of the stored copy, for a conditional GET
    last_modified: str = ""


@dataclass(frozen=True, slots=True)
class NewURL:
    """A URL found in a page (or a redirect), ready to be stored."""

    path: str
    depth: int
    redirects: int = 0


@dataclass(eq=False, slots=True)
class ServerState:
    """What the engine knows of one server between database commits."""

    id: int
    origin: str  # scheme://host[:port]
    visited: bool = False  # its first document has been answered
    queued: int = 0  # documents waiting in the frontier (database state 'queued')
    docs_fetched: int = 0
    docs_failed: int = 0
    docs_known: int = 0
    last_access: float = 0.0  # wall clock, for least-recently-accessed order
    next_allowed: float = 0.0  # monotonic clock: not before this
    in_flight: bool = False
    robots: Any = None  # RobotsRules, or None while unknown
    robots_expires: float = 0.0  # wall clock
    robots_retry_at: float = 0.0  # monotonic: when an unavailable robots.txt may be asked again
    crawl_delay: float = 0.0
    capped: bool = False  # its per-server document cap is reached
    recrawl_ready: int = 0  # pages due for a recrawl (incremental crawl, webcrawler/recrawl/)
    retrying: int = 0  # pages waiting to be tried again (engine/loop/retries.py)
    paused_until: float = 0.0  # monotonic: no request before (Retry-After, backoff)
    robots_tries: int = 0  # failed robots.txt requests in a row (engine/loop/retries.py)
    adaptive_delay: float = 0.0  # seconds the server's answers ask for (engine/scheduling/politeness.py)
    response_delay: float = 0.0  # its part that follows the response time
    refusal_delay: float = 0.0  # its part learned from 429s and 503s
    refusal_step: float = 0.0  # how much refusal_delay comes down per answer once it may
    calm: int = 0  # answers since the last 429 or 503
    dirty: bool = field(default=False)  # counters changed since the last commit

    def wait(self, delay: float) -> float:
        """Seconds between the end of one request to this server and the start of the next:
        the crawl's `delay`, the site's Crawl-delay or what its answers taught
        (politeness.py), whichever is longest. The one rule: the scheduler and the
        cross-process lease (leases.py) both ask it."""
        return max(delay, self.crawl_delay, self.adaptive_delay)

    def has_work(self) -> bool:
        return (self.queued > 0 and not self.capped) or self.recrawl_ready > 0 or self.retrying > 0


@dataclass(frozen=True, slots=True)
class FoundLink:
    """A link the crawl just stored: its target document and what the page said of it."""

    target_id: int
    server: ServerState
    path: str
    anchor: str
    depth: int
    new: bool  # the target was not known before this link


# An agent replaced for holding a page past its deadline (AGENT_HUNG) failed in passing too: the
# page may have met a slow moment of the agent's (a browser that stalled, a machine that was
# busy), and a page lost to one hang was never asked again. It speaks for the page, not the
# server (`whole_server`), and its tries are capped like every other's.
PAGE_PASSING_REASONS = frozenset({Reason.AGENT_HUNG})
PASSING_REASONS = frozenset({Reason.REFUSED, Reason.CONNECTION, Reason.TIMEOUT, Reason.DNS,
                             *PAGE_PASSING_REASONS})
PASSING_STATUSES = frozenset({429, 500, 502, 503, 504})
# A certificate that failed will fail again, and so will a page too slow to finish at all
# (the total deadline, not a connect or read timeout: its next try would cost as long again).
NOT_PASSING_DETAILS = ("TLS", "SSLError", "no complete answer")


def passing(reason: str, status: int | None, detail: str = "") -> bool:
    """Would a later try of this failure likely pass? (A certificate that does not verify
    will not verify later: TLS errors are connection errors that are not passing.)"""
    if reason == Reason.HTTP_ERROR:
        return status in PASSING_STATUSES
    return reason in PASSING_REASONS and not detail.startswith(NOT_PASSING_DETAILS)
