"""An offline stand-in for bench/freshness.py: the recrawl's real estimation and allocation code
driven against the changing web's truth, with no servers and no clock (seconds per run).

It exists to compare variants of the buckets policy (estimators, shares) over several seeds
before the real bench, which alone decides (bench/freshness.py: real crawls, real servers).
Simplified on purpose: every day-0 page is known at the start (no link discovery), no births
or deaths, one global queue of due pages instead of one per server, perfect change detection.
Time is the bench's: `day_seconds` real seconds a simulated day, `fetch_rate` fetches a second.
Each fetch also gets the server's Last-Modified (the latest real or trivial change, as an HTTP
date: whole real seconds), which `buckets+lm` dates changes with where the crawler's trust rules
(recrawl/lastmod.py) allow; `buckets` ignores it.

    python -m bench.freshness_sim [--seeds 1994 1995 ...] [--size full|quick]
"""

from __future__ import annotations

import argparse
import heapq
import sys
from collections.abc import Callable
from dataclasses import dataclass
from email.utils import formatdate

import numpy as np

from tests.support.changes import SPREADS, Changes
from webcrawler.recrawl.buckets import UNKNOWN, History, bucket
from webcrawler.recrawl.changes import Change
from webcrawler.recrawl.lastmod import ages_after
from webcrawler.recrawl.policies import Fetched, RecrawlPlan, make_policy
from webcrawler.recrawl.queues import WeightedAggregator
from webcrawler.recrawl.replan import Replanner

EPOCH = 1_795_000_000.37  # Unix time of day 0: HTTP dates round down to its whole seconds
SIZES = {"full": (6, 50, 32.0, 4.5, 15.0), "quick": (4, 25, 30.0, 1.0, 20.0)}


@dataclass
class Page:
    """What the crawler knows of one page, and the truth it last saw."""

    server: int
    number: int
    seen: int = -1  # real changes before the last fetch (-1: never fetched)
    last: float = 0.0
    history: History = History(0, 0, 0.0)  # as the crawler's documents row keeps it
    interval: float | None = None  # the schedule's last interval (adaptive's memory)
    lastmod: str | None = None  # the Last-Modified of the last fetch
    ages: float | None = 0.0  # sum of the last change's age at changed recrawls (None: untrusted)


Estimator = Callable[[History], int]  # a page's history -> its bucket


