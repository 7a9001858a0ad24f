"""When the pages of a changing web change: the truth at every moment, from a seed.

WebFountain (Edwards, McCurley and Tomlin 2001, sections 2-3) crawls a web whose
pages change at rates "from minutes to a year", and counts a stored copy as
obsolete once the live page changed non-trivially. This module is the clock and
the change process of such a web; `changeweb.py` turns it into pages.

- The clock: simulated time runs `day_seconds` real seconds per day from `epoch`
  (a real Unix time). Day 0 is a Monday.
- Rates: every page has a mean interval between real changes, drawn from a
  `Spread`. Cho and Garcia-Molina (cited in section 2.1): 40% of .com pages
  change daily, while over half the .edu and .gov pages did not change in four
  months; so servers are split by "domain" (server % 4: 0, 1 .com; 2 .edu; 3 .gov)
  and each domain has its own mixture of log-uniform interval ranges.
- Real changes are a Poisson process whose intensity follows working hours
  (Monday-Friday 9-17 weigh `WORK_WEIGHT` times the rest): the number of changes in
  a day is Poisson, their times of day drawn from the hourly weights.
- Trivial changes (a clock or visitor-counter line) tick on their own, hourly or
  daily, and never count as changes. A line is drawn per page, except on the
  `honest_servers` share of servers, which have none (a clock line is usually a
  site's template: such a server's Last-Modified dates its pages' content alone).
- Births and deaths: each server gains pages at `births_per_day` (per 100 pages),
  each page other than a home page dies after an exponential lifetime.

Everything is a pure function of (seed, server, page, day), cached, so the server
and a benchmark compute the same truth independently.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

WORK_WEIGHT = 5.0  # a working hour's weight against any other hour's
HORIZON_DAYS = 4000  # births are drawn this far ahead (far beyond any run)
PAST_DAYS = 365.0  # a page that never changes was made up to this long before day 0


def _hour_weights() -> np.ndarray:
    """168 weights, Monday 00:00 first: working hours weigh more."""
    weights = np.ones(168)
    for day in range(5):
        weights[day * 24 + 9:day * 24 + 17] = WORK_WEIGHT
    return weights


HOUR_WEIGHTS = _hour_weights()
DAY_WEIGHTS = HOUR_WEIGHTS.reshape(7, 24).sum(axis=1) / (HOUR_WEIGHTS.sum() / 7)  # mean 1


@dataclass(frozen=True)
class Spread:
    """Mixtures of log-uniform change intervals (in days), per domain."""

    name: str
    com: tuple[tuple[float, float, float], ...]  # (share, shortest, longest)
    edu: tuple[tuple[float, float, float], ...]  # .edu and .gov
    trivial: tuple[float, float] = (0.5, 0.2)  # share of pages with an hourly clock, a daily counter
    births_per_day: float = 0.5  # new pages per server per day, per 100 pages
    mean_life_days: float = 250.0  # pages other than home pages die after this, on average
    honest_servers: float = 0.0  # share of servers whose pages carry no clock or counter line


MINUTE, HOUR, MONTH, YEAR = 1 / 1440, 1 / 24, 30.0, 365.0
SPREADS = {
    # After Cho and Garcia-Molina: .com fast (40% daily or faster), .edu/.gov slow.
    "cho": Spread("cho",
                  com=((0.40, 10 * MINUTE, 1.0), (0.30, 1.0, MONTH), (0.20, MONTH, 120.0),
                       (0.10, 120.0, YEAR)),
                  edu=((0.10, HOUR, 1.0), (0.15, 1.0, MONTH), (0.20, MONTH, 120.0), (0.55, 120.0, YEAR))),
    # The held-out web: most pages in the middle (days to weeks), few very fast or very slow.
    "heldout": Spread("heldout",
                      com=((0.15, HOUR, 1.0), (0.60, 1.0, 20.0), (0.25, 20.0, YEAR)),
                      edu=((0.05, HOUR, 1.0), (0.55, 2.0, 40.0), (0.40, 40.0, YEAR)),
                      trivial=(0.3, 0.4), births_per_day=1.0, mean_life_days=150.0),
    # Issue 35's web at 60 s a day: a fifth never change, the rest Poisson from 20 s to an hour
    # (a third of a day to 60 days), some with only a clock or counter line changing too.
    "flat": Spread("flat", com=((0.8, 1 / 3, 60.0),), edu=((0.8, 1 / 3, 60.0),),
                   trivial=(0.3, 0.2), births_per_day=0.0, mean_life_days=math.inf),
    # A web that does not change at all.
    "static": Spread("static", com=(), edu=(), trivial=(0.0, 0.0), births_per_day=0.0,
                     mean_life_days=math.inf),
}


def mixed(name: str, never: float, timestamp_only: float, intervals: tuple[tuple[float, float, float], ...],
          day_seconds: float, honest_servers: float = 0.0) -> Spread:
    """A changing web's rate mix from a few numbers, in real seconds (issue 35's held-out webs).

    `never`: the share of pages that never change for real; `timestamp_only`: the share of all
    pages that never change but for a clock or counter line (so at most `never`; the same share
    of the changing pages has such a line too, half hourly clocks, half daily counters);
    `intervals`: (weight, shortest, longest) mean intervals between real changes in seconds,
    log-uniform within each, the weights scaled to share the other 1 - `never`. Every server
    has the same mix of rates; `honest_servers` (Spread) of them have no clock or counter lines.
    No births, no deaths (the measure's universe stays put).
    """
    if not 0 <= timestamp_only <= never <= 1:
        raise ValueError("need 0 <= timestamp_only <= never <= 1")
    total = sum(weight for weight, _, _ in intervals)
    if never < 1 and (total <= 0 or any(low <= 0 or high < low for _, low, high in intervals)):
        raise ValueError("intervals need positive weights and 0 < shortest <= longest")
    mixture = tuple(((1 - never) * weight / total, low / day_seconds, high / day_seconds)
                    for weight, low, high in intervals) if never < 1 else ()
    stamped = timestamp_only / never if never else 0.0
    return Spread(name, com=mixture, edu=mixture, trivial=(stamped / 2, stamped / 2),
                  births_per_day=0.0, mean_life_days=math.inf, honest_servers=honest_servers)


def honest_server(server: int, share: float) -> bool:
    """Whether `server` is among the `share` of servers without clock or counter lines: server s
    is when frac(s x golden ratio) < share, a low-discrepancy choice, so any number of servers
    holds close to that share of honest ones (of 3 at 1/2: servers 0 and 2), the same for every
    seed (the servers a test or benchmark picks stay put)."""
    return share > 0 and (server * 0.6180339887498949) % 1.0 < share


def spread_from(config: str | Spread | dict) -> Spread:
    """A spread from its name in SPREADS, itself, or its fields as JSON gives them back (a
    server process builds its web from JSON: tests/support/genweb_server.py)."""
    if isinstance(config, Spread):
        return config
    if isinstance(config, str):
        if config not in SPREADS:
            raise ValueError(f"unknown spread {config!r}: one of {sorted(SPREADS)}")
        return SPREADS[config]
    fields = dict(config)
    for key in ("com", "edu"):
        fields[key] = tuple(tuple(part) for part in fields[key])
    fields["trivial"] = tuple(fields["trivial"])
    return Spread(**fields)


@dataclass(frozen=True)
class Clock:
    """Real time <-> simulated days."""

    epoch: float
    day_seconds: float

    def day(self, now: float) -> float:
        return max(0.0, (now - self.epoch) / self.day_seconds)

    def real(self, day: float) -> float:
        return self.epoch + day * self.day_seconds


@dataclass(frozen=True)
class Changes:
    """The change process of one web: `seed` and `spread` decide everything."""

    seed: int
    spread: Spread

    def _rng(self, *key: int) -> np.random.Generator:
        return np.random.default_rng([self.seed & 0xFFFFFFFF, *key])

    def interval(self, server: int, page: int) -> float:
        """Mean days between two real changes of the page (inf: never changes)."""
        return _interval(self, server, page)

    def trivial_period(self, server: int, page: int) -> float:
        """Days between two ticks of the page's clock or counter line (inf: none)."""
        hourly, daily = self.spread.trivial
        if honest_server(server, self.spread.honest_servers):
            return math.inf
        u = self._rng(server, page, 2).random()
        return HOUR if u < hourly else 1.0 if u < hourly + daily else math.inf

    def trivial_version(self, server: int, page: int, day: float) -> int:
        period = self.trivial_period(server, page)
        return 0 if math.isinf(period) else int(day / period)

    def events_before(self, server: int, page: int, day: float) -> int:
        """Real changes of the page in [0, day)."""
        whole = int(day)
        done = _cumulative(self, server, page, whole)
        times = _day_events(self, server, page, whole)
        return done + int(np.searchsorted(times, day - whole, side="left"))

    def last_event(self, server: int, page: int, day: float) -> float | None:
        """The (simulated) time of the latest real change before `day`, None if none."""
        whole = int(day)
        times = _day_events(self, server, page, whole)
        k = int(np.searchsorted(times, day - whole, side="left"))
        if k:
            return whole + float(times[k - 1])
        for d in range(whole - 1, -1, -1):
            times = _day_events(self, server, page, d)
            if len(times):
                return d + float(times[-1])
        return None

    def past_change(self, server: int, page: int) -> float:
        """The (simulated, negative) time of the page's latest real change before day 0: the web
        had a past. A page changing every I days was last changed an Exp(I) time before (the age
        of a Poisson process's last event, seen at any moment); one that never changes carries
        the day it was made, uniform over the PAST_DAYS before day 0. So a static page's
        Last-Modified is old, as a real one's is, where day 0 alone would date it at the
        crawl's start."""
        interval = self.interval(server, page)
        rng = self._rng(server, page, 11)
        return -float(rng.uniform(0.0, PAST_DAYS) if math.isinf(interval) else rng.exponential(interval))

    def births(self, server: int, pages_per_server: int) -> np.ndarray:
        """Birth days of the server's new pages, in order (page pages_per_server + i)."""
        return _births(self, server, pages_per_server)

    def death(self, server: int, page: int) -> float:
        """The day the page dies (inf: it lives on). Home pages never die."""
        if page == 0 or math.isinf(self.spread.mean_life_days):
            return math.inf
        return float(self._rng(server, page, 4).exponential(self.spread.mean_life_days))


@lru_cache(maxsize=1 << 16)
def _interval(changes: Changes, server: int, page: int) -> float:
    mixture = changes.spread.com if server % 4 in (0, 1) else changes.spread.edu
    rng = changes._rng(server, page, 1)
    u, pick = rng.random(), rng.random()
    for share, low, high in mixture:
        if u < share:
            return float(math.exp(math.log(low) + pick * (math.log(high) - math.log(low))))
        u -= share
    return math.inf


@lru_cache(maxsize=1 << 18)
def _day_events(changes: Changes, server: int, page: int, day: int) -> np.ndarray:
    """Sorted times of day (0..1) of the page's real changes on `day`."""
    interval = _interval(changes, server, page)
    if math.isinf(interval):
        return np.empty(0)
    weekday = day % 7
    rng = changes._rng(server, page, 3, day)
    n = int(rng.poisson(DAY_WEIGHTS[weekday] / interval))
    hours = HOUR_WEIGHTS[weekday * 24:weekday * 24 + 24]
    picked = rng.choice(24, size=n, p=hours / hours.sum())
    return np.sort((picked + rng.random(n)) / 24)


@lru_cache(maxsize=1 << 16)
def _cumulative(changes: Changes, server: int, page: int, day: int) -> int:
    """Real changes of the page before the start of `day`."""
    if day <= 0:
        return 0
    return _cumulative(changes, server, page, day - 1) + len(_day_events(changes, server, page, day - 1))


@lru_cache(maxsize=4096)
def _births(changes: Changes, server: int, pages_per_server: int) -> np.ndarray:
    rate = changes.spread.births_per_day * pages_per_server / 100
    if rate <= 0:
        return np.empty(0)
    rng = changes._rng(server, 0, 5)
    gaps = rng.exponential(1 / rate, size=int(rate * HORIZON_DAYS) + 10)
    days = np.cumsum(gaps)
    return days[days < HORIZON_DAYS]
