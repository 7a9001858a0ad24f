"""`--plan auto` during the crawl: the model re-solved at the start of each period.

Section 6's "adaptive at two levels": the model's data (bucket sizes, change rates, the
pages obsolete now, new pages per fetch) is re-measured from the crawl's history between
solves, and within a period the plan's output (x_i1 / b_i0 and z_1) drives the two queues.
The paper re-solves once per cycle of T periods; a run of `index --incremental --hours H`
is one such cycle here, split into the model's T = 14 periods, and the plan is re-solved at
the start of each period over the periods still left in the run (a shrinking horizon: the
model's last period stays the run's end, so strategy 2's and 3's weight on the last period
means what the paper means). `--plan-cycle SECONDS` sets the period instead. Under the
freshness objective, once the fallback has a table, only the solve's share is kept (`_live`),
and the solve covers that one period (`share_only`).

The history is read from the live database through its own read-only connection (SQLite in
WAL mode lets a reader beside the engine's writer; PostgreSQL too). A solve that fails keeps
the current plan with one warning. Until the model has a plan (a fresh crawl has no
history), the buckets policy's Cho optimum (replan.py) runs as before; after, the model's
table wins. The driver sits where the recrawler calls its Replanner (`place`, `replan`).
"""

from __future__ import annotations

import dataclasses
import logging
import math
import time
from collections.abc import Callable

from webcrawler.recrawl.auto_plan import PERIODS, model_plan
from webcrawler.recrawl.history import BucketHistory, NoHistory, history_source
from webcrawler.recrawl.model import ModelData, Solution
from webcrawler.recrawl.policies import RecrawlPlan
from webcrawler.recrawl.replan import Replanner
from webcrawler.recrawl.solve import SolveFailed
from webcrawler.settings import Settings

log = logging.getLogger(__name__)


def cycle_seconds(settings: Settings) -> float:
    """Seconds between two solves: --plan-cycle, else the run's --hours over the model's T."""
    return settings.plan_cycle if settings.plan_cycle > 0 else settings.hours * 3600.0 / PERIODS


