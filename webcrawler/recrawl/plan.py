"""Solve one instance under several strategies and report it as the paper does (Table 3).

What `webcrawler plan-recrawl` prints and writes: per strategy the objective, the total
pages at the end of the cycle and the obsolete pages at the end, and in JSON the whole
plan (crawls per cycle per bucket, obsolete pages per period, x_it / b_i,t-1 and z_t).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import numpy as np

from webcrawler.recrawl.model import SMALL_WEIGHT, ModelData, Solution, with_strategy
from webcrawler.recrawl.solve import solve

log = logging.getLogger(__name__)


def solve_strategies(data: ModelData, strategies: tuple[int, ...], small: float = SMALL_WEIGHT,
                     max_iter: int = 3000,
                     progress: Callable[[str], None] = log.info) -> dict[int, Solution]:
    """One solve per strategy, each reported as it ends (a solve at full scale takes seconds)."""
    plans = {}
    for strategy in strategies:
        plans[strategy] = solve(with_strategy(data, strategy, small), max_iter=max_iter)
        progress(f"strategy {strategy} solved in {plans[strategy].seconds:.1f} s "
                 f"({plans[strategy].iterations} iterations)")
    return plans


def changes_per_cycle(data: ModelData) -> np.ndarray:
    """Expected changes per page per cycle in each bucket, -sum_t ln(1 - a_it) (Poisson)."""
    return -np.log1p(-np.minimum(data.a, 1 - 1e-12)).sum(axis=1)


def format_table(plans: dict[int, Solution]) -> str:
    """Table 3's columns, one row per strategy."""
    lines = [f"{'':12}{'objective':>12}{'total pages at end':>20}{'obsolete at end':>17}"
             f"{'solve s':>9}{'iterations':>12}"]
    for strategy, plan in sorted(plans.items()):
        lines.append(f"{'strategy ' + str(strategy):12}{plan.objective:>12.4g}"
                     f"{plan.b[:, -1].sum():>20.4g}{plan.obsolete()[-1]:>17.4g}"
                     f"{plan.seconds:>9.1f}{plan.iterations:>12d}")
    return "\n".join(lines)


def plan_json(data: ModelData, plans: dict[int, Solution], source: dict[str, Any]) -> dict[str, Any]:
    """Everything a reader needs to redraw Figures 3 and 4 or drive a crawl."""
    return {
        "source": source,
        "buckets": data.buckets,
        "periods": data.periods,
        "changes_per_cycle": changes_per_cycle(data).round(6).tolist(),
        "bucket_pages_start": data.b0.round(3).tolist(),
        "strategies": {str(s): _plan(p) for s, p in sorted(plans.items())},
    }


def _plan(plan: Solution) -> dict[str, Any]:
    return {
        "objective": plan.objective,
        "total_pages_end": float(plan.b[:, -1].sum()),
        "obsolete_end": float(plan.obsolete()[-1]),
        "obsolete_per_period": plan.obsolete().round(3).tolist(),
        "crawls_per_cycle": plan.crawls_per_cycle().round(6).tolist(),
        "recrawl_fraction": (plan.x / plan.b[:, :-1]).round(6).tolist(),  # x_it / b_i,t-1
        "new_crawled": plan.z.round(3).tolist(),  # z_t
        "status": plan.status,
        "seconds": round(plan.seconds, 3),
        "iterations": plan.iterations,
    }
