"""Issue 35: an incremental crawl spends its `--fetch-rate`, whatever the policy or the plan.

Each crawl runs in this process (`run_index`, as `webcrawler index --incremental` runs it) on
a loopback changing web (tests/support/changeweb.py, its "flat" spread: a fifth of the
pages never change, the rest change every few seconds to a few minutes here) with a minimum
revisit interval longer than a plan's first recrawl, the case in which the crawl used to idle:
the page at the head of the schedule was held by `min_revisit` and nothing behind it was
pulled ahead. The assertions count requests (the server's log and the crawl's own count) with
a wide margin below the cap: the machine may be slow, never the crawl idle.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from bench.freshness_measure import read_log
from tests.export.conftest import webcrawler
from tests.support.changeweb import ChangingWeb
from tests.support.genweb_server import GenWebServer
from webcrawler.commands.index import run_index
from webcrawler.config.agent_config import agent_config
from webcrawler.database.schema import connect
from webcrawler.engine.loop.crawl import IDLE_POLL
from webcrawler.engine.loop.index_hooks import index_loop
from webcrawler.engine.loop.policies import NullSink
from webcrawler.engine.loop.pool import AgentPool
from webcrawler.engine.store.sql import CrawlStore
from webcrawler.recrawl.buckets import UNKNOWN
from webcrawler.recrawl.policies import RecrawlPlan
from webcrawler.recrawl.queues import gain
from webcrawler.recrawl.recrawler import incremental
from webcrawler.recrawl.replan import fit_to_bandwidth
from webcrawler.settings import Settings

RATE = 12.0  # fetches a second: the cap every crawl here must spend
SECONDS = 8.0
SPENT = 0.6  # of the cap, at least, over the run (first crawl included)


def crawl(tmp_path: Path, recrawl: str, address: str, **more: object) -> tuple[str, Counter[str], Path]:
    """One bounded incremental crawl; (its summary, page requests by URL, the data dir)."""
    data, log_path = tmp_path / "data", tmp_path / "requests.log"
    web = ChangingWeb(servers=3, pages_per_server=8, links_per_page=4, page_bytes=1500, spread="flat",
                      first_address=address, day_seconds=6.0, epoch=time.time(), log_path=str(log_path))
    with GenWebServer(web) as served:
        settings = Settings(data_dir=data, agents=3, delay=0.0, hours=SECONDS / 3600, commit_every=20,
                            progress_interval=60.0, seeds=(served.seed_url,),
                            include=(served.include_pattern,), incremental=True, recrawl=recrawl,
                            fetch_rate=RATE, min_revisit=1.5, connect_timeout=2.0, read_timeout=2.0,
                            total_timeout=5.0)
        summary, _ = run_index(dataclasses.replace(settings, **more), progress=False)
    fetched = Counter({url: len(answers) for url, answers in read_log(log_path).by_url.items()})
    return summary, fetched, data


@pytest.mark.parametrize(("recrawl", "address"), [("uniform", "127.0.45.0"), ("adaptive", "127.0.45.16"),
                                                  ("buckets", "127.0.45.32")])
def test_every_policy_spends_the_fetch_rate(tmp_path: Path, recrawl: str, address: str) -> None:
    summary, fetched, data = crawl(tmp_path, recrawl, address)
    assert sum(fetched.values()) >= SPENT * RATE * SECONDS, (recrawl, sum(fetched.values()), summary)
    assert max(fetched.values()) >= 3  # recrawled, not only found
    assert "per second of the cap's 12" in summary
    stats = webcrawler("stats", "--data-dir", str(data)).stdout.decode()
    assert "of the cap's 12" in stats, stats


def test_a_plan_that_asks_for_little_still_spends_the_bandwidth(tmp_path: Path) -> None:
    """A plan (as the model's may be) that recrawls the pages changing within 16 s as often as
    min_revisit allows and the others an hour after their last fetch, and nothing to replan
    it: the idle bandwidth goes to the pages whose refetch gains most."""
    log_path = tmp_path / "requests.log"
    web = ChangingWeb(servers=3, pages_per_server=8, links_per_page=4, page_bytes=1500, spread="flat",
                      first_address="127.0.45.48", day_seconds=6.0, epoch=time.time(),
                      log_path=str(log_path))
    plan = RecrawlPlan(first_interval=1.0, revisit=(1.0,) * 41 + (3600.0,) * 215)
    with GenWebServer(web) as served:
        settings = Settings(data_dir=tmp_path / "data", agents=3, delay=0.0, hours=SECONDS / 3600,
                            commit_every=20, progress_interval=60.0, incremental=True,
                            recrawl="buckets", fetch_rate=RATE, min_revisit=1.5,
                            include=(served.include_pattern,))
        settings.data_dir.mkdir(parents=True)
        engine = connect(settings.database_url)
        store = CrawlStore(engine)
        try:
            ordering, recrawler = incremental(store, NullSink(), "buckets", plan, RATE, 1.5)
            recrawler.load()
            loop = index_loop(settings, store, ordering=ordering, recrawl=recrawler)
            loop.add_seeds([served.seed_url])
            stats = loop.run()
        finally:
            store.close()
            engine.dispose()
    fetched = sum(len(answers) for answers in read_log(log_path).by_url.values())
    assert fetched >= SPENT * RATE * SECONDS, (fetched, stats.requests)
    assert recrawler.stats.recrawled >= fetched - 24  # beyond the first fetches: recrawls


def test_gain_is_small_for_pages_that_never_change_and_for_pages_too_fast_to_follow() -> None:
    since, until = 60.0, 60.0
    middling = gain(1 / 120, since, until)
    assert gain(0.0, since, until) == 0.0
    assert gain(1e-7, since, until) < middling / 100  # never seen to change
    assert gain(1.0, since, until) < middling / 10  # changes every second: stale again at once
    assert gain(1 / 120, 5.0, until) < middling  # fetched just now: probably still fresh
    assert math.isclose(gain(1 / 120, since, 0.0), 0.0)  # due now anyway: nothing to gain


@pytest.mark.parametrize("bandwidth", [0.5, 3.0, 40.0])
def test_a_revisit_table_is_scaled_until_it_asks_for_the_bandwidth(bandwidth: float) -> None:
    table = tuple([10.0] + [600.0] * 100 + [3600.0] * 100 + [1e7] * 55)  # 1e7: never
    counts = np.zeros(256, dtype=np.int64)
    counts[[UNKNOWN, 5, 150, 250]] = [4, 30, 50, 40]
    fitted = np.array(fit_to_bandwidth(table, counts, bandwidth, shortest=1.0, longest=1e7))
    demand = float(np.dot(counts, 1.0 / fitted))
    assert demand == pytest.approx(bandwidth, rel=1e-6)
    assert fitted[UNKNOWN] == 10.0 and fitted[250] == 1e7  # first recrawls and "never" stay
    assert fitted[5] == 1.0 or fitted[150] / fitted[5] == pytest.approx(6.0)  # proportions kept
    assert fitted[150] > fitted[5]  # ... unless held at the shortest


def test_a_table_that_cannot_spend_the_bandwidth_goes_as_short_as_allowed() -> None:
    table = tuple([10.0] + [600.0] * 255)
    counts = np.zeros(256, dtype=np.int64)
    counts[[5, 150]] = [3, 3]
    fitted = fit_to_bandwidth(table, counts, 100.0, shortest=2.0, longest=1e7)
    assert fitted[5] == fitted[150] == 2.0


class CountingPool(AgentPool):
    """The real agents, counting the loop's waits for answers (one per turn of the loop)."""

    polls = 0

    def poll(self, timeout: float) -> list:
        CountingPool.polls += 1
        return super().poll(timeout)


def test_a_paced_crawl_sleeps_until_its_next_fetch_instead_of_spinning(tmp_path: Path) -> None:
    """Issue 36: waiting for the pace's next slot, the loop turned 2,500 times a second (a
    cooled server's time, already past, cut every wait to nothing): 74 ms of CPU a request."""
    web = ChangingWeb(servers=3, pages_per_server=8, links_per_page=4, page_bytes=1500, spread="flat",
                      first_address="127.0.45.64", day_seconds=6.0, epoch=time.time())
    with GenWebServer(web) as served:
        settings = Settings(data_dir=tmp_path / "data", agents=3, delay=0.0, hours=5.0 / 3600,
                            commit_every=20, progress_interval=60.0, incremental=True,
                            recrawl="uniform", fetch_rate=4.0, min_revisit=0.0,
                            include=(served.include_pattern,))
        settings.data_dir.mkdir(parents=True)
        engine = connect(settings.database_url)
        store = CrawlStore(engine)
        CountingPool.polls = 0
        try:
            ordering, recrawler = incremental(store, NullSink(), "uniform", RecrawlPlan(), 4.0, 0.0)
            recrawler.load()
            pool = lambda: CountingPool(settings.agents, agent_config(settings),  # noqa: E731
                                        settings.robots_token, deadline=settings.deadline())
            loop = index_loop(settings, store, ordering=ordering, recrawl=recrawler, pool_factory=pool)
            loop.add_seeds([served.seed_url])
            stats = loop.run()
        finally:
            store.close()
            engine.dispose()
    assert stats.requests >= 8  # it crawled
    # a turn per request and answer, and one per IDLE_POLL at most besides: never thousands
    assert CountingPool.polls <= 4 * stats.requests + 5.0 / IDLE_POLL * 2 + 20, (CountingPool.polls,
                                                                                  stats.requests)
