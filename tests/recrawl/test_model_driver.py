"""`index --incremental --plan auto` re-solves the model each period of a real loopback crawl."""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np

from webcrawler.database.schema import connect
from webcrawler.demoweb.server import LoopbackWeb, Page, Site, html
from webcrawler.engine.loop.index_hooks import index_loop
from webcrawler.engine.pipeline.index_sink import IndexSink
from webcrawler.engine.store.sql import CrawlStore
from webcrawler.recrawl.auto_plan import as_recrawl_plan
from webcrawler.recrawl.buckets import UNKNOWN
from webcrawler.recrawl.model import Solution
from webcrawler.recrawl.model_driver import ModelDriver, cycle_seconds
from webcrawler.recrawl.plan_inputs import period_inputs
from webcrawler.recrawl.policies import RecrawlPlan
from webcrawler.recrawl.recrawler import Recrawler
from webcrawler.recrawl.setup import incremental_parts
from webcrawler.recrawl.solve import solve
from webcrawler.settings import Settings

from .test_incremental import NEW, OLD, Until, rows

ADDRESS = "127.0.12.2"


PAGES = [f"/{kind}{k}" for kind in ("fast", "slow") for k in range(3)]


def changing_site() -> tuple[Site, Until]:
    """Three pages with a new story at every fetch, three that never change; and the route's
    `Until`, whose crawl gives the history the model starts from (`history_crawl`)."""
    counter = itertools.count()

    def route(path: str) -> Page | None:
        if path == "/":
            return html("home", "the home page", [(f"/fast{k}", "f") for k in range(3)]
                        + [(f"/slow{k}", "s") for k in range(3)])
        if path.startswith("/fast"):
            return html(path, (OLD, NEW)[next(counter) % 2])
        if path.startswith("/slow"):
            return html(path, "an archive page that never changes, " * 8)
        return None

    until = Until(route)
    return Site(ADDRESS, until), until


def history_crawl(settings: Settings, until: Until, seed: str) -> None:
    """The uniform recrawl the model's history comes from: every page fetched six times (as in
    2.5 s on an idle machine), however long a busy machine takes, instead of for 2.5 s, in
    which a busy machine may fetch each page once and see no change (the run's hours only
    bound it; the model-driven crawls after it keep theirs)."""
    until.crawl(settings, seed, lambda asked: all(asked[p] >= 6 for p in PAGES))


def settings_for(tmp_path) -> Settings:
    return Settings(data_dir=tmp_path / "data", agents=2, delay=0.0, hours=2.5 / 3600,
                    incremental=True, recrawl="uniform", fetch_rate=25.0, commit_every=5, min_revisit=0.0,
                    commit_seconds=0.5, progress_interval=60.0, total_timeout=5.0)


def driven_crawl(settings: Settings, seed: str, solver=None) -> Recrawler:
    """One incremental crawl as `index` runs it; the recrawler is returned to look at its driver."""
    engine = connect(settings.database_url)
    store = CrawlStore(engine)
    sink = IndexSink(store, settings.index_dir)
    try:
        ordering, recrawler = incremental_parts(settings, store, sink)
        assert isinstance(recrawler.replanner, ModelDriver)
        recrawler.replanner.solver = solver
        index_loop(settings, store, sink=sink, ordering=ordering, recrawl=recrawler).run()
        return recrawler
    finally:
        store.close()
        engine.dispose()


def test_the_cycle_is_the_runs_hours_over_the_models_periods():
    assert cycle_seconds(Settings(hours=1.4)) == 360.0
    assert cycle_seconds(Settings(hours=1.4, plan_cycle=30.0)) == 30.0
    driver = ModelDriver(Settings(hours=1.4), RecrawlPlan())
    assert [driver.periods_left(p) for p in (0, 1, 13, 14, 20)] == [14, 13, 1, 1, 1]


def test_a_bucket_skipped_now_is_due_when_a_later_period_crawls_it():
    b = np.full((3, 4), 10.0)
    x = np.array([[5.0, 5.0, 5.0], [0.0, 0.0, 10.0], [0.0, 0.0, 0.0]])  # buckets 150, 200, 250
    plan = Solution(x=x, z=np.zeros(3), y=np.zeros((3, 4)), n=np.zeros(4), b=b, objective=0.0)
    inputs = period_inputs(plan, [150, 200, 250], period_seconds=60.0)
    assert inputs.interval(150) == 120.0  # half the pages each period: every two periods
    assert inputs.interval(200) == 120.0  # first crawled in period 2: due then
    assert math.isinf(inputs.interval(250))  # never in this plan
    auto = as_recrawl_plan(inputs, RecrawlPlan(first_interval=7.0))
    assert auto.revisit_interval(UNKNOWN) == 7.0  # pages not yet recrawled: as before


