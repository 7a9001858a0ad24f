"""Freshness at a fixed bandwidth, against the known-rate optimum (issue 35).

A fast simulator drives the product's own recrawl code (webcrawler/recrawl/: the policies,
the change-rate estimate and buckets, the Cho optimum over buckets with its table scaled to
the bandwidth, `queues.gain` for the bandwidth no plan asks for) against the changing web's
truth (tests/support/changes.py), with no servers and no clock: every 1 / fetch_rate seconds
one page is fetched (the crawl spends its bandwidth, as it now does), the initial crawl first,
then the page due soonest if it is due, else the page whose fetch gains most among the
PULL_SCAN due soonest (as `RecrawlQueues.pull_ahead`). Change detection is perfect (the real
crawl's shingles see every real change of this web: bench/freshness.py).

The measure is time-averaged freshness: the share of pages whose held version is the live one,
sampled every simulated second and averaged over the run's second half. Beside every policy:
the known-rate optimum at the same bandwidth, Cho and Garcia-Molina's fixed-interval allocation
(allocation.allocate) over the pages' true mean change rates, simulated on the same truth with
the same loop ("optimum") and as its Poisson expectation, mean F(l_i, f_i) ("optimum, expected").

Evidence (issue 35): each server has a sitemap whose changefreq is honest (the page's true one,
in the web's days), lying (drawn at random) or absent ("honest", "lying", "none"); "buckets"
pools the recrawls by (server, changefreq) into priors (recrawl/priors.py) and reads
Last-Modified; "buckets-noprior" reads Last-Modified only, "buckets-nolm" neither;
"buckets-true" puts every page in its true bucket (perfect estimation, the same allocation),
which bounds what better estimation can buy; "buckets-static" only the pages that never change
(known as such from their first fetch, every other page estimated): how much of that bound is
telling a page that never changes from a slow one, which a few unchanged recrawls cannot.

A second table runs at a bandwidth too small for the fastest pages (LOW: 1 fetch a second,
1,200 s), where the optimum gives some pages up: the share of the second half's fetches spent
on the pages it leaves, in all and after a page's second recrawl (once its rate is known).

The web has a past (`Web.past`, tests/support/changes.py's `Changes.past_change`): a page not
changed since the web's day 0 answers with the Last-Modified of its latest change before it, an
exponential time of its own mean interval earlier, or for a page that never changes the day it
was made, up to a year (simulated) before. Until 2026-11-29 such a page was dated at the crawl's
start, which no real static page is and which hid the crawler's best evidence of a static page
(`--no-past` keeps that web). The change process, the freshness measure and the optimum are
the same either way; only the Last-Modified that every policy is served differs.

Not simulated: `--plan auto` (the model needs Ipopt and the crawl's database; the real crawls
below run it), servers' politeness, new and dying pages (the "flat" web has none).

`--web heldout-small` (or heldout-large) simulates bench.freshness_crawls' held-out web instead
(bench/freshness_real.WEBS: its servers, pages, rate mix and --fetch-rate; no sitemaps, as its
servers serve none): the simulator's twin of the real crawls there; `--publish` writes its
figures to freshness_optimum_<web>.json, beside the flat web's.

    python -m bench.freshness_optimum [--web flat] [--seeds 7 8 9 10 11] [--seconds 600] [--publish]
"""

from __future__ import annotations

import argparse
import heapq
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from email.utils import formatdate
from typing import Any

import numpy as np

from bench.common import RESULTS, ROOT, publish, table
from bench.freshness_measure import expected_optimum, mean_sd, true_rate
from bench.freshness_real import WEBS, WebSpec
from tests.support.changes import Changes, Spread, spread_from
from webcrawler.recrawl.allocation import allocate
from webcrawler.recrawl.buckets import (
    SLOWEST,
    UNKNOWN,
    History,
    bucket,
    bucket_of_interval,
    interval_of_bucket,
)
from webcrawler.recrawl.changes import Change
from webcrawler.recrawl.lastmod import ServerDates, date_test
from webcrawler.recrawl.policies import Buckets, Fetched, RecrawlPlan, make_policy
from webcrawler.recrawl.priors import CHANGEFREQS, PRIOR_WEIGHT, Evidence
from webcrawler.recrawl.queues import PULL_SCAN, gain
from webcrawler.recrawl.recrawler import _Before, _history_after
from webcrawler.recrawl.replan import Replanner

POLICIES = ("uniform", "adaptive", "buckets-nolm", "buckets-noprior", "buckets", "buckets-static",
            "buckets-true", "optimum")
