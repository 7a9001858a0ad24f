"""What a page never seen to change costs, and what the best belief about it could save (issue 35).

Issue 35 asks that pages that never change be "learnt as such within a few visits and cost almost
nothing". Two measurements in bench/freshness_optimum.py's simulator (the product's estimation and
allocation code), the buckets policy:

- `intervals`: after k recrawls that all saw no change, the page's next revisit interval, its
  unchanged span and its estimated change interval (medians over the pages and seeds), by what
  the page truly is (static with or without a clock or counter line, or changing, by its true
  interval); beside it, for the same spans, what a Bayes-correct belief would say: the posterior
  of a page unchanged over S seconds when the prior is the web's own true rate distribution (the
  "oracle" prior, out of any crawler's reach: P(static), the posterior mean change interval, and
  the interval Cho and Garcia-Molina's allocation gives that mean at the known-rate optimum's
  multiplier).
- `bound`: the buckets policy with and without a variant (`VARIANTS`), seed by seed, beside
  uniform and the optimum: `oracle`, that oracle posterior mean in place of the estimate of every
  page never seen to change (an upper bound on what any belief about "static or slow" built from
  a page's unchanged span, a server-level mixture or a fitted prior, can buy); `oracle-slow`, the
  same only where it is slower than the estimator's own (`oracle-slow-fine`: on the finest bucket
  grid); `oracle-all`, the oracle posterior mean for every recrawled page (the changed ones from
  their history's likelihood); `first-dated`, a page's first recrawl put off by the age of its
  first Last-Modified (`FirstDated`); `monotone`, a page never seen to change never put in a
  faster bucket than before (`Monotone`); `fine-unchanged`, such a page on the finest grid.

    python -m bench.freshness_unchanged intervals [--cells "heldout-small 480" "flat 480"] [--seeds 1 2]
    python -m bench.freshness_unchanged bound [--variant oracle] [--cells ...] [--seeds 1 2 ...] [--jobs 2]

A cell is a WEBS name and a run length ("flat 480": bench.freshness_grid's run-length series) or a
bench.freshness_grid CELLS name.
"""

from __future__ import annotations

import argparse
import heapq
import sys
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace

import numpy as np

from bench.common import table
from bench.freshness_grid import CELLS
from bench.freshness_optimum import EPOCH, Page, Sim, Web, seed_rates, simulate, web_of
from bench.freshness_real import WEBS
from webcrawler.recrawl.allocation import frequencies, multiplier
from webcrawler.recrawl.buckets import (
    History,
    bucket,
    bucket_of_interval,
    change_rate,
    interval_of_bucket,
    resolution,
)
from webcrawler.recrawl.lastmod import http_date
from webcrawler.recrawl.policies import Fetched

KS = range(1, 6)
SPANS = (100.0, 250.0, 350.0, 450.0, 1000.0, 3000.0, 10000.0)


def cell(name: str) -> Web:
    """A grid cell, or "<web> <seconds>" (the run-length series' cells)."""
    if name in CELLS:
        return CELLS[name]
    web, seconds = name.rsplit(" ", 1)
    return replace(web_of(WEBS[web]), seconds=float(seconds))


def kind(sim: Sim, page: Page) -> str:
    if page.rate > 0:
        interval = 1.0 / page.rate
        return ("changing < 1 min" if interval < 60 else "changing 1 - 10 min" if interval < 600
                else "changing 10 min - 2 h" if interval < 7200 else "changing > 2 h")
    lined = sim.changes.trivial_period(page.server, page.number) < float("inf")
    return "static, clock line" if lined else "static, no line"


class Watched(Sim):
    """The buckets policy, noting each page's schedule while its recrawls all saw no change."""

    def __init__(self, web: Web, seed: int, policy: str,
                 seen: dict[tuple[str, int], list[tuple[float, float, float]]]) -> None:
        super().__init__(web, seed, policy)
        self.seen = seen

    @staticmethod
    def into(seen: dict[tuple[str, int], list[tuple[float, float, float]]]) -> Callable[[Web, int, str], Sim]:
        """A maker for `simulate` whose runs add to `seen`."""
        return lambda web, seed, policy: Watched(web, seed, policy, seen)

    def schedule(self, k: int, t: float, fetched: Fetched) -> None:
        super().schedule(k, t, fetched)
        history, page = fetched.history, self.pages[k]
        if history is not None and history.recrawls and not history.changes and page.interval:
            rate = change_rate(history) or 0.0
            self.seen[kind(self, page), history.recrawls].append(
                (page.interval, history.span, 1.0 / rate if rate > 0 else float("inf")))


