"""The buckets policy's estimated change intervals against the truth (docs/recrawl-model.md's
table): five seeds of bench/freshness_optimum.py's simulator on the "flat" web, pages grouped by
their true mean change interval, at the end of a 600-second crawl.

    python -m bench.freshness_estimates
"""

from __future__ import annotations

import sys

import numpy as np

from bench.common import table
from bench.freshness_optimum import Sim, Web

CLASSES = (("never", 0.0, 0.0), ("20 s - 1 min", 20.0, 60.0), ("1 - 5 min", 60.0, 300.0),
           ("5 - 20 min", 300.0, 1200.0), ("20 - 60 min", 1200.0, 3601.0))


def crawled(seed: int, web: Web) -> Sim:
    sim, t = Sim(web, seed, "buckets"), 0.0
    while t < web.seconds:
        sim.step(t)
        t += 1.0 / web.fetch_rate
    return sim


def kind(rate: float) -> str:
    interval = 1.0 / rate if rate > 0 else 0.0
    return next(name for name, low, high in CLASSES
                if (high == 0 and rate == 0) or (high and low <= interval < high))


def rows(seeds: tuple[int, ...] = (7, 8, 9, 10, 11)) -> list[list[object]]:
    web = Web()
    found: dict[str, list[tuple[float, float | None, int, bool]]] = {name: [] for name, _, _ in CLASSES}
    for seed in seeds:
        sim = crawled(seed, web)
        for page in sim.pages:
            estimate = None if page.rate_estimate is None else 1.0 / page.rate_estimate
            stale = page.seen != sim.events(page, web.seconds)
            found[kind(page.rate)].append((page.rate, estimate, page.history.fetches, stale))
    out: list[list[object]] = []
    for name, pages in found.items():
        true = np.array([1.0 / r if r > 0 else np.inf for r, _, _, _ in pages])
        guessed = np.array([e for _, e, _, _ in pages if e is not None])
        close = np.mean([e is not None and t < np.inf and max(e / t, t / e) <= 2
                         for t, (_, e, _, _) in zip(true, pages, strict=True)])
        out.append([name, len(pages), "never" if name == "never" else f"{np.median(true):.0f} s",
                    f"{np.median(guessed):.0f} s", f"{close:.0%}",
                    f"{np.mean([f for _, _, f, _ in pages]):.1f}",
                    f"{np.mean([s for _, _, _, s in pages]):.0%}"])
    return out


def main() -> int:
    print(table(["true change interval", "pages (5 seeds)", "true median interval",
                 "estimated median interval (bucket)", "estimated within 2x", "fetches a page in 600 s",
                 "obsolete at the end"], rows()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