LOW = {"fetch_rate": 1.0, "seconds": 1200.0}  # the low-bandwidth table's web (module docstring)
LOW_POLICIES = ("uniform", "buckets", "buckets-true", "optimum")
EPOCH = 1_795_000_000.37  # Unix time of the crawl's start: HTTP dates round down to whole seconds
REAL = ROOT / "bench" / "data" / "freshness_optimum_real.json"  # the real crawls (bench/freshness_real.py)


@dataclass(frozen=True)
class Web:
    """The simulated web and crawl: issue 35's "flat" web at its --fetch-rate."""

    servers: int = 3
    pages: int = 150  # per server
    day_seconds: float = 60.0
    fetch_rate: float = 5.0
    seconds: float = 600.0
    spread: str | Spread = "flat"
    prehistory: float = 0.0  # seconds the web has existed (changing) when the crawl starts
    sitemaps: tuple[str, ...] = ("honest", "lying", "none")  # each server's sitemap changefreq
    prior_weight: float = PRIOR_WEIGHT
    past: bool = True  # Last-Modified dates a page unchanged since day 0 by its past (Changes.past_change)
    sizes: tuple[int, ...] = ()  # pages per server when they differ (then `servers`, `pages` unused)
    vouch: bool = True  # a server's dates trusted once they proved right (lastmod.ServerDates)


def layout(web: Web) -> list[tuple[int, int]]:
    """The simulator's pages as (server, page), interleaved across servers (page 0 of every
    server, then page 1, ...), which is the order of the first pass; `web.sizes` gives servers
    of uneven sizes (bench/freshness_grid.py), a smaller server simply running out first."""
    sizes = web.sizes or (web.pages,) * web.servers
    return [(s, p) for p in range(max(sizes)) for s, size in enumerate(sizes) if p < size]


@dataclass
class Page:
    server: int
    number: int
    rate: float  # true mean real changes a second (0: never)
    seen: int = -1  # real changes before the last fetch (-1: never fetched)
    last: float = 0.0
    history: History = field(default_factory=lambda: History(0, 0, 0.0))
    interval: float | None = None
    rate_estimate: float | None = None  # the bucket's rate (None: unknown)
    first: float = 0.0  # the first fetch
    lastmod: str | None = None  # the last answer's Last-Modified
    ages: float | None = 0.0  # trusted sum of ages (lastmod.py; None: untrusted)
    freq: str = ""  # its sitemap's changefreq ("": none listed)


def sitemap_changefreq(web: Web, changes: Changes, server: int, page: int) -> str:
    """The changefreq the page's sitemap lists: the true one in the web's days ("honest"), one
    drawn at random ("lying"), or none."""
    kind = web.sitemaps[server % len(web.sitemaps)]
    if kind == "none":
        return ""
    if kind == "lying":
        return CHANGEFREQS[int(np.random.default_rng([changes.seed, server, page, 9]).integers(2, 7))]
    days = changes.interval(server, page)
    return next((word for word, limit in (("hourly", 1 / 24), ("daily", 1.0), ("weekly", 7.0),
                                          ("monthly", 31.0)) if days <= limit),
                "never" if np.isinf(days) else "yearly")


def web_of(spec: WebSpec, **more: Any) -> Web:
    """The simulated twin of a real crawl's web (bench/freshness_real.WEBS): the tuning web
    "flat" with its sitemaps, a held-out one without (its servers serve none)."""
    if spec.name == "flat":
        return Web(**more)
    return Web(servers=spec.servers, pages=spec.pages, day_seconds=spec.day_seconds,
               fetch_rate=spec.fetch_rate, spread=spec.spread, sitemaps=("none",), **more)


def seed_rates(web: Web, seed: int) -> np.ndarray:
    """The true change rates of seed `seed`'s web, pages in the simulator's order."""
    changes = Changes(seed, spread_from(web.spread))
    return np.array([true_rate(changes.interval(s, p), web.day_seconds) for s, p in layout(web)])