class Oracle(Sim):
    """Pages never seen to change get the posterior mean rate under the web's true rates as prior."""

    slow_only = False
    grid = 0  # the bucket grid's step (0: the estimator's, buckets.resolution of the recrawls)

    def __init__(self, web: Web, seed: int, policy: str) -> None:
        super().__init__(web, seed, policy)
        self.truth = np.array([p.rate for p in self.pages])

    def bucket(self, page: Page, history: History) -> int:
        if history.changes or not history.recrawls:
            return super().bucket(page, history)
        rate = posterior_mean(self.truth, history.span)
        if self.slow_only:
            rate = min(rate, change_rate(history) or rate)
        return bucket_of_interval(min(1.0 / max(rate, 1e-12), 2.0 ** 30),
                                  self.grid or resolution(history.recrawls))


class OracleSlowOnly(Oracle):
    slow_only = True


class OracleSlowFine(OracleSlowOnly):
    """... on the finest bucket grid: the coarse grid of a page's first recrawls (two octaves
    after one) rounds most of the oracle's differences between spans away."""

    grid = 1


class OracleAll(Oracle):
    """Every recrawled page gets the posterior mean rate under the web's true rates as prior,
    from its history's likelihood as buckets.change_rate reads it (its shortest changed recrawl,
    the other changed ones as equally long, the unchanged seconds): what a Bayes-correct estimate
    of the changing pages' rates could buy beside that of the pages never seen to change."""

    def bucket(self, page: Page, history: History) -> int:
        if not history.recrawls or not history.changes:
            return super().bucket(page, history)
        changes = min(history.changes, history.recrawls)
        shortest, rest = history.changed_intervals()
        unchanged = max(0.0, history.span - shortest - rest * (changes - 1))
        rates = self.truth[self.truth > 0]
        log_like = (np.log(-np.expm1(-rates * shortest)) + (changes - 1) * np.log(-np.expm1(-rates * rest))
                    - rates * unchanged)
        weights = np.exp(log_like - log_like.max())
        rate = float(np.sum(rates * weights) / np.sum(weights))
        return bucket_of_interval(1.0 / rate, resolution(history.recrawls))


class Monotone(Sim):
    """A page never seen to change never moves to a faster bucket than it had (the grids of
    successive recrawls do not nest: `buckets.resolution`), a throwaway idea, measured."""

    def bucket(self, page: Page, history: History) -> int:
        b = super().bucket(page, history)
        if history.changes or history.recrawls < 2 or page.rate_estimate is None:
            return b
        return max(b, bucket_of_interval(1.0 / page.rate_estimate))


class FineUnchanged(Sim):
    """A page never seen to change rounded to the finest bucket grid (its estimate unrounded)."""

    def bucket(self, page: Page, history: History) -> int:
        if history.changes or not history.recrawls:
            return super().bucket(page, history)
        rate = change_rate(history) or 1e-12
        return bucket_of_interval(min(1.0 / rate, 2.0 ** 30), 1)


class FirstDated(Sim):
    """A page's first recrawl put off by the age of its first answer's Last-Modified (a throwaway
    idea, measured: where do the first recrawls' intervals come from?). Today every page gets
    `first_interval` (10 s) at its first fetch: the first pass fetches every page before any
    recrawl, so no server has the recrawls a prior needs, and the first recrawls come in
    first-fetch order right after the first pass. Here a page whose Last-Modified is older than
    the first pass lasts (a clock line only makes a date younger, so an old date is a lower
    bound on the time since the content changed) is put in the bucket of one unchanged recrawl
    of that age and recrawled a second first pass later (or at the plan's interval, once there
    is one)."""

    def fetch(self, k: int, t: float) -> None:
        page = self.pages[k]
        first = page.seen < 0
        super().fetch(k, t)
        dated = http_date(page.lastmod) if first else None
        first_pass = len(self.pages) / self.web.fetch_rate
        if dated is None or EPOCH + t - dated <= first_pass:
            return
        trial = History(2, 0, EPOCH + t - dated, prior=page.history.prior)
        b = bucket(trial)
        self.due = [item for item in self.due if item[1] != k]
        heapq.heapify(self.due)
        page.rate_estimate = 1.0 / (interval_of_bucket(b) or 1.0)
        self.place(k, b)
        if self.plan.revisit:
            self.schedule(k, t, Fetched(None, b, None, page.history))
        else:
            page.interval = 2 * first_pass
            heapq.heappush(self.due, (t + page.interval, k))


VARIANTS: dict[str, type[Sim]] = {"oracle": Oracle, "oracle-slow": OracleSlowOnly,
                                  "oracle-slow-fine": OracleSlowFine,
                                  "oracle-all": OracleAll, "first-dated": FirstDated,
                                  "monotone": Monotone, "fine-unchanged": FineUnchanged}


