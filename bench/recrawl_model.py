"""WebFountain's recrawl model at the paper's scale, and the solver against scipy.

    python -m bench.recrawl_model [--figures docs] [--skip-experiments] [--skip-scipy]

Section 5's instance (500 M pages, doubling in about 400 days, B = 255, T = 14) under
strategies 1, 2 and 3: Table 3's columns, the solve time, what Figure 3 says per strategy
(buckets never crawled, crawled more than once), Figure 4's obsolete pages per period; then
Experiments 2 (version 2's buckets) and 3 (changes half as often; 28 periods); then the
NLP with n, b substituted against the paper's full set of variables; then casadi +
Ipopt against scipy's trust-constr and SLSQP (finite-difference gradients, the same model) on a
medium instance. Prints markdown tables (docs/recrawl-model.md and BENCHMARKS.md take them).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from bench.common import table
from webcrawler.recrawl.figures import write_figures
from webcrawler.recrawl.instances import Scenario, build
from webcrawler.recrawl.model import ModelData, Solution, simulate
from webcrawler.recrawl.plan import changes_per_cycle
from webcrawler.recrawl.solve import solve


def figure_3_facts(plan: Solution) -> tuple[str, str, float]:
    """Share of pages never crawled (and whether they are the slowest buckets), share crawled
    more than once, fewest crawls of any bucket (buckets are ordered slowest first)."""
    crawls, pages = plan.crawls_per_cycle(), plan.b[:, 0]
    never = crawls < 0.01
    slowest = "slowest" if never.any() and not never[int(never.sum()):].any() else "mixed"
    share = f"{pages[never].sum() / pages.sum():.0%} ({slowest})" if never.any() else "0%"
    return share, f"{pages[crawls > 1.01].sum() / pages.sum():.0%}", float(crawls.min())


def paper_runs(figures: Path | None) -> dict[int, Solution]:
    scenario = Scenario()
    plans, cpu = {}, {}
    for s in (1, 2, 3):
        started = time.process_time()
        plans[s] = solve(build(scenario, s))
        cpu[s] = time.process_time() - started
    rows = []
    for s, plan in plans.items():
        never, more, least = figure_3_facts(plan)
        rows.append([f"strategy {s}", f"{plan.objective:.4g}", f"{plan.b[:, -1].sum():.4g}",
                     f"{plan.obsolete()[-1]:.4g}", never, more, f"{least:.2f}", f"{plan.seconds:.1f}",
                     f"{cpu[s]:.1f}", plan.iterations])
    print(table(["", "objective", "total pages at end", "obsolete at end", "never crawled",
                 "crawled > once", "fewest crawls", "wall s", "cpu s", "iterations"], rows))
    print()
    print(table(["period", *[f"strategy {s}" for s in plans]],
                [[t, *[f"{p.obsolete()[t] / 1e6:.1f} M" for p in plans.values()]]
                 for t in range(len(plans[1].n))]))
    if figures is not None:
        write_figures(plans, changes_per_cycle(build(scenario)), figures)
    return plans


def experiments() -> None:
    """Experiment 2 (version 2 buckets, strategies 1 and 3) and 3 (strategy 1, versions 1 and
    3, 14 and 28 periods)."""
    rows = []
    for label, scenario, s in [("strategy 1 v2", Scenario(version=2), 1),
                               ("strategy 3 v2", Scenario(version=2), 3),
                               ("strategy 1 v3", Scenario(version=3), 1),
                               ("strategy 1 v1, T=28", Scenario(periods=28), 1),
                               ("strategy 1 v3, T=28", Scenario(version=3, periods=28), 1)]:
        plan = solve(build(scenario, s))
        obsolete = plan.obsolete()
        rows.append([label, f"{plan.objective:.4g}", f"{plan.b[:, -1].sum():.4g}", f"{obsolete[-1]:.4g}",
                     " ".join(f"{v / 1e6:.0f}" for v in obsolete[::2]), f"{plan.seconds:.1f}"])
    print(table(["run", "objective", "total pages at end", "obsolete at end",
                 "obsolete every 2nd period (M)", "solve s"], rows))


def scipy_solve(data: ModelData, method: str) -> tuple[float, float]:
    """The same model for scipy: decisions (x, z) only, in units of the mean bucket as for
    Ipopt, (2)-(4) by simulation, constraints (1), (5), (6) linear in the decisions;
    gradients by finite differences. Returns (objective, seconds)."""
    from scipy.optimize import LinearConstraint, minimize

    from webcrawler.recrawl.solve import uniform_start

    B, T, unit = data.buckets, data.periods, float(data.b0.mean())
    size = B * T + T

    def run(v: np.ndarray) -> Solution:
        return simulate(data, v[: B * T].reshape(B, T) * unit, v[B * T:] * unit)

    def slack(v: np.ndarray) -> np.ndarray:  # (1), (5), (6): each >= 0, in units
        sol = run(v)
        return np.concatenate([(data.capacity - (data.c * sol.x).sum(axis=0) - data.d * sol.z) / unit,
                               ((sol.b[:, :-1] - sol.x) / unit).ravel(), (sol.n[:-1] - sol.z) / unit])

    offset = slack(np.zeros(size))
    matrix = np.array([slack(e) - offset for e in np.eye(size)]).T  # exact: slack is linear
    x0, z0 = uniform_start(data)
    started = time.monotonic()
    result = minimize(lambda v: run(v).objective / unit, np.concatenate([x0.ravel(), z0]) / unit,
                      method=method, bounds=[(0, None)] * size,
                      constraints=[LinearConstraint(matrix, -offset, np.inf)], options={"maxiter": 500})
    return float(run(np.clip(result.x, 0, None)).objective), time.monotonic() - started


def formulations(iterations: int = 30) -> None:
    """Strategy 1 at the paper's scale: the paper's variables (the default) against n, b
    substituted, CPU seconds for the first `iterations` Ipopt iterations (and the build)."""
    from webcrawler.recrawl.solve import SolveFailed

    data = build(Scenario(), 1)
    rows = []
    for label, full in (("x, z, y, n, b as in the paper", True), ("x, z, y; (3), (4) substituted", False)):
        cpu = time.process_time()
        try:
            solve(data, full=full, max_iter=iterations)
        except SolveFailed:
            pass
        rows.append([label, f"{time.process_time() - cpu:.1f}"])
    print(table([f"casadi + Ipopt, strategy 1, B = 255: {iterations} iterations", "cpu s"], rows))


def against_scipy(buckets: int) -> None:
    data = build(Scenario(buckets=buckets), 1)
    rows = []
    plan = solve(data)
    rows.append(["casadi + Ipopt (exact derivatives)", f"{plan.objective:.6g}", f"{plan.seconds:.2f}"])
    for method in ("SLSQP", "trust-constr"):
        objective, seconds = scipy_solve(data, method)
        rows.append([f"scipy {method} (finite differences)", f"{objective:.6g}", f"{seconds:.2f}"])
    print(f"Strategy 1, B = {buckets}, T = 14 ({buckets * 14 + 14} decisions):\n")
    print(table(["solver", "objective", "seconds"], rows))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--figures", type=Path, default=None, help="Write Figures 3 and 4 here.")
    parser.add_argument("--skip-experiments", action="store_true")
    parser.add_argument("--skip-scipy", action="store_true")
    parser.add_argument("--scipy-buckets", type=int, default=4)
    args = parser.parse_args()
    paper_runs(args.figures)
    if not args.skip_experiments:
        print()
        experiments()
    print()
    formulations()
    if not args.skip_scipy:
        print()
        against_scipy(args.scipy_buckets)


if __name__ == "__main__":
    main()
