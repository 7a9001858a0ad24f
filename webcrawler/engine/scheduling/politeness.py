"""Politeness that adapts: a server that answers slowly, or says it is overloaded, is asked
less often; one that recovers is asked as often as `delay` allows again.

As Heritrix's delay factor and Scrapy's AutoThrottle do, the wait after an answer follows the
time the server took: it moves halfway toward `delay_factor` times the last response time at
each answer, so one slow answer does not stall a server and a run of them slows us down. A 429
or a 503 doubles it (at least a second), since the server said we are too many. The result is
`ServerState.adaptive_delay`; the scheduler waits the largest of it, `delay` and the site's
Crawl-delay, so the adaptation never goes below either, and `max_delay` caps it. One request
in flight per server stays the scheduler's rule. With `--delay 0` (local benchmarks, no
politeness asked for) only a server's own 429 or 503 slows it down.
"""

from __future__ import annotations

from webcrawler.engine.records import ServerState
from webcrawler.settings import Settings

OVERLOADED = frozenset({429, 503})
FLOOR_ON_OVERLOAD = 1.0  # seconds: what a first 429/503 asks for when we waited nothing


class AdaptiveDelay:
    """Reads each answer's status and time taken into its server's adaptive delay."""

    def __init__(self, settings: Settings) -> None:
        self.factor = settings.delay_factor
        self.ceiling = settings.max_delay
        self.follow_time = settings.delay > 0  # --delay 0: no politeness but what servers ask

    def observe(self, server: ServerState, answer: object) -> None:
        """An answer of `server` (any kind: robots.txt, document, failure) came in."""
        if self.factor <= 0:
            return
        status = getattr(answer, "status", None)
        if status in OVERLOADED:
            wanted = max(2.0 * server.adaptive_delay, FLOOR_ON_OVERLOAD)
        elif not self.follow_time:
            wanted = server.adaptive_delay / 2.0  # back down as the server answers again
        else:
            target = self.factor * float(getattr(answer, "elapsed", 0.0) or 0.0)
            wanted = (server.adaptive_delay + target) / 2.0
        server.adaptive_delay = min(self.ceiling, wanted)
