"""`--plan auto` in the freshness simulator (issue 35): the model-driven crawl beside the others.

bench/freshness_optimum.py's simulator, with the product's own ModelDriver (model_driver.py)
in the place the recrawler gives it: the buckets policy, its Replanner as the fallback and
the bandwidth meter, and the model re-solved at the start of each of the run's T periods from
the simulated crawl's history (the rows the crawl's `documents` table would hold, summed by
history.summarise) instead of the database; under the freshness objective the period's
allocation is re-divided on the live bucket counts between solves (model_driver._live).
Everything else (the web's truth, the fetch loop, the freshness measure, the known-rate
optimum) is the simulator's.

Also the model's assumptions against the truth (docs/recrawl-model.md's table): at the end of
each run, per band of the model's estimated change interval, its buckets' pages, estimated rate
and pages it holds obsolete now (y_i0) beside the true rates and obsolete pages.

    python -m bench.freshness_model_sim [--web flat] [--seeds 7 8 9 10 11] [--publish]

`--web heldout-small` (or heldout-large) runs the simulator's twin of a held-out real web
(freshness_optimum.web_of); `--publish` then writes freshness_model_sim_<web>.json.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from types import SimpleNamespace

import numpy as np

from bench.common import RESULTS, publish, table
from bench.freshness_measure import expected_optimum, mean_sd
from bench.freshness_optimum import EPOCH, Sim, Web, seed_rates, simulate, web_of
from bench.freshness_real import WEBS
from webcrawler.recrawl.buckets import bucket
from webcrawler.recrawl.history import BucketHistory, change_rates, summarise
from webcrawler.recrawl.model_driver import ModelDriver
from webcrawler.recrawl.policies import RecrawlPlan
from webcrawler.recrawl.replan import PERIOD
from webcrawler.settings import Settings

MODELS = {"auto (freshness)": ("freshness", 3), "auto (paper, strategy 1)": ("obsolete", 1),
          "auto (paper, strategy 3)": ("obsolete", 3)}
OTHERS = ("uniform", "adaptive", "buckets", "optimum")
BANDS = ((0.0, 60.0, "< 1 min"), (60.0, 300.0, "1 - 5 min"), (300.0, 1200.0, "5 - 20 min"),
         (1200.0, 3600.0, "20 - 60 min"), (3600.0, np.inf, "> 1 h"))


class ModelSim(Sim):
    """The buckets policy with the model's plan in force (`--recrawl buckets --plan auto`)."""

    def __init__(self, web: Web, seed: int, policy: str = "auto", strategy: int = 3,
                 objective: str = "freshness", cycle: float = 0.0) -> None:
        super().__init__(web, seed, "buckets")
        self.name = policy
        settings = Settings(plan="auto", plan_strategy=strategy, plan_objective=objective,
                            fetch_rate=web.fetch_rate, hours=web.seconds / 3600.0,
                            incremental=True, plan_cycle=cycle)
        self.now = 0.0
        self.driver = ModelDriver(settings, RecrawlPlan(), self.replanner, read=self.history)
        self.replanner = self.driver  # type: ignore[assignment]

    def step(self, t: float) -> None:
        self.now = t
        super().step(t)

    def rows(self) -> list[SimpleNamespace]:
        """The `documents` rows of the crawl so far, one per page, in the pages' order."""
        return [SimpleNamespace(change_bucket=bucket(p.history) if p.history.fetches > 1 else 0,
                                times_fetched=p.history.fetches, times_changed=p.history.changes,
                                first_fetch=EPOCH + p.first, last_fetch=EPOCH + p.last,
                                state="fetched" if p.seen >= 0 else "queued")
                for p in self.pages]

    def history(self) -> tuple[BucketHistory, dict[str, float]]:
        """history.read_history's view of the simulated crawl."""
        return summarise(self.rows(), self.now, float(self.fetches))


def _maker(objective: str, strategy: int, made: list[ModelSim]) -> Callable[[Web, int, str], Sim]:
    """A ModelSim factory for `simulate` that keeps what it made (to read its end state)."""
    def make(web: Web, seed: int, policy: str) -> Sim:
        made.append(ModelSim(web, seed, policy, strategy, objective))
        return made[-1]
    return make


def assumptions(sim: ModelSim) -> list[tuple[float, int, float, float, float, int]]:
    """Per model bucket at the run's end: (estimated interval, pages, true mean rate, pages
    that never change, model's obsolete now, truly obsolete now)."""
    rows = sim.rows()
    history, _ = summarise(rows, sim.now, float(sim.fetches))
    rates = change_rates(history)
    out = []
    for k, b in enumerate(history.ids):
        pages = [p for p, r in zip(sim.pages, rows, strict=True) if r.change_bucket == b and p.seen >= 0]
        obsolete = float((1 - np.exp(-rates[k] * history.since_fetch[k])).sum())
        stale = sum(p.seen != sim.events(p, sim.now) for p in pages)
        out.append((1.0 / rates[k] if rates[k] > 0 else np.inf, len(pages),
                    float(np.mean([p.rate for p in pages])), sum(p.rate == 0 for p in pages),
                    obsolete, stale))
    return out


