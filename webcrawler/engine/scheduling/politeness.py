"""Politeness that learns: a server that answers slowly, or refuses us, is asked less often,
and the rate it refused is not tried again soon.

Two parts make a server's `adaptive_delay` (`ServerState.wait` is the one function that
turns it, `delay` and the site's Crawl-delay into the wait between two requests; the
scheduler and the cross-process lease both ask it):

- The response time, as Heritrix's delay factor and Scrapy's AutoThrottle follow it: at each
  answer the `response_delay` moves halfway toward `delay_factor` times the time the server
  took, so one slow answer does not stall a server and a run of them slows us down.
- Refusals, as TCP's congestion window learns a path's capacity (additive increase of the
  rate, multiplicative decrease): a 429 or a 503 says the interval we kept was too short.
  The `refusal_delay` becomes twice that interval (at least `FLOOR_ON_OVERLOAD`) and stays
  there until the server has answered `HOLD` requests without refusing one; then it comes
  down by a twentieth of itself per answer, so it takes ten more answers to reach the
  interval that drew the refusal again. A server that refuses requests closer than a fixed
  interval so refuses about one request in twenty (measured in bench/rate_limit.py). The
  earlier rule (halve the delay at the next fast answer) alternated one accepted and one
  refused request: half of a rate-limited server's answers were 429s, which is how crawlers
  get banned.

A refusal's Retry-After pauses the whole server (`paused_until`, which the scheduler never
sends before) whatever the page's fate: retries.py also waits it before the page's next try,
but a recrawl's failure or a robots.txt's is not retried there. `max_delay` caps the adaptive
delay. With `--delay 0` (local benchmarks, no politeness asked for) only a server's own 429
or 503 slows it down.
"""

from __future__ import annotations

from webcrawler.engine.records import ServerState
from webcrawler.settings import Settings

OVERLOADED = frozenset({429, 503})
FLOOR_ON_OVERLOAD = 0.25  # seconds: what a first 429/503 asks for when we waited (almost) nothing
HOLD = 10  # answers without a refusal before the learned interval may come down
DESCENT = 20  # the learned delay comes down by 1/DESCENT of its height after a refusal per answer


class AdaptiveDelay:
    """Reads each answer's status and time taken into its server's adaptive delay."""

    def __init__(self, settings: Settings) -> None:
        self.factor = settings.delay_factor
        self.ceiling = settings.max_delay
        self.delay = settings.delay
        self.follow_time = settings.delay > 0  # --delay 0: no politeness but what servers ask

    def observe(self, server: ServerState, answer: object, now: float | None = None) -> None:
        """An answer of `server` (any kind: robots.txt, document, failure) came in at `now`
        (monotonic; None: no Retry-After pause is taken)."""
        if self.factor <= 0:
            return
        status = getattr(answer, "status", None)
        if status in OVERLOADED:
            self._refused(server)
            retry_after = getattr(answer, "retry_after", None)
            if retry_after and now is not None:
                server.paused_until = max(server.paused_until, now + float(retry_after))
        else:
            if status is not None:
                self._calm(server)
            if self.follow_time:
                target = self.factor * float(getattr(answer, "elapsed", 0.0) or 0.0)
                server.response_delay = (server.response_delay + target) / 2.0
        server.adaptive_delay = min(self.ceiling, max(server.response_delay, server.refusal_delay))

    def _refused(self, server: ServerState) -> None:
        """Multiplicative increase: twice the interval the server refused."""
        drew = server.wait(self.delay)
        server.refusal_delay = min(self.ceiling, max(2.0 * drew, FLOOR_ON_OVERLOAD))
        server.refusal_step = server.refusal_delay / DESCENT
        server.calm = 0

    def _calm(self, server: ServerState) -> None:
        """Additive decrease, once the server has answered `HOLD` requests without refusing."""
        server.calm += 1
        if server.calm > HOLD and server.refusal_delay > 0:
            server.refusal_delay = max(0.0, server.refusal_delay - server.refusal_step)