class Sim:
    """One crawl of one policy over one seed's web."""

    def __init__(self, web: Web, seed: int, policy: str) -> None:
        self.web, self.name = web, policy
        self.changes = Changes(seed, spread_from(web.spread))
        self.pages = [Page(s, p, true_rate(self.changes.interval(s, p), web.day_seconds),
                           freq=sitemap_changefreq(web, self.changes, s, p))
                      for s, p in layout(web)]
        self.evidence = Evidence(web.prior_weight if policy in ("buckets", "buckets-static") else 0.0)
        self.dates = ServerDates()
        self.plan = RecrawlPlan()
        self.policy = make_policy("uniform" if policy == "optimum" else policy.split("-")[0], self.plan)
        self.replanner = Replanner(self.plan, web.fetch_rate) if policy.startswith("buckets") else None
        rates = np.array([p.rate for p in self.pages])
        self.optimum = allocate(rates, np.ones(len(rates)), web.fetch_rate)
        self.new = list(range(len(self.pages)))[::-1]
        self.due: list[tuple[float, int]] = []
        self.fetches = self.recrawls = 0
        self.spent = {"never": 0, "too fast": 0, "too fast, known": 0, "all": 0}  # second half's

    def events(self, page: Page, t: float) -> int:
        return self.changes.events_before(page.server, page.number, self.day(t))

    def day(self, t: float) -> float:
        return (t + self.web.prehistory) / self.web.day_seconds

    def last_modified(self, page: Page, t: float) -> str:
        """The server's Last-Modified at crawl second t: the latest change of either kind, the
        real one or the clock/counter line's tick (tests/support/changeweb.py), as an HTTP date."""
        day = self.day(t)
        real = self.changes.last_event(page.server, page.number, day)
        if real is None:
            real = self.changes.past_change(page.server, page.number) if self.web.past else 0.0
        ticks = self.changes.trivial_version(page.server, page.number, day)
        period = self.changes.trivial_period(page.server, page.number)  # inf: no such line
        tick = ticks * period if ticks else 0.0 if period < float("inf") else real
        return formatdate(EPOCH + max(real, tick) * self.web.day_seconds - self.web.prehistory,
                          usegmt=True)

    def step(self, t: float) -> None:
        if self.new:
            k = self.new.pop()
        elif self.due and self.due[0][0] <= t:
            k = heapq.heappop(self.due)[1]
        else:
            k = self.pull(t)
            if k is None:
                return
        self.fetch(k, t)
        if self.replanner is not None:
            plan = self.replanner.replan(t, self.fetches, self.recrawls)
            if plan is not None:
                assert isinstance(self.policy, Buckets)
                self.policy.plan = plan

    def pull(self, t: float) -> int | None:
        """The waiting page of most gain among the PULL_SCAN due soonest (RecrawlQueues'
        pull_ahead on one server); the optimum takes the soonest (its intervals are its plan)."""
        if not self.due:
            return None
        if self.name == "optimum":
            return heapq.heappop(self.due)[1]
        looked = [heapq.heappop(self.due) for _ in range(min(PULL_SCAN, len(self.due)))]
        prior = 1.0 / self.plan.first_interval

        def value(item: tuple[float, int]) -> float:
            page = self.pages[item[1]]
            rate = prior if page.rate_estimate is None else page.rate_estimate
            return gain(rate, t - page.last, item[0] - t)

        best = max(range(len(looked)), key=lambda i: value(looked[i]))
        for i, item in enumerate(looked):
            if i != best:
                heapq.heappush(self.due, item)
        return looked[best][1]

    def fetch(self, k: int, t: float) -> None:
        page, now_events = self.pages[k], None
        now_events = self.events(page, t)
        self.fetches += 1
        if t >= self.web.seconds / 2:
            self.spent["all"] += 1
            self.spent["never"] += page.rate == 0
            left = bool(page.rate > 0 and self.optimum[k] == 0)
            self.spent["too fast"] += left
            self.spent["too fast, known"] += left and page.history.recrawls >= 2
        lastmod = self.last_modified(page, t)
        if page.seen < 0:
            history = History(1, 0, 0.0, prior=self.evidence.prior(page.server, page.freq))
            page.seen, page.last, page.history, page.first = now_events, t, history, t
            page.lastmod = lastmod
            b = self.bucket(page, history)
            page.rate_estimate = None if b == UNKNOWN else 1.0 / (interval_of_bucket(b) or 1.0)
            self.place(k, b)
            return self.schedule(k, t, Fetched(None, b, None, history))
        self.recrawls += 1
        changed = now_events != page.seen
        h = page.history  # the product's own history update (recrawler._history_after)
        before = _Before("fetched", None, None, h.fetches, h.changes, 0, 0, 0, EPOCH + page.first,
                         EPOCH + page.last, None, h.changed_span, h.shortest_change, page.lastmod,
                         page.ages)
        self.evidence.add(page.server, page.freq, t - page.last, changed)
        after = _history_after(before, changed, EPOCH + t, lastmod)
        self.dates.add(page.server, date_test(page.ages, after.change_ages, changed, lastmod))
        page.history = replace(after, prior=self.evidence.prior(page.server, page.freq),
                               dates_vouched=self.web.vouch and self.dates.vouched(page.server))
        page.ages, page.lastmod = page.history.change_ages, lastmod
        if self.name == "buckets-nolm":  # no Last-Modified: the history of the fetches alone
            page.history = replace(h, prior=None).after(t - page.last, changed, None)
        page.first = t - page.history.span
        page.seen, page.last = now_events, t
        b = self.bucket(page, page.history)
        interval = interval_of_bucket(b)
        page.rate_estimate = None if interval is None else 1.0 / interval
        self.place(k, b)
        self.schedule(k, t, Fetched(Change.CHANGED if changed else Change.UNMODIFIED, b, page.interval,
                                    page.history))

    def bucket(self, page: Page, history: History) -> int:
        """The page's bucket: estimated from its history, or its true one ("buckets-true": what
        perfect estimation would give, with the same allocation)."""
        if self.name == "buckets-static" and page.rate == 0:
            return SLOWEST
        if self.name != "buckets-true":
            return bucket(history)
        return bucket_of_interval(1.0 / page.rate) if page.rate > 0 else SLOWEST

    def place(self, k: int, b: int) -> None:
        if self.replanner is not None:
            self.replanner.place(k, b)

    def schedule(self, k: int, t: float, fetched: Fetched) -> None:
        if self.name == "optimum":
            f = self.optimum[k]
            due = t + 1.0 / f if f > 0 else None
        else:
            due = self.policy.next_due(t, fetched)
        if due is not None:
            self.pages[k].interval = due - t
            heapq.heappush(self.due, (due, k))

    def fresh(self, t: float) -> float:
        return sum(p.seen == self.events(p, t) for p in self.pages) / len(self.pages)


