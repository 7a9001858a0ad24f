"""Last-Modified trusted per server once its dates proved right, measured (issue 35).

`lastmod.ServerDates` lets a server whose pages' dates passed every test vouch for them, so the
buckets policy dates the changes of its pages that changed at every recrawl (buckets.change_rate).
A web whose servers all mix clock-line pages never vouches (the rule is then the code without
it); so this runs bench/freshness_optimum.py's simulator (the product's estimation) on webs
where a share of the servers have no clock or counter line (tests/support/changes.py,
`Spread.honest_servers`: 0, 1/2, all), the buckets policy with the rule and without it
(`Web.vouch`), seed by seed.

    python -m bench.freshness_vouch [--cells NAME ...] [--jobs 2]
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace

import numpy as np

from bench.common import publish, table
from bench.freshness_grid import CELLS
from bench.freshness_optimum import Web, simulate, web_of
from bench.freshness_real import WEBS
from tests.support.changes import spread_from

SHARES = (0.0, 0.5, 1.0)  # of 3 servers: none honest, servers 0 and 2, all
WEBS_SEEDS: dict[str, tuple[Web, tuple[int, ...]]] = {
    "flat, 450 at 5/s, 600 s": (Web(), tuple(range(7, 17))),
    "heldout-small twin, 300 at 3/s, 480 s": (web_of(WEBS["heldout-small"], seconds=480.0),
                                              tuple(range(1, 11))),
    "450 at 0.5/s, 2,400 s": (CELLS["450, 0.5/s"], (1, 2, 3)),
    "450 at 0.5/s, 7,200 s": (replace(CELLS["450, 0.5/s"], seconds=7200.0), (1, 2, 3, 4)),
    "2,000 on 12 uneven at 2/s, 2,400 s": (CELLS["2,000 on 12 uneven, 2/s"], (1, 2)),
}


def honest(web: Web, share: float) -> Web:
    return replace(web, spread=replace(spread_from(web.spread), honest_servers=share))


def one(job: tuple[str, float, bool, int]) -> tuple[str, float, bool, int, float]:
    name, share, vouch, seed = job
    web = replace(honest(WEBS_SEEDS[name][0], share), vouch=vouch)
    return name, share, vouch, seed, simulate(web, seed, "buckets")["fresh"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cells", nargs="+", choices=sorted(WEBS_SEEDS), help="default: all")
    parser.add_argument("--jobs", type=int, default=1, help="processes (the machine is shared: 2 at most)")
    args = parser.parse_args(argv)
    names = args.cells or list(WEBS_SEEDS)
    work = [(name, share, vouch, seed) for name in names for share in SHARES for vouch in (False, True)
            for seed in WEBS_SEEDS[name][1]]
    fresh: dict[tuple[str, float, bool], dict[int, float]] = {}
    started = time.time()
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for name, share, vouch, seed, value in pool.map(one, work):
            fresh.setdefault((name, share, vouch), {})[seed] = value
            print(f"{name} honest {share:g} vouch {vouch} seed {seed}: {value:.4f}", file=sys.stderr,
                  flush=True)
    out = []
    for name in names:
        for share in SHARES:
            off, on = fresh[name, share, False], fresh[name, share, True]
            diffs = np.array([on[s] - off[s] for s in off])
            out.append([name, f"{share:g}", " ".join(map(str, off)), f"{np.mean(list(off.values())):.4f}",
                        f"{np.mean(list(on.values())):.4f}", f"{diffs.mean():+.4f} (sd {diffs.std():.4f})",
                        f"{int((diffs < 0).sum())} / {int((diffs > 0).sum())}"])
    body = ("The buckets policy in the simulator, fresh share over the second half; "
            f"{time.time() - started:.0f} s wall, {args.jobs} processes.\n\n"
            + table(["web", "honest servers", "seeds", "without the rule", "with it", "difference",
                     "seeds down / up"], out))
    publish("Last-Modified trusted per server (issue 35)", body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