class ModelDriver:
    """Re-solves the model every `cycle` seconds of the run and hands the recrawler its plan."""

    def __init__(self, settings: Settings, plan: RecrawlPlan, fallback: Replanner | None = None,
                 solver: Callable[[ModelData], Solution] | None = None,
                 read: Callable[[], tuple[BucketHistory, dict[str, float]]] | None = None) -> None:
        self.settings = settings
        self.plan = plan  # the plan in force (the start's solve, or the default)
        self.fallback = fallback  # J's Cho optimum until the model has a plan of its own
        self.solver = solver
        self.read = read  # the history's source (None: the crawl's database, history_source)
        self.cycle = cycle_seconds(settings)
        self.modelled = bool(plan.revisit)  # the start's solve (auto_plan.planned) succeeded
        self.solves = 0  # successful in-run solves
        self.failures = 0
        self.last_error = ""
        self.installed: list[RecrawlPlan] = []  # every plan the model solved, in order
        self.probe = 0.0  # the fallback's latest probe interval
        self.cho: RecrawlPlan | None = None  # the fallback's latest plan
        self._start: float | None = None  # monotonic time of the run's start
        self._period = 0

    def place(self, doc_id: int, bucket: int | None) -> None:
        """The fallback counts pages per bucket; the model reads them from the database."""
        if self.fallback is not None:
            self.fallback.place(doc_id, bucket)

    def replan(self, mono: float, fetches: int, recrawls: int) -> RecrawlPlan | None:
        """The model's new plan when a period starts; the fallback's until the model has one.
        Under the freshness objective only the model's share is kept (`_live`), and every
        plan's share is at most --recrawl-share (`_first_pass`: new pages first); under the
        paper's objective its table is scaled to the bandwidth each time the fallback
        measures it (replan.fit_to_bandwidth): the model says which buckets deserve how many of the
        fetches, the cap says how many there are (issue 35: unscaled, its plans spent 1.3-2.0
        of 5 fetches a second). The buckets policy's probe (replan.probe_interval, from the
        fallback's table) stays in force: the model plans per bucket and cannot tell a page
        that changes at every recrawl from one too fast to follow; the probe can."""
        if self._start is None:
            self._start = mono
        cho = self.fallback.replan(mono, fetches, recrawls) if self.fallback is not None else None
        if cho is not None:
            self.probe, self.cho = cho.probe, cho
        period = int((mono - self._start) // self.cycle)
        if period > self._period:
            self._period = period
            plan = self._solve(period)
            if plan is not None:
                return self._first_pass(self._live(plan, self.cho) or self._fitted(plan))
        if not self.modelled:
            return cho
        if cho is None:
            return None
        return self._first_pass(self._live(self.plan, cho) or self._fitted(self.plan))

    def _first_pass(self, plan: RecrawlPlan) -> RecrawlPlan:
        """`plan` with its recrawl share at most --recrawl-share: new pages first, as for every
        policy (settings.FIRST_PASS_SHARE). The share only decides between a server's two queues
        while it still has new URLs, and the model's split of a period's fetches between new and
        old pages comes from the pages the history saw arrive, not from the frontier waiting to
        be fetched, so it gave recrawls half a server's turns and more while pages never fetched
        (obsolete until fetched) waited: on heldout-small (docs/freshness.md) the model-driven
        crawl's first pass took 195 s against the buckets policy's 120 s. A smaller share of the
        model's is kept."""
        return dataclasses.replace(plan, share=min(plan.share, self.settings.recrawl_share))

    def _live(self, plan: RecrawlPlan, cho: RecrawlPlan | None) -> RecrawlPlan | None:
        """Under the freshness objective, the period's allocation re-solved on the live bucket
        sizes: the model's solution of a period is Cho and Garcia-Molina's Lagrangian over its
        b_it (fresh_plan.py), and between two reads of the history the crawl's own counts are
        those b_it as they move, which the fallback divides the bandwidth over every
        replan.PERIOD. So the revisit table is the fallback's, at the model's share (z_t against
        the recrawls); solved only every cycle, the same plan lagged behind the buckets the pages
        move between (docs/recrawl-model.md). None under the paper's objective (its table is its
        own) or before the fallback has a table."""
        if cho is None or self.settings.plan_objective != "freshness":
            return None
        return dataclasses.replace(cho, share=plan.share)

    def _fitted(self, plan: RecrawlPlan) -> RecrawlPlan:
        if self.fallback is None or not plan.revisit:
            return plan
        return dataclasses.replace(plan, revisit=self.fallback.fit(plan.revisit), probe=self.probe)

    def periods_left(self, period: int) -> int:
        """Periods from `period` to the run's end (at least 1): the solve's horizon."""
        run = self.settings.hours * 3600.0
        return max(1, math.ceil(round(run / self.cycle - period, 6)))

    def share_only(self) -> bool:
        """Whether only the next solve's share can be put in force: under the freshness objective
        once the fallback has a table (`_live` keeps the model's share, never its table, and the
        fallback's table, once made, is always there). The share is period 0's (x_i0 against z_0),
        which no later period changes (fresh_plan.solve_freshness solves them in order), so a solve
        over that one period gives the same share at a fraction of the CPU: the whole horizon's
        allocations were most of `--plan auto`'s engine CPU (docs/recrawl-model.md, "What a
        re-solve costs")."""
        return self.cho is not None and self.settings.plan_objective == "freshness"

    def _solve(self, period: int) -> RecrawlPlan | None:
        started = time.monotonic()
        horizon = 1 if self.share_only() else self.periods_left(period)
        try:
            if self.read is None:  # read at the first solve: a driver made without a crawl never reads
                self.read = history_source(self.settings.database_url)
            plan = model_plan(self.settings, self.plan, self.cycle, horizon, self.solver, self.read)
        except (NoHistory, SolveFailed) as exc:
            self.failures += 1
            self.last_error = str(exc)
            log.warning("--plan auto keeps the current plan for period %d: %s", period, exc)
            return None
        self.plan, self.modelled = plan, True
        self.solves += 1
        self.installed.append(plan)
        log.info("--plan auto: period %d re-solved over %d periods in %.2f s, recrawl share %.2f",
                 period, horizon, time.monotonic() - started, plan.share)
        return plan
