"""Recrawl policies on changing webs unlike ours, against the known-rate optimum (issue 35).

Issue 35 is judged on held-out changing webs of other sizes, rates, servers and bandwidths.
This sweep runs bench/freshness_optimum.py's simulator (the product's own estimation and
allocation code; `--plan auto` through bench/freshness_model_sim.py's ModelSim, the product's
ModelDriver) over a grid of such webs (`CELLS`: 50 to 2,000 pages, 1 to 12 servers of uneven
sizes, 0.5 to 20 fetches a second, change rates all fast, all slow, bimodal, mostly static,
runs of 480 to 2,400 s) and reports, per cell, every policy's fresh share over the second half,
its fetches a second against the cap, the second half's fetches spent on pages that never
change, and its gap to the known-rate optimum at the same bandwidth (simulated with the same
loop, and its Poisson expectation). The first pass (every page fetched once) takes pages /
fetch rate seconds in the simulator (new pages first), shown per cell.

    python -m bench.freshness_grid [--cells NAME ...] [--seeds 1 2] [--jobs 2] [--publish]
                                   [--raw RUNS.json | --read RUNS.json]

`--lengths` runs the run-length series instead: the flat web and the heldout-small twin at
480 to 2,400 s, the gap against run length (is what is left the cost of learning the rates?).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

import numpy as np

from bench.common import RESULTS, publish, table
from bench.freshness_measure import expected_optimum
from bench.freshness_model_sim import _maker
from bench.freshness_optimum import Web, seed_rates, simulate, web_of
from bench.freshness_real import WEBS
from tests.support.changes import mixed

MINUTE, HOUR, DAY = 60.0, 3600.0, 86400.0
TWELVE = (400, 300, 250, 200, 180, 160, 140, 120, 100, 70, 50, 30)  # 2,000 pages, uneven
FLATLIKE = mixed("grid-flatlike", never=0.2, timestamp_only=0.1, intervals=((1.0, 20, HOUR),),
                 day_seconds=MINUTE)
FAST = mixed("grid-fast", never=0.05, timestamp_only=0.0, intervals=((1.0, 10, 120),), day_seconds=MINUTE)
SLOW = mixed("grid-slow", never=0.1, timestamp_only=0.05, intervals=((1.0, 30 * MINUTE, DAY),),
             day_seconds=MINUTE)
BIMODAL = mixed("grid-bimodal", never=0.1, timestamp_only=0.05,
                intervals=((0.5, 10, 60), (0.5, 2 * HOUR, DAY)), day_seconds=MINUTE)
STATIC = mixed("grid-static", never=0.6, timestamp_only=0.3, intervals=((1.0, MINUTE, HOUR),),
               day_seconds=MINUTE)
NONE = ("none",)
CELLS: dict[str, Web] = {
    "tiny, 1 x 50, 0.5/s": Web(servers=1, pages=50, fetch_rate=0.5, seconds=1200, spread=FLATLIKE,
                               sitemaps=NONE),
    "tiny, 1 x 50, 5/s": Web(servers=1, pages=50, fetch_rate=5.0, seconds=600, spread=FLATLIKE,
                             sitemaps=NONE),
    "2,000 on 12 uneven, 5/s": Web(sizes=TWELVE, fetch_rate=5.0, seconds=1200, spread=FLATLIKE,
                                   sitemaps=("honest", "none", "lying")),
    "2,000 on 12 uneven, 2/s": Web(sizes=TWELVE, fetch_rate=2.0, seconds=2400, spread=FLATLIKE,
                                   sitemaps=NONE),
    "2,000 on 12 uneven, 20/s": Web(sizes=TWELVE, fetch_rate=20.0, seconds=600, spread=FLATLIKE,
                                    sitemaps=NONE),
    "450, 0.5/s": Web(fetch_rate=0.5, seconds=2400, spread=FLATLIKE, sitemaps=NONE),
    "450, 20/s": Web(fetch_rate=20.0, seconds=480, spread=FLATLIKE, sitemaps=NONE),
    "all fast, 450, 5/s": Web(fetch_rate=5.0, seconds=600, spread=FAST, sitemaps=NONE),
    "all slow, 450, 5/s": Web(fetch_rate=5.0, seconds=600, spread=SLOW, sitemaps=NONE),
    "all slow, 450, 1/s": Web(fetch_rate=1.0, seconds=1200, spread=SLOW, sitemaps=NONE),
    "bimodal, 450, 3/s": Web(fetch_rate=3.0, seconds=900, spread=BIMODAL, sitemaps=NONE),
    "60% static, 450, 2/s": Web(fetch_rate=2.0, seconds=900, spread=STATIC, sitemaps=NONE),
    "60% static, 1 x 300, 5/s": Web(servers=1, pages=300, fetch_rate=5.0, seconds=600, spread=STATIC,
                                    sitemaps=NONE),
}
POLICIES = ("uniform", "buckets", "auto", "optimum")
LENGTHS = (480.0, 1200.0, 2400.0)
BAR = 0.03  # issue 35: buckets at least uniform's fresh share + 0.03


def pages(web: Web) -> int:
    return sum(web.sizes) if web.sizes else web.servers * web.pages


def one(job: tuple[str, Web, int, str]) -> tuple[str, str, int, dict[str, float]]:
    """One policy over one seed of one cell (a process pool's unit of work)."""
    name, web, seed, policy = job
    started = time.process_time()
    if policy == "auto":
        figures = simulate(web, seed, "auto", make=_maker("freshness", 3, []))
    else:
        figures = simulate(web, seed, policy)
    figures["cpu"] = time.process_time() - started
    if policy == "optimum":
        figures["expected"] = expected_optimum(seed_rates(web, seed), web.fetch_rate)
    return name, policy, seed, figures


def sweep(cells: dict[str, Web], seeds: list[int], jobs: int) -> dict[str, dict[str, list[dict]]]:
    work = [(name, web, seed, policy) for name, web in cells.items() for policy in POLICIES
            for seed in seeds]
    out: dict[str, dict[str, list[dict]]] = {name: {p: [] for p in POLICIES} for name in cells}
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for name, policy, seed, figures in pool.map(one, work):
            out[name][policy].append({"seed": seed, **figures})
            print(f"{name} {policy} seed {seed}: fresh {figures['fresh']:.3f} "
                  f"({figures['cpu']:.0f} CPU s)", file=sys.stderr, flush=True)
    return out


def verdict(uniform: float, buckets: float, optimum: float) -> str:
    """Whether buckets >= uniform + BAR holds in a cell, and where not, whether any policy could.

    No policy is fresher than the known-rate optimum at the same bandwidth (in expectation), so
    where the optimum is less than BAR above uniform the bar is out of every policy's reach: such a
    cell says nothing against the policy, and a cell the policy fails must be told from it.
    """
    if buckets - uniform >= BAR:
        return "met"
    return "infeasible" if optimum - uniform < BAR else "fails"


def rows(cells: dict[str, Web], found: dict[str, dict[str, list[dict]]]) -> list[list[object]]:
    def mean(name: str, policy: str, key: str) -> float:
        return float(np.mean([r[key] for r in found[name][policy]]))

    out = []
    for name, web in cells.items():
        best = mean(name, "optimum", "fresh")
        fresh = {p: mean(name, p, "fresh") for p in POLICIES}
        spread = max(float(np.std([r["fresh"] for r in found[name][p]])) for p in ("uniform", "buckets"))
        out.append([name, pages(web), f"{web.fetch_rate:g}", f"{web.seconds:g}",
                    f"{pages(web) / web.fetch_rate:.0f}",
                    *(f"{fresh[p]:.3f}" for p in ("uniform", "buckets", "auto")),
                    f"{best:.3f} ({mean(name, 'optimum', 'expected'):.3f})",
                    f"{best - max(fresh[p] for p in ('uniform', 'buckets', 'auto')):+.3f}",
                    f"{fresh['buckets'] - fresh['uniform']:+.3f}", f"{best - fresh['uniform']:+.3f}",
                    verdict(fresh["uniform"], fresh["buckets"], best), f"{spread:.3f}",
                    "/".join(f"{mean(name, p, 'fetches_per_second') / web.fetch_rate:.0%}"
                             for p in ("uniform", "buckets", "auto")),
                    "/".join(f"{mean(name, p, 'never_share'):.0%}" for p in ("uniform", "buckets", "auto"))])
    return out


HEAD = ["web", "pages", "fetches/s cap", "run s", "first pass s", "uniform", "buckets", "auto",
        "optimum (expected)", "best below the optimum", "buckets - uniform", "optimum - uniform",
        f"buckets >= uniform + {BAR:g}", "sd (seeds)",
        "fetches/s against the cap (u/b/a)", "2nd half to static pages (u/b/a)"]


NOTE = (f"\"buckets >= uniform + {BAR:g}\": met; fails (the optimum is at least {BAR:g} above uniform, "
        f"so a policy could); infeasible (the optimum itself is less than {BAR:g} above uniform at "
        "this bandwidth: no policy can meet the bar).")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cells", nargs="+", choices=sorted(CELLS), help="default: all")
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--jobs", type=int, default=1, help="processes (the machine is shared: 2 at most)")
    parser.add_argument("--lengths", action="store_true", help="the run-length series instead")
    parser.add_argument("--publish", action="store_true")
    parser.add_argument("--raw", help="also write every run's figures to this JSON file")
    parser.add_argument("--read", help="render the runs --raw wrote instead of running them")
    args = parser.parse_args(argv)
    started = time.time()
    if args.lengths:
        cells = {f"{web} {seconds:g} s": replace(web_of(WEBS[web]), seconds=seconds)
                 for web in ("flat", "heldout-small") for seconds in LENGTHS}
    else:
        cells = {name: CELLS[name] for name in (args.cells or CELLS)}
    if args.read:  # render runs written before by --raw (the same cells and seeds)
        found = json.loads(Path(args.read).read_text(encoding="utf-8"))
        cells = {name: cells[name] for name in found}
    else:
        found = sweep(cells, args.seeds, args.jobs)
    wall = "runs read back." if args.read else f"{time.time() - started:.0f} s wall, {args.jobs} processes."
    body = (f"Seeds {' '.join(map(str, args.seeds))}; fresh share over the second half (mean over "
            "seeds); the optimum simulated with the same loop (its Poisson expectation in brackets); "
            + wall + "\n\n"
            + table(HEAD, rows(cells, found)) + "\n\n" + NOTE)
    name = "freshness_grid_lengths" if args.lengths else "freshness_grid"
    title = ("Freshness against run length, flat web and heldout-small twin (issue 35)" if args.lengths
             else "Freshness on a grid of changing webs unlike ours (issue 35)")
    if args.raw and not args.read:
        Path(args.raw).write_text(json.dumps(found, indent=1) + "\n", encoding="utf-8")
    ran = (f"python -m bench.freshness_grid{' --lengths' if args.lengths else ''} --seeds "
           f"{' '.join(map(str, args.seeds))} --jobs 2 (rendered from its --raw runs by --read)")
    publish(title, body, RESULTS / f"{name}.json" if args.publish else None,
            command=ran if args.read else None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