def run(web: Web, seeds: list[int]) -> tuple[dict[str, list[dict[str, float]]], list]:
    runs: dict[str, list[dict[str, float]]] = {}
    found: list = []
    for name, (objective, strategy) in MODELS.items():
        runs[name] = []
        for seed in seeds:
            made: list[ModelSim] = []
            runs[name].append(simulate(web, seed, "auto", make=_maker(objective, strategy, made)))
            if objective == "freshness":
                found += assumptions(made[0])
    for policy in OTHERS:
        runs[policy] = [simulate(web, s, policy) for s in seeds]
    runs["optimum, expected"] = [{"fresh": expected_optimum(seed_rates(web, s), web.fetch_rate)}
                                 for s in seeds]
    return runs, found


def assumption_rows(found: list) -> list[list[object]]:
    out = []
    for low, high, name in BANDS:
        band = [f for f in found if low <= f[0] < high]
        if not band:
            continue
        pages = sum(f[1] for f in band)
        finite = [f for f in band if f[0] < np.inf]
        estimated = pages / sum(f[1] / f[0] for f in finite) if finite else np.inf
        true = sum(f[2] * f[1] for f in band) / pages
        out.append([name, len(band), pages, f"{estimated:.0f} s",
                    f"{1 / true:.0f} s" if true > 0 else "never",
                    f"{sum(f[3] for f in band) / pages:.0%}", f"{sum(f[4] for f in band):.0f}",
                    f"{sum(f[5] for f in band)}"])
    return out


def report(runs: dict[str, list[dict[str, float]]], found: list, web: Web, seeds: list[int]
           ) -> tuple[str, dict[str, object]]:
    mean = {p: float(np.mean([r["fresh"] for r in rs])) for p, rs in runs.items()}
    optimum = mean["optimum"]
    rows = [[p, mean_sd([r["fresh"] for r in rs]),
             " ".join(f"{r['fresh']:.3f}" for r in rs), f"{optimum - mean[p]:+.3f}" if p != "optimum" else "",
             f"{np.mean([r['fetches_per_second'] for r in rs]):.2f}" if "fetches_per_second" in rs[0] else "",
             f"{np.mean([r['never_share'] for r in rs]):.1%}" if "never_share" in rs[0] else ""]
            for p, rs in runs.items()]
    body = "\n".join([
        f"Simulated (bench/freshness_optimum.py's simulator with the product's ModelDriver): the "
        f"\"{web.spread}\" web, {web.servers} x {web.pages} pages, --fetch-rate {web.fetch_rate:g}, "
        f"{web.seconds:g} s, seeds {' '.join(map(str, seeds))}; the model re-solved every "
        f"{web.seconds / 14:.0f} s from the crawl's history (under the freshness objective, its period's "
        f"allocation re-divided on the live bucket counts every {PERIOD:g} s between solves); fresh share "
        f"averaged over the second half.",
        "", table(["crawl", "fresh (mean ± sd)", "per seed", "below the optimum", "fetches/s",
                   "second half's fetches to pages that never change"], rows),
        "", "The model's buckets at the end of each `auto (freshness)` run against the truth "
        "(all seeds; bands of the model's estimate):", "",
        table(["estimated interval", "buckets", "pages", "model's interval",
               "true mean interval", "never change", "model's obsolete now (y_i0)",
               "truly obsolete now"], assumption_rows(found))])
    auto = mean["auto (freshness)"]
    headline = (f"simulated: auto (freshness) {auto:.3f}, buckets {mean['buckets']:.3f}, "
                f"paper's strategy 3 {mean['auto (paper, strategy 3)']:.3f}, uniform {mean['uniform']:.3f}; "
                f"optimum {optimum:.3f}")
    goal = "model >= buckets; within 0.02 of the known-rate optimum"
    return body, {"headline": headline, "goal": goal,
                  "met": bool(auto >= mean["buckets"] and optimum - auto <= 0.02)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[7, 8, 9, 10, 11])
    parser.add_argument("--seconds", type=float, default=600.0)
    parser.add_argument("--web", choices=sorted(WEBS), default="flat",
                        help="the tuning web, or the twin of a held-out real web")
    parser.add_argument("--publish", action="store_true")
    args = parser.parse_args(argv)
    web = web_of(WEBS[args.web], seconds=args.seconds)
    started = time.process_time()
    runs, found = run(web, args.seeds)
    body, summary = report(runs, found, web, args.seeds)
    body += f"\n\nSimulator: {time.process_time() - started:.0f} CPU s for all of it."
    title = "Freshness: the model-driven crawl in the simulator (issue 35)"
    flat = args.web == "flat"
    name = "freshness_model_sim" + ("" if flat else "_" + args.web.replace("-", "_"))
    publish(title if flat else f"{title}, the twin of {args.web}", body,
            RESULTS / f"{name}.json" if args.publish else None, **summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