def simulate(web: Web, seed: int, policy: str,
             make: Callable[[Web, int, str], Sim] | None = None) -> dict[str, float]:
    """One simulated crawl: time-averaged freshness over the second half, fetches a second,
    and the second half's fetches spent on pages that never change / that the optimum leaves.
    `make`: another simulator (bench/freshness_model_sim.py's, with the model in it)."""
    sim = (make or Sim)(web, seed, policy)
    step, t, samples, next_sample = 1.0 / web.fetch_rate, 0.0, [], web.seconds / 2
    while t < web.seconds:
        sim.step(t)
        t += step
        if t >= next_sample:
            samples.append(sim.fresh(t))
            next_sample += 1.0
    spent = sim.spent
    return {"fresh": float(np.mean(samples)), "fetches_per_second": sim.fetches / web.seconds,
            "never_share": spent["never"] / max(1, spent["all"]),
            "too_fast_share": spent["too fast"] / max(1, spent["all"]),
            "too_fast_known_share": spent["too fast, known"] / max(1, spent["all"])}


def run(web: Web, seeds: list[int], policies: tuple[str, ...] = POLICIES) -> dict[str, object]:
    """Every policy over every seed; the per-seed figures and their mean and spread."""
    rows: dict[str, list[dict[str, float]]] = {p: [simulate(web, s, p) for s in seeds] for p in policies}
    rows["optimum, expected"] = [{"fresh": expected_optimum(seed_rates(web, s), web.fetch_rate)}
                                  for s in seeds]
    return {"web": {**web.__dict__, "spread": spread_from(web.spread).name}, "seeds": seeds, "runs": rows}


def _mean(figures: list[dict[str, float]], key: str, form: str) -> str:
    return form.format(np.mean([r[key] for r in figures])) if key in figures[0] else ""


def policy_table(result: dict[str, object]) -> str:
    """One run's table: every policy's fresh share (mean, spread, per seed), its gap to the
    optimum, fetches a second and where the second half's fetches went."""
    runs: dict[str, list[dict[str, float]]] = result["runs"]  # type: ignore[assignment]
    optimum = float(np.mean([r["fresh"] for r in runs["optimum"]]))
    rows = []
    for policy, figures in runs.items():
        fresh = [r["fresh"] for r in figures]
        rows.append([policy, mean_sd(fresh), " ".join(f"{x:.3f}" for x in fresh),
                     f"{optimum - float(np.mean(fresh)):+.3f}" if policy != "optimum" else "",
                     _mean(figures, "fetches_per_second", "{:.2f}"), _mean(figures, "never_share", "{:.1%}"),
                     _mean(figures, "too_fast_share", "{:.1%}"),
                     _mean(figures, "too_fast_known_share", "{:.1%}")])
    web = result["web"]
    return "\n".join([
        f"Simulated: the \"{web['spread']}\" web, {web['servers']} servers x {web['pages']} pages, "
        f"days of {web['day_seconds']:g} s, --fetch-rate {web['fetch_rate']:g}, {web['seconds']:g} s, "
        f"seeds {' '.join(map(str, result['seeds']))}; fresh share averaged over the second half; "
        + ("pages unchanged since day 0 dated by their past (a static page's Last-Modified is old)."
           if web.get("past") else "pages unchanged since day 0 dated at the crawl's start."),
        "", table(["policy", "fresh (mean ± sd)", "per seed", "below the optimum", "fetches/s",
                   "second half's fetches to pages that never change", "... that the optimum leaves",
                   "... of them after the page's second recrawl"], rows)])