@dataclass
class Crawl:
    """One simulated crawl: its pages, queues and measure."""

    changes: Changes
    day_seconds: float
    pages: list[Page]
    policy_name: str
    plan: RecrawlPlan
    estimator: Estimator
    fetch_rate: float
    replan_hook: Callable[[Crawl], None] | None = None
    dated: bool = False  # estimate from Last-Modified ages where trusted (lastmod.ages_after)

    def __post_init__(self) -> None:
        self.policy = make_policy(self.policy_name, self.plan)
        self.replanner = Replanner(self.plan, self.fetch_rate) if self.policy_name == "buckets" else None
        self.new = list(range(len(self.pages)))[::-1]
        self.due: list[tuple[float, int]] = []
        self.turns = WeightedAggregator((1.0 - self.plan.share, self.plan.share))
        self.fetched = self.recrawls = 0

    def events(self, page: Page, t: float) -> int:
        return self.changes.events_before(page.server, page.number, t / self.day_seconds)

    def last_modified(self, page: Page, t: float) -> float:
        """The server's Last-Modified at real second t (of the crawl's clock): the latest change of
        either kind, the real one or the clock/counter line's tick."""
        day = t / self.day_seconds
        real = self.changes.last_event(page.server, page.number, day) or 0.0
        ticks = self.changes.trivial_version(page.server, page.number, day)
        tick = ticks * self.changes.trivial_period(page.server, page.number) if ticks else 0.0
        return max(real, tick) * self.day_seconds

    def date(self, page: Page, t: float, changed: bool) -> None:
        """The crawler's own trust rules and ages (recrawl/lastmod.py) on the served date, an
        HTTP date: whole seconds of Unix time, with the crawl starting at EPOCH."""
        lastmod = formatdate(EPOCH + self.last_modified(page, t), usegmt=True)
        page.ages = ages_after(page.ages, page.lastmod, lastmod, changed, EPOCH + t, EPOCH + page.last)
        page.lastmod = lastmod

    def step(self, t: float) -> None:
        """One fetch at real second t: a new page or a due recrawl (or the soonest due one)."""
        ready = [bool(self.new), bool(self.due) and self.due[0][0] <= t]
        order = self.turns.order(ready)
        if order:
            child = order[0]
            self.turns.took(child)
        elif self.due:
            child = 1
        else:
            return
        if child == 0:
            self.fetch_new(self.new.pop(), t)
        else:
            self.recrawl(heapq.heappop(self.due)[1], t)
        self.fetched += 1
        if self.replanner is not None:
            if self.replan_hook is not None:
                self.replan_hook(self)
            plan = self.replanner.replan(t, self.fetched, self.recrawls)
            if plan is not None:
                self.policy.plan = plan  # type: ignore[attr-defined]

    def fetch_new(self, k: int, t: float) -> None:
        page = self.pages[k]
        page.seen, page.last, page.history = self.events(page, t), t, History(1, 0, 0.0)
        page.lastmod = formatdate(EPOCH + self.last_modified(page, t), usegmt=True)
        self.place(k, UNKNOWN)
        self.schedule(k, t, self.policy.next_due(t, Fetched(None, UNKNOWN, None)))

    def recrawl(self, k: int, t: float) -> None:
        self.recrawls += 1
        page = self.pages[k]
        now_events = self.events(page, t)
        changed = now_events != page.seen
        self.date(page, t, changed)
        history = page.history.after(t - page.last, changed, page.ages if self.dated else None)
        page.seen, page.last, page.history = now_events, t, history
        b = self.estimator(history)
        self.place(k, b)
        change = Change.CHANGED if changed else Change.UNMODIFIED
        self.schedule(k, t, self.policy.next_due(t, Fetched(change, b, page.interval, history)))

    def place(self, k: int, b: int) -> None:
        if self.replanner is not None:
            self.replanner.place(k, b)

    def schedule(self, k: int, t: float, due: float | None) -> None:
        if due is not None:
            self.pages[k].interval = due - t
            heapq.heappush(self.due, (due, k))

    def obsolete(self, t: float) -> float:
        return sum(p.seen < 0 or self.events(p, t) != p.seen for p in self.pages) / len(self.pages)


def run(seed: int, size: str, policy: str, estimator: Estimator = bucket, share: float = 0.5,
        hook: Callable[[Crawl], None] | None = None, dated: bool = False) -> tuple[float, float, float]:
    """(mean, second half, end) obsolete share of one simulated crawl."""
    servers, per_server, days, day_seconds, rate = SIZES[size]
    changes = Changes(seed, SPREADS["cho"])
    pages = [Page(s, p) for p in range(per_server) for s in range(servers)]
    crawl = Crawl(changes, day_seconds, pages, policy, RecrawlPlan(share=share), estimator, rate, hook, dated)
    samples: list[tuple[float, float]] = []
    step, next_sample, t = 1.0 / rate, day_seconds / 2, 0.0
    while t < days * day_seconds:
        crawl.step(t)
        t += step
        if t >= next_sample:
            samples.append((t / day_seconds, crawl.obsolete(t)))
            next_sample += day_seconds / 2
    values = np.array([o for _, o in samples])
    half = np.array([o for d, o in samples if d >= days / 2])
    return float(values.mean()), float(half.mean()), float(values[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1994, 1995, 1996, 1997])
    parser.add_argument("--size", choices=sorted(SIZES), default="full")
    args = parser.parse_args()
    variants = (("uniform", False), ("adaptive", False), ("buckets", False), ("buckets", True))
    for name, dated in variants:
        rows = np.array([run(s, args.size, name, dated=dated) for s in args.seeds])
        name += "+lm" if dated else ""
        print(f"{name:10s} mean {rows[:, 0].mean():.3f}  half {rows[:, 1].mean():.3f} "
              f"(per seed {' '.join(f'{x:.3f}' for x in rows[:, 1])})  end {rows[:, 2].mean():.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
