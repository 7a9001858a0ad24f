"""The model solved for time-averaged freshness (fresh_plan.py), and `--plan auto` choosing it:
the capacity spent, Cho and Garcia-Molina's allocation in every period, new pages first, and
the driver reading its history from another source than the database (the simulator's seam)."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from webcrawler.recrawl.allocation import allocate, freshness
from webcrawler.recrawl.auto_plan import model_plan
from webcrawler.recrawl.buckets import (
    STEPS_PER_OCTAVE,
    UNKNOWN,
    History,
    bucket,
    bucket_of_interval,
    change_rate,
    interval_of_bucket,
    resolution,
)
from webcrawler.recrawl.fresh_plan import allocate_expected, expected_freshness, solve_freshness
from webcrawler.recrawl.history import change_rates, from_history, pooled_rate, summarise
from webcrawler.recrawl.instances import Scenario
from webcrawler.recrawl.model import ModelData, with_strategy
from webcrawler.recrawl.model_driver import ModelDriver
from webcrawler.recrawl.policies import RecrawlPlan
from webcrawler.recrawl.replan import Replanner, revisit_table
from webcrawler.settings import Settings


def instance(n0: float = 0.0, periods: int = 4) -> ModelData:
    """Three buckets of 100 pages: never, sometimes and often changing; 60 fetches a period."""
    b0 = np.array([100.0, 100.0, 100.0])
    a = np.tile([[0.0], [0.2], [0.9]], (1, periods))
    data = ModelData(b0=b0, y0=np.zeros(3), n0=n0, a=a, c=np.ones((3, periods)), d=np.ones(periods),
                     capacity=np.full(periods, 60.0), oldwt=np.zeros((3, periods)),
                     newwt=np.zeros(periods), oldnwt=np.zeros((3, periods)), newnwt=np.zeros(periods),
                     nconst=0.0, p=b0 / b0.sum())
    return with_strategy(data, 1)


def test_every_period_spends_the_capacity_as_cho_allocates_it():
    data = instance()
    plan = solve_freshness(data)
    assert plan.x.sum(axis=0) == pytest.approx(data.capacity)  # (1) binds: the bandwidth is spent
    rates = -np.log1p(-data.a[:, 0])
    assert plan.x[:, 0] / plan.b[:, 0] == pytest.approx(allocate(rates, data.b0, 60.0))
    assert plan.x[0].sum() == 0  # pages that never change are not recrawled
    other = np.array([0.0, 0.15, 0.45])  # any other split of the same 60 fetches is less fresh
    best = float((data.b0 * freshness(rates, plan.x[:, 0] / data.b0)).sum())
    assert best > float((data.b0 * freshness(rates, other)).sum())
    assert (plan.y >= 0).all() and (plan.y <= plan.b + 1e-9).all()  # the paper's (2), reported


def test_new_pages_come_first_and_join_the_buckets():
    plan = solve_freshness(instance(n0=100.0))
    assert plan.z[:2].tolist() == [60.0, 40.0] and plan.x[:, 0].sum() == 0
    assert plan.x[:, 1].sum() == pytest.approx(20.0)  # what the new pages leave in period 2
    assert plan.b[:, -1].sum() == pytest.approx(400.0)


def rows(intervals: dict[float, int]) -> list[SimpleNamespace]:
    """`documents` rows: for each change interval, pages fetched 10 times over 1,000 s that
    changed at every other fetch (interval 100 s) or never."""
    out = []
    for interval, pages in intervals.items():
        changes = 0 if interval == 0 else 5
        b = bucket_of_interval(interval) if interval else bucket_of_interval(10_000.0)
        out += [SimpleNamespace(change_bucket=b, times_fetched=10, times_changed=changes,
                                first_fetch=1000.0, last_fetch=2000.0, state="fetched")] * pages
    return out


def test_plan_auto_solves_for_freshness_from_any_history_source():
    history = summarise(rows({100.0: 30, 0: 30}), 2000.0, 600.0)
    settings = Settings(plan="auto", fetch_rate=1.0, hours=0.1)
    assert settings.plan_objective == "freshness"
    plan = model_plan(settings, RecrawlPlan(), 60.0, 6, read=lambda: history)
    changing, never = bucket_of_interval(100.0), bucket_of_interval(10_000.0)
    assert plan.revisit[changing] < plan.revisit[never]
    data, _ = from_history(*history, Scenario(periods=6, period_days=60.0 / 86400.0))
    assert solve_freshness(data).x[:, 0].sum() * data.c[0, 0] == pytest.approx(60.0)


def test_the_models_plan_keeps_the_fallbacks_probe_and_spends_the_bandwidth():
    history = summarise(rows({100.0: 30, 0: 30}), 2000.0, 600.0)
    settings = Settings(plan="auto", fetch_rate=1.0, hours=0.1, plan_cycle=10.0)
    counts = Replanner(RecrawlPlan(), settings.fetch_rate)
    changing, never = bucket_of_interval(100.0), bucket_of_interval(10_000.0)
    for doc in range(60):
        counts.place(doc, changing if doc < 30 else never)
    driver = ModelDriver(settings, RecrawlPlan(), counts, read=lambda: history)
    assert driver.replan(0.0, 0, 0) is None
    cho = driver.replan(3.0, 3, 3)  # the fallback's plan until the model's first solve
    assert cho is not None and cho.probe > 0
    plan = driver.replan(10.5, 10, 10)  # period 1: the model's plan, with the fallback's probe
    assert plan is not None and driver.solves == 1 and plan.probe == cho.probe
    demand = 30 / plan.revisit[changing] + 30 / plan.revisit[never]
    assert demand == pytest.approx(counts.bandwidth, rel=1e-6)


def test_between_solves_the_freshness_plan_is_the_live_allocation_at_the_models_share():
    """The freshness objective's period solution is Cho's allocation over the bucket sizes; the
    crawl's live counts move between solves, so the table is re-divided on them every replan
    period (the fallback's), the model's share kept. The paper's objective keeps its own table."""
    history = summarise(rows({100.0: 30, 0: 30}), 2000.0, 600.0)
    changing, never = bucket_of_interval(100.0), bucket_of_interval(10_000.0)
    plans = {}
    for objective in ("freshness", "obsolete"):
        settings = Settings(plan="auto", fetch_rate=1.0, hours=0.1, plan_cycle=10.0,
                            plan_objective=objective)
        counts = Replanner(RecrawlPlan(), settings.fetch_rate)
        for doc in range(60):
            counts.place(doc, changing if doc < 30 else never)
        driver = ModelDriver(settings, RecrawlPlan(share=0.9), counts, read=lambda: history)
        driver.replan(0.0, 0, 0)
        driver.replan(10.5, 10, 10)  # period 1: solved
        assert driver.solves == 1
        for doc in range(30, 45):  # half the slow pages are now seen changing
            counts.place(doc, changing)
        plan = driver.replan(12.6, 12, 12)  # the fallback's next period, before the next solve
        assert plan is not None and driver.solves == 1
        live = counts.fit(revisit_table(RecrawlPlan(), counts.counts, counts.bandwidth))
        plans[objective] = (plan, live, driver.plan)
    plan, live, model = plans["freshness"]
    assert plan.revisit == pytest.approx(live) and plan.share == min(model.share, Settings().recrawl_share)
    assert 45 / plan.revisit[changing] + 15 / plan.revisit[never] == pytest.approx(1.0, rel=1e-6)
    plan, live, model = plans["obsolete"]
    assert plan.revisit != pytest.approx(live)  # the paper's own table, fitted to the bandwidth


def test_once_the_fallback_has_a_table_a_solve_covers_the_one_period_whose_share_is_kept():
    """Under the freshness objective the crawl keeps only the model's share once the fallback
    has a table (model_driver._live), and that share is period 0's, which no later period
    changes: the driver solves that one period (share_only), the same share as the whole
    horizon's solve. Before the fallback's first table, the whole horizon (its table is used)."""
    queued = [SimpleNamespace(change_bucket=UNKNOWN, times_fetched=0, times_changed=0, first_fetch=None,
                              last_fetch=None, state="queued")] * 4
    history = summarise(rows({100.0: 30, 0: 30}) + queued, 2000.0, 600.0)
    settings = Settings(plan="auto", fetch_rate=1.0, hours=0.1, plan_cycle=10.0)
    full = model_plan(settings, RecrawlPlan(), 10.0, 36, read=lambda: history)
    assert 0 < full.share < 1  # new pages take a part of the period
    counts = Replanner(RecrawlPlan(), settings.fetch_rate)
    for doc in range(60):
        counts.place(doc, bucket_of_interval(100.0) if doc < 30 else bucket_of_interval(10_000.0))
    driver = ModelDriver(settings, RecrawlPlan(), counts, read=lambda: history)
    assert not driver.share_only()  # no fallback table yet
    driver.replan(0.0, 0, 0)
    driver.replan(3.0, 3, 3)
    assert driver.share_only()
    driver.replan(10.5, 10, 10)  # period 1: solved over one period, not the 35 left
    assert driver.solves == 1
    assert driver.installed[-1].share == model_plan(settings, RecrawlPlan(), 10.0, 35,
                                                    read=lambda: history).share == full.share


def test_a_buckets_rate_is_its_pages_own_estimate_not_their_recrawls_pooled():
    """Pages never seen to change: each one's estimate (Cho's half-changed pseudo-recrawl over its
    own 9 recrawls) is about twice its span; pooling the bucket's 900 recrawls gave one pseudo
    change for all of them, a rate a hundred times too low (issue 35's selection bias)."""
    page = History(fetches=10, changes=0, span=1000.0)
    b = bucket(page)
    rows = [SimpleNamespace(change_bucket=b, times_fetched=10, times_changed=0, first_fetch=1000.0,
                            last_fetch=2000.0, state="fetched")] * 100
    rows += [SimpleNamespace(change_bucket=UNKNOWN, times_fetched=1, times_changed=0,
                             first_fetch=2000.0, last_fetch=2000.0, state="fetched")] * 5
    history, _ = summarise(rows, 2000.0, 1005.0)
    rates = dict(zip(history.ids.tolist(), change_rates(history), strict=True))
    own = change_rate(page)
    assert own is not None and rates[b] == pytest.approx(1 / (interval_of_bucket(b) or 0.0))
    step = resolution(page.recrawls) / STEPS_PER_OCTAVE  # octaves between the grid's buckets
    assert abs(math.log2(rates[b] / own)) <= step / 2 + 1e-9  # the page's estimate, on the grid
    assert rates[b] > 50 * pooled_rate(history)
    assert rates[UNKNOWN] == pooled_rate(history) > 0  # no recrawl yet: the crawl's pooled rate


def test_allocation_on_the_belief_spends_the_bandwidth_and_is_cho_for_known_rates():
    rates, pages = np.array([0.01, 0.1, 1.0, 5.0]), np.full(4, 100.0)
    known = allocate_expected(rates, np.full(4, 1e5), pages, 60.0)
    assert known == pytest.approx(allocate(rates, pages, 60.0), rel=1e-3, abs=1e-6)
    vague = allocate_expected(rates, np.array([0.5, 0.5, 10.0, 10.0]), pages, 60.0)
    assert float(np.dot(pages, vague)) == pytest.approx(60.0)
    assert vague[1] < known[1] and vague[2] > known[2]  # a bucket seen changing rarely gets less
    # a vague belief of the same mean is fresher than its mean rate says (F is convex in l)
    mean, f, point = np.array([0.3]), np.array([0.5]), float(freshness(0.3, 0.5))
    assert expected_freshness(mean, np.array([1e5]), f)[0] == pytest.approx(point, rel=1e-4)
    assert expected_freshness(mean, np.array([0.5]), f)[0] > point


def test_the_models_data_carries_each_buckets_certainty():
    data, _ = from_history(*summarise(rows({100.0: 30, 0: 30}), 2000.0, 600.0),
                           Scenario(periods=2, period_days=60.0 / 86400.0))
    assert sorted(data.shape.tolist()) == [0.5, 5.5]  # changes a page + 1/2