def report(result: dict[str, object], real: dict | None = None, low: dict[str, object] | None = None
           ) -> tuple[str, dict[str, object]]:
    """The Markdown body and the summary (headline, goal, met)."""
    runs: dict[str, list[dict[str, float]]] = result["runs"]  # type: ignore[assignment]
    best = {p: float(np.mean([r["fresh"] for r in runs[p]])) for p in runs}
    optimum = best["optimum"]
    text = [policy_table(result)]
    if low:
        text += ["", "At a bandwidth too small for the fastest pages (the optimum gives some up):",
                 "", policy_table(low)]
    if real:
        text += ["", real["note"], "", table(
            ["crawl", "fresh, second half", "fetches/s (second half)", "below the optimum",
             "engine ms a request"],
            [[r["crawl"], f"{r['fresh']:.3f}", f"{r['rate']:.2f}", f"{real['optimum'] - r['fresh']:+.3f}",
              f"{r['engine_ms']:.1f}"] for r in real["crawls"]])]
    order = best["buckets"] >= best["uniform"] + 0.03  # the model: bench/freshness_model_sim.py
    near = optimum - max(best[p] for p in ("uniform", "adaptive", "buckets") if p in best) <= 0.02
    headline = (f"simulated fresh share: buckets {best['buckets']:.3f}, uniform {best['uniform']:.3f}; "
                f"optimum {optimum:.3f}")
    goal = "model >= buckets >= uniform + 0.03; best within 0.02 of the known-rate optimum"
    return "\n".join(text), {"headline": headline, "goal": goal, "met": bool(order and near)}


def _result_name(web: str) -> str:
    """Each simulated web's figures in a file of their own (the flat web's keeps its name)."""
    return "freshness_optimum.json" if web == "flat" else f"freshness_optimum_{web.replace('-', '_')}.json"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[7, 8, 9, 10, 11])
    parser.add_argument("--seconds", type=float, default=600.0)
    parser.add_argument("--web", choices=sorted(WEBS), default="flat",
                        help="the web bench.freshness_crawls crawls (its servers, pages, rates and "
                             "--fetch-rate; the held-out webs have no sitemaps)")
    parser.add_argument("--prehistory", type=float, default=0.0,
                        help="seconds the web has existed when the crawl starts")
    parser.add_argument("--fetch-rate", type=float, help="default: the web's")
    parser.add_argument("--no-past", action="store_true",
                        help="date pages unchanged since day 0 at day 0 (the web before 2026-11-29)")
    parser.add_argument("--policies", nargs="+", choices=POLICIES, default=list(POLICIES),
                        help="a subset (uniform, buckets and optimum are always run)")
    parser.add_argument("--low", action="store_true", help="also the low-bandwidth table (LOW)")
    parser.add_argument("--publish", action="store_true", help="write the JSON (implies --low)")
    args = parser.parse_args(argv)
    started = time.process_time()
    policies = tuple(p for p in POLICIES if p in {*args.policies, "uniform", "buckets", "optimum"})
    web = web_of(WEBS[args.web], seconds=args.seconds, prehistory=args.prehistory, past=not args.no_past)
    result = run(replace(web, fetch_rate=args.fetch_rate or web.fetch_rate), args.seeds, policies)
    low = (run(replace(web, **LOW), args.seeds, LOW_POLICIES)
           if args.low or args.publish else None)
    real = None
    if REAL.exists() and args.web == "flat":  # the real crawls of the flat web's twin
        import json
        real = json.loads(REAL.read_text(encoding="utf-8"))
    body, summary = report(result, real, low)
    body += f"\n\nSimulator: {time.process_time() - started:.0f} CPU s for all of it."
    flat = args.web == "flat"
    title = "Freshness at a fixed bandwidth against the known-rate optimum (issue 35)"
    publish(title if flat else f"{title}, the simulator's twin of {args.web}", body,
            RESULTS / _result_name(args.web) if args.publish else None, **summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
