"""When is a page due again? The recrawl policies `--recrawl` offers, and their inputs.

Every policy answers `next_due(now, page)` after each fetch of a page (None: never
recrawl it). The recrawl queue of each server is ordered by that time, so a policy
decides the order in which the bandwidth (`--fetch-rate`) is spent, not how much of
it: at equal bandwidth the policies differ only in which pages they spend it on.

- none: never (today's batch crawl, still running for --hours for new pages);
- uniform: due again as soon as fetched: every known page once per cycle, oldest
  fetch first;
- adaptive: Nutch's AdaptiveFetchSchedule: the interval shrinks by DEC_RATE when the
  page changed, grows by INC_RATE when it did not, bounded by the plan's min and max;
- buckets (ours, WebFountain): the page's change bucket (buckets.py) gives its
  change interval, the plan turns a bucket into a revisit interval: by default the
  optimum of Cho and Garcia-Molina for the bandwidth at hand, which the recrawler
  recomputes from its bucket counts (allocation.py, replan.py). A page seen changed at
  every recrawl so far is probed: recrawled once after the plan's short `probe` interval
  (the fastest change interval the optimum still follows). Recrawls as far apart as the
  optimum's cannot tell a page that changes every day (worth the most recrawls) from one
  that changes every ten minutes (worth none): both change between any two; a change
  within the probe says the page is too fast to follow, no change that it is not.

`RecrawlPlan` holds the plain inputs: per-bucket revisit intervals and the recrawl
share are what the optimisation model (model_driver.py) sets.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from webcrawler.errors import SettingError
from webcrawler.recrawl.buckets import UNKNOWN, History, interval_of_bucket
from webcrawler.recrawl.changes import Change

YEAR = 365 * 86400.0
PROBES = 3  # a page is probed only while its first few recrawls all saw a change
PROBED = 1.5  # a changed recrawl this much longer than the probe does not count as one


@dataclass(frozen=True)
class RecrawlPlan:
    """The recrawl's knobs. Defaults cover change intervals from a second to a year."""

    share: float = 0.5  # weight of a server's recrawl queue against its never-crawled queue
    first_interval: float = 10.0  # seconds before a page's first recrawl (nothing known yet)
    min_interval: float = 1.0
    max_interval: float = YEAR
    revisit: tuple[float, ...] = ()  # seconds between recrawls for each bucket 0-255 (the
    #                                  model's output); empty: the bucket's change interval
    revisit_factor: float = 1.0  # ... times this
    probe: float = 0.0  # seconds to a probing recrawl of a page seen changed at every one (0: none)

    def revisit_interval(self, bucket: int) -> float:
        """Seconds from a fetch to the next recrawl of a page in `bucket`."""
        if self.revisit:
            return self.bounded(self.revisit[bucket])
        interval = interval_of_bucket(bucket)
        if bucket == UNKNOWN or interval is None:
            return self.bounded(self.first_interval)
        return self.bounded(interval * self.revisit_factor)

    def bounded(self, seconds: float) -> float:
        return min(self.max_interval, max(self.min_interval, seconds))


@dataclass(frozen=True, slots=True)
class Fetched:
    """A page just fetched: what a policy may look at."""

    change: Change | None  # None: the first fetch
    bucket: int  # after this fetch
    last_interval: float | None  # seconds the previous schedule gave it (adaptive's memory)
    history: History | None = None  # after this fetch (None: the first)


class Policy(Protocol):
    @property
    def name(self) -> str: ...

    def next_due(self, now: float, page: Fetched) -> float | None: ...


@dataclass(frozen=True)
class NoRecrawl:
    plan: RecrawlPlan
    name: str = "none"

    def next_due(self, now: float, page: Fetched) -> float | None:
        return None


@dataclass(frozen=True)
class Uniform:
    plan: RecrawlPlan
    name: str = "uniform"

    def next_due(self, now: float, page: Fetched) -> float | None:
        return now


@dataclass(frozen=True)
class Adaptive:
    """Nutch's AdaptiveFetchSchedule (its default rates, without SYNC_DELTA)."""

    plan: RecrawlPlan
    name: str = "adaptive"
    INC_RATE = 0.4
    DEC_RATE = 0.2

    def next_due(self, now: float, page: Fetched) -> float | None:
        interval = page.last_interval or self.plan.first_interval
        if page.change is Change.CHANGED:
            interval *= 1.0 - self.DEC_RATE
        elif page.change is not None:
            interval *= 1.0 + self.INC_RATE
        return now + self.plan.bounded(interval)


@dataclass
class Buckets:
    """Ours: the plan's revisit interval for the page's bucket. Not frozen: the recrawler
    installs a new plan each period (replan.py, Cho and Garcia-Molina's optimum)."""

    plan: RecrawlPlan
    name: str = "buckets"

    def next_due(self, now: float, page: Fetched) -> float | None:
        interval = self.plan.revisit_interval(page.bucket)
        if page.history is not None and needs_probe(page.history, self.plan.probe):
            interval = min(interval, self.plan.probe)
        return now + interval


def needs_probe(history: History, probe: float) -> bool:
    """A page to recrawl after `probe` seconds: every recrawl so far (at most PROBES) saw a
    change, and none of them was about as short as a probe."""
    n = history.recrawls
    shortest = history.changed_intervals()[0] if n else 0.0
    return probe > 0 and 0 < n <= PROBES and history.changes >= n and shortest > PROBED * probe


POLICIES: dict[str, Callable[[RecrawlPlan], Policy]] = {
    "none": NoRecrawl, "uniform": Uniform, "adaptive": Adaptive, "buckets": Buckets}


def make_policy(name: str, plan: RecrawlPlan) -> Policy:
    """The policy called `name`; ValueError naming the choices otherwise."""
    if name not in POLICIES:
        raise SettingError(f"unknown recrawl policy {name!r}: choose from {', '.join(POLICIES)}")
    return POLICIES[name](plan)
