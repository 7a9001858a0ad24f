"""`webcrawler index --incremental --plan auto`: the model sets the recrawl plan of each cycle.

Section 6, "adaptive at two levels": between cycles the model's data (bucket sizes, change
rates, new-page rates, crawl cost) is re-measured from the crawl's history and the model
re-solved; within the cycle the plan coordinates the two queues. Here a cycle is one run of
`index --incremental` (its --hours split into T periods): at its start the stored history
is read (history.py), the model solved (solve.py) and its first period turned into the
RecrawlPlan the buckets policy reads: a revisit interval per change bucket (x_i1 / b_i0
fetches per page per period) and the recrawl queue's share against new URLs (sum_i x_i1
against z_1). Without history yet, or if Ipopt fails, the crawl keeps the default plan.
What the solve maximises is `--plan-objective`: by default the crawl's own goal, time-averaged
freshness at the fetch rate (fresh_plan.py, over the same buckets and periods), else the
paper's obsolete pages under `--plan-strategy` (solve.py, Ipopt).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from webcrawler.recrawl.buckets import UNKNOWN
from webcrawler.recrawl.model import ModelData, Solution
from webcrawler.recrawl.plan_inputs import PeriodInputs, period_inputs
from webcrawler.recrawl.policies import RecrawlPlan
from webcrawler.settings import Settings

if TYPE_CHECKING:
    from webcrawler.recrawl.history import BucketHistory

log = logging.getLogger(__name__)
PERIODS = 14  # the paper's T


def planned(settings: Settings, default: RecrawlPlan) -> RecrawlPlan:
    """The model's plan for this cycle when --plan auto, else `default`."""
    if settings.plan != "auto":
        return default
    from webcrawler.recrawl.history import NoHistory
    from webcrawler.recrawl.solve import SolveFailed

    try:
        plan = model_plan(settings, default, settings.hours * 3600.0 / PERIODS, PERIODS)
    except (NoHistory, SolveFailed) as exc:
        log.warning("--plan auto keeps the default plan this cycle: %s", exc)
        return default
    log.warning("--plan auto (%s): recrawl share %.2f", _objective(settings), plan.share)
    return plan


def _objective(settings: Settings) -> str:
    if settings.plan_objective == "freshness":
        return "time-averaged freshness"
    return f"strategy {settings.plan_strategy}"


def model_plan(settings: Settings, default: RecrawlPlan, period: float, periods: int,
               solver: Callable[[ModelData], Solution] | None = None,
               read: Callable[[], tuple[BucketHistory, dict[str, float]]] | None = None) -> RecrawlPlan:
    """Read the stored history (`read`: another source of it, e.g. a simulator's), solve the
    model over `periods` periods of `period` seconds and turn its first period into a
    RecrawlPlan; NoHistory or SolveFailed otherwise."""
    from webcrawler.recrawl.fresh_plan import solve_freshness
    from webcrawler.recrawl.history import from_history, read_history
    from webcrawler.recrawl.instances import Scenario
    from webcrawler.recrawl.solve import solve

    scenario = Scenario(periods=periods, period_days=period / 86400.0)
    history, crawl = read() if read is not None else read_history(settings.database_url)
    data, source = from_history(history, crawl, scenario, settings.plan_strategy)
    if settings.fetch_rate > 0:  # the bandwidth is the fetch rate cap, not the past speed
        cost = 1.0 / settings.fetch_rate
        data = dataclasses.replace(data, c=np.full_like(data.c, cost), d=np.full_like(data.d, cost))
    if solver is None:
        solver = solve_freshness if settings.plan_objective == "freshness" else solve
    inputs = period_inputs(solver(data), source["bucket_ids"], period)
    return as_recrawl_plan(inputs, default)


def as_recrawl_plan(inputs: PeriodInputs, default: RecrawlPlan) -> RecrawlPlan:
    """Per-bucket revisit intervals for all 256 buckets (those the plan does not name keep the
    default's) and the recrawl share; a plan with no fetch at all keeps the default share.
    Pages not yet recrawled (bucket UNKNOWN) keep their first recrawl after first_interval, as
    in replan.py: the model pools them at the crawl's mean rate, and a plan that skipped them
    would leave their change rate unmeasured for good."""
    revisit = tuple(default.first_interval if b == UNKNOWN else
                    inputs.interval(b) if b in inputs.bucket_rates else default.revisit_interval(b)
                    for b in range(256))
    share = inputs.recrawl_share if inputs.new_share + inputs.recrawl_share > 0 else default.share
    return dataclasses.replace(default, share=share, revisit=revisit)
