"""Sites that fail the way real servers do, for tests and bench/flaky_web.py.

`Flaky(routes, plan)` wraps a site's routes: `plan(path, n)` sees the n-th request (from 1)
of each path and returns a failure `Page` to answer instead, or None to answer normally.
The failures below are what a crawler meets on the real web: a restart (503 with
Retry-After), rate limiting (429), a crashed handler (500), a gateway (502, 504), a reset
connection and a page too slow for the crawler's read timeout. The server's own access log
(server.AccessLog) is what tests count requests in.

    unavailable(1)      503, Retry-After: 1
    too_many(1)         429, Retry-After: 1
    error(500)          500 (502, 504)
    RESET               the connection is reset, no answer
    slow(seconds)       the answer starts after `seconds`

`RateLimited(routes, interval)` is a server's rate limit as nginx's `limit_req` (no burst)
keeps it: a request that comes less than `interval` seconds after the last one it accepted
is refused with a 429, robots.txt included.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping

from webcrawler.demoweb.server import Page, Routes

Plan = Callable[[str, int], Page | None]

RESET = Page(reset=True)


def unavailable(retry_after: float | str | None = 1) -> Page:
    headers = (("Retry-After", str(retry_after)),) if retry_after is not None else ()
    return Page("busy, come back later", status=503, content_type="text/plain", headers=headers)


def too_many(retry_after: float | str | None = 1) -> Page:
    headers = (("Retry-After", str(retry_after)),) if retry_after is not None else ()
    return Page("slow down", status=429, content_type="text/plain", headers=headers)


def error(status: int = 500) -> Page:
    return Page(f"error {status}", status=status, content_type="text/plain")


def slow(seconds: float, page: Page) -> Page:
    return Page(page.body, page.status, page.content_type, page.headers, delay=seconds)


def first(times: int, failure: Page) -> Plan:
    """Fail each path's first `times` requests with `failure`."""
    return lambda path, n: failure if n <= times else None


class Flaky:
    """Routes whose answers go through a failure plan, counting requests per path."""

    def __init__(self, routes: Routes, plan: Plan) -> None:
        self.routes = routes
        self.plan = plan
        self.requests: Counter[str] = Counter()
        self._lock = threading.Lock()

    def __call__(self, path: str) -> Page | None:
        with self._lock:
            self.requests[path] += 1
            n = self.requests[path]
        failure = self.plan(path, n)
        if failure is not None:
            return failure
        if callable(self.routes):
            return self.routes(path)
        return self.routes.get(path) if isinstance(self.routes, Mapping) else None


class RateLimited:
    """Routes behind a rate limit: 429 for a request closer than `interval` seconds to the
    start of the last accepted one (`retry_after`: the header to send, None for none)."""

    def __init__(self, routes: Routes, interval: float, retry_after: float | None = None) -> None:
        self.routes = routes
        self.interval = interval
        self.refusal = too_many(retry_after)
        self.accepted = 0
        self.refused = 0
        self._last = float("-inf")
        self._lock = threading.Lock()

    def __call__(self, path: str) -> Page | None:
        with self._lock:
            now = time.monotonic()
            if now - self._last < self.interval:
                self.refused += 1
                return self.refusal
            self._last = now
            self.accepted += 1
        if callable(self.routes):
            return self.routes(path)
        return self.routes.get(path) if isinstance(self.routes, Mapping) else None
