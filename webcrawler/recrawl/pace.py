"""`--fetch-rate N`: at most N requests a second over all servers, the crawl's bandwidth.

Policies are compared at equal bandwidth (WebFountain section 4: the crawler's
resources are fixed, the model divides them), so the cap must hold over the long
run without bursts: request k may go at start + k / N at the earliest. A loop that
wakes late may catch up for at most CATCH_UP seconds' worth, no more.
"""

from __future__ import annotations

CATCH_UP = 0.25  # seconds of missed slots a late loop may still use


class FetchPace:
    """Slots one 1/N apart in monotonic time; N <= 0 means no cap."""

    def __init__(self, per_second: float) -> None:
        self.interval = 1.0 / per_second if per_second > 0 else 0.0
        self._next = 0.0
        self.spent = 0

    def ready(self, now: float) -> bool:
        return self.interval == 0.0 or now >= self._next

    def spend(self, now: float) -> None:
        self.spent += 1
        if self.interval:
            self._next = max(self._next, now - CATCH_UP) + self.interval

    def next_slot(self) -> float | None:
        return self._next if self.interval else None