def posterior_mean(rates: np.ndarray, span: float) -> float:
    weights = np.exp(-rates * span)
    return float(np.sum(rates * weights) / np.sum(weights))


def intervals(names: list[str], seeds: list[int]) -> None:
    for name in names:
        web = cell(name)
        seen: dict[tuple[str, int], list[tuple[float, float, float]]] = defaultdict(list)
        for seed in seeds:
            simulate(web, seed, "buckets", make=Watched.into(seen))
        rows = []
        for what in sorted({k for k, _ in seen}):
            for k in KS:
                if len(seen.get((what, k), ())) >= 3:
                    a = np.array(seen[what, k])
                    rows.append([what, k, len(a), *(f"{np.median(a[:, i]):.0f}" for i in range(3))])
        print(f"{name}, seeds {' '.join(map(str, seeds))}: the buckets policy, pages after k recrawls "
              "that all saw no change (medians)\n")
        print(table(["page", "k", "recrawls", "next interval s", "unchanged span s",
                     "estimated change interval s"], rows))
        truth = np.concatenate([seed_rates(web, s) for s in seeds])
        mu = multiplier(truth, np.full(len(truth), 1.0 / len(seeds)), web.fetch_rate)
        oracle = []
        for span in SPANS:
            mean = posterior_mean(truth, span)
            f = float(frequencies(np.array([mean]), mu)[0])
            static = float(np.sum(truth == 0) / np.sum(np.exp(-truth * span)))
            oracle.append([f"{span:.0f}", f"{static:.2f}", f"{1 / mean:.0f}",
                           f"{1 / f:.0f}" if f > 0 else "never"])
        print(f"\nThe oracle belief (the seeds' true rates as prior; {np.mean(truth == 0):.0%} static) of a "
              "page unchanged over S seconds\n")
        print(table(["S", "P(static)", "posterior mean change interval s",
                     "Cho interval at the optimum's multiplier s"], oracle) + "\n")


def _one(job: tuple[str, int, str]) -> tuple[str, int, str, float, float]:
    name, seed, variant = job
    if variant in ("uniform", "optimum"):
        figures = simulate(cell(name), seed, variant)
        return name, seed, variant, figures["fresh"], figures["never_share"]
    figures = simulate(cell(name), seed, "buckets", make=VARIANTS.get(variant))
    return name, seed, variant, figures["fresh"], figures["never_share"]


def bound(names: list[str], seeds: list[int], variant: str, jobs: int) -> None:
    work = [(n, s, v) for n in names for s in seeds for v in ("current", variant, "uniform", "optimum")]
    found: dict[tuple[str, int, str], tuple[float, float]] = {}
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for name, seed, which, fresh, never in pool.map(_one, work):
            found[name, seed, which] = (fresh, never)
    rows = []
    for name in names:
        now = np.array([found[name, s, "current"] for s in seeds])
        new = np.array([found[name, s, variant] for s in seeds])
        diff = new[:, 0] - now[:, 0]
        uniform = np.mean([found[name, s, "uniform"][0] for s in seeds])
        best = np.mean([found[name, s, "optimum"][0] for s in seeds])
        down, up = int((diff < 0).sum()), int((diff > 0).sum())
        rows.append([name, f"{uniform:.4f}", f"{best:.4f}", f"{now[:, 0].mean():.4f}",
                     f"{new[:, 0].mean():.4f}", f"{diff.mean():+.4f} ({down} / {up}, sd {diff.std():.4f})",
                     f"{now[:, 1].mean():.1%} -> {new[:, 1].mean():.1%}",
                     f"{now[:, 0].mean() - uniform:+.4f} / {new[:, 0].mean() - uniform:+.4f}",
                     f"{best - now[:, 0].mean():.4f} / {best - new[:, 0].mean():.4f}"])
    print(f"Seeds {' '.join(map(str, seeds))}; buckets, current code against `{variant}`\n")
    print(table(["cell", "uniform", "optimum", "buckets, current", f"buckets, {variant}",
                 "difference (seeds down / up)", "2nd half to static pages",
                 "above uniform (bar 0.03)", "below the optimum (bar 0.02)"], rows))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("what", choices=("intervals", "bound"))
    parser.add_argument("--cells", nargs="+", default=["heldout-small 480", "flat 480"])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--variant", choices=sorted(VARIANTS), default="oracle")
    parser.add_argument("--jobs", type=int, default=1, help="processes (the machine is shared: 2 at most)")
    args = parser.parse_args(argv)
    if args.what == "intervals":
        intervals(args.cells, args.seeds)
    else:
        bound(args.cells, args.seeds, args.variant, args.jobs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