def test_plan_auto_resolves_each_period_from_the_live_history(tmp_path):
    settings = settings_for(tmp_path)
    site, until = changing_site()
    with LoopbackWeb([site]) as web:
        history_crawl(settings, until, web.url(ADDRESS, "/"))  # uniform recrawl: history to start from
        before = rows(settings)
        auto = dataclasses.replace(settings, plan="auto", recrawl="buckets", plan_strategy=2,
                                   hours=4.0 / 3600, plan_cycle=0.6)
        recrawler = driven_crawl(auto, web.url(ADDRESS, "/"))
    after = rows(settings)
    driver = recrawler.replanner
    assert driver.solves >= 2 and driver.failures == 0
    in_force = recrawler.policy.plan  # the last solve's share (at most --recrawl-share), the live table
    assert driver.installed[-1].share > auto.recrawl_share  # the model wanted more turns for recrawls
    assert in_force.share == min(driver.installed[-1].share, auto.recrawl_share)
    # the history grew between the solves, and the model's own solution follows it: the
    # changing pages' bucket is revisited more often than the unchanging pages' bucket (under
    # the freshness objective only its share is put in force, below)
    fast, slow = after["/fast0"]["change_bucket"], after["/slow0"]["change_bucket"]
    assert fast != slow and after["/fast0"]["times_fetched"] > before["/fast0"]["times_fetched"]
    last = driver.installed[-1]
    assert last.revisit[fast] < last.revisit[slow]
    # in force between solves (freshness objective): the period's allocation re-divided on the
    # live bucket counts, the fallback's table, at the model's share (model_driver._live)
    assert driver.cho is not None and in_force.revisit == driver.cho.revisit
    assert recrawler.queues.share == min(last.share, auto.recrawl_share)


def test_the_models_share_is_capped_by_the_first_pass_share(tmp_path):
    """New pages first under --plan auto too: the model's share of a server's turns for
    recrawls is put in force only up to --recrawl-share (model_driver._first_pass); with
    --recrawl-share 1 it is the model's own."""
    settings = settings_for(tmp_path)
    site, until = changing_site()
    with LoopbackWeb([site]) as web:
        history_crawl(settings, until, web.url(ADDRESS, "/"))
        for share in (1.0, 0.1):
            auto = dataclasses.replace(settings, plan="auto", recrawl="buckets", recrawl_share=share,
                                       hours=2.0 / 3600, plan_cycle=0.6)
            recrawler = driven_crawl(auto, web.url(ADDRESS, "/"))
            modelled = recrawler.replanner.installed[-1].share
            assert modelled > 0.1  # no new pages here: the model gives the recrawls every turn
            in_force = modelled if share == 1.0 else 0.1
            assert recrawler.queues.share == recrawler.policy.plan.share == in_force


def test_a_solver_failure_mid_run_keeps_the_previous_plan(tmp_path):
    settings = settings_for(tmp_path)
    calls = itertools.count()

    def fails_after_the_first(data):  # a real Ipopt run, stopped after one iteration
        return solve(data, max_iter=3000 if next(calls) == 0 else 1)

    site, until = changing_site()
    with LoopbackWeb([site]) as web:
        history_crawl(settings, until, web.url(ADDRESS, "/"))
        auto = dataclasses.replace(settings, plan="auto", recrawl="buckets", hours=3.0 / 3600,
                                   plan_cycle=0.6)
        middle = rows(settings)
        recrawler = driven_crawl(auto, web.url(ADDRESS, "/"), fails_after_the_first)
    driver = recrawler.replanner
    assert driver.solves == 1 and driver.failures >= 1 and "Ipopt" in driver.last_error
    assert driver.installed[0] == driver.plan  # kept through the failures
    kept = recrawler.policy.plan  # its share (at most --recrawl-share); the buckets' live table
    assert kept.share == min(driver.plan.share, auto.recrawl_share)
    assert driver.cho is not None and kept.revisit == driver.cho.revisit
    after = rows(settings)
    assert sum(r["times_fetched"] for r in after.values()) > sum(
        r["times_fetched"] for r in middle.values())  # the crawl went on
