"""Cho and Garcia-Molina's optimal revisit frequencies (allocation.py) and the `buckets`
policy installing them from the crawl's bucket counts (replan.py)."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import insert

from webcrawler.database.schema import connect, documents, sqlite_url
from webcrawler.database.states import State
from webcrawler.engine.records import ServerState
from webcrawler.engine.store.sql import CrawlStore
from webcrawler.recrawl.allocation import allocate, freshness, g, g_inverse, multiplier
from webcrawler.recrawl.buckets import UNKNOWN
from webcrawler.recrawl.policies import Buckets, Fetched, RecrawlPlan
from webcrawler.recrawl.recrawler import Recrawler
from webcrawler.recrawl.replan import PERIOD, RATES, recrawl_bandwidth, revisit_table


def test_g_inverse_inverts_g_over_its_range() -> None:
    y = np.array([1e-10, 1e-6, 1e-3, 0.1, 0.5, 0.9, 0.99999])
    assert np.allclose(g(g_inverse(y)), y, rtol=1e-9, atol=0)
    assert g_inverse(np.array([1.0]))[0] == np.inf and g_inverse(np.array([0.0]))[0] == 0.0


@pytest.mark.parametrize("bandwidth", [0.01, 1.0, 7.5, 12.0, 300.0])
def test_allocation_spends_exactly_the_bandwidth(bandwidth: float) -> None:
    rates = np.array([1 / 3600, 1 / 600, 1 / 60, 1 / 10, 1.0, 5.0])
    counts = np.array([40, 3, 17, 25, 9, 60])
    f = allocate(rates, counts, bandwidth)
    assert (f >= 0).all()
    assert float(np.dot(counts, f)) == pytest.approx(bandwidth, rel=1e-12)


@pytest.mark.parametrize("bandwidth", [4.0, 5.0, 6.0])
def test_a_bandwidth_inside_the_jump_at_the_threshold_is_spent_exactly(bandwidth: float) -> None:
    """Near mu l = 1 floats resolve f only in steps (bucket 1 jumps from about l / 37 to 0
    between 3.9 and 6.7 here): the allocation mixes the two sides of the jump."""
    rates = RATES[[1, 60, 100, 180]]
    counts = np.array([100, 30, 50, 100])
    f = allocate(rates, counts, bandwidth)
    assert float(np.dot(counts, f)) == pytest.approx(bandwidth, rel=1e-12)
    assert 0 < f[0] < rates[0] / 30


def test_pages_changing_too_fast_get_nothing() -> None:
    rates = np.array([1 / 1000, 1 / 100, 10.0, 100.0])
    counts = np.array([50, 50, 50, 50])
    f = allocate(rates, counts, 2.0)  # 200 pages, one visit per 100 s each on average
    assert f[0] > 0 and f[1] > 0
    assert f[2] == 0 and f[3] == 0  # visiting them buys less freshness than the slow ones
    mu = multiplier(rates, counts, 2.0)
    assert (f == 0).tolist() == (mu * rates >= 1).tolist()


def test_equal_rates_are_visited_uniformly() -> None:
    f = allocate(np.full(5, 1 / 30), np.array([1, 2, 3, 4, 10]), 4.0)
    assert np.allclose(f, 4.0 / 20)


@pytest.mark.parametrize("pair", [(0.02, 0.5), (0.02, 0.08), (0.3, 0.01)])
def test_two_buckets_match_brute_force(pair: tuple[float, float]) -> None:
    """The optimum against a grid search over every split of the bandwidth between two buckets
    (the first instance leaves its fast bucket alone, the others visit both)."""
    rates, counts, bandwidth = np.array(pair), np.array([30, 10]), 1.2
    split = np.linspace(0.0, 1.0, 200001)  # bucket 0's share of the bandwidth
    f0, f1 = split * bandwidth / counts[0], (1 - split) * bandwidth / counts[1]
    total = counts[0] * freshness(rates[0], f0) + counts[1] * freshness(rates[1], f1)
    best = int(np.argmax(total))
    f = allocate(rates, counts, bandwidth)
    ours = float(np.dot(counts, freshness(rates, f)))
    assert ours >= float(total[best]) - 1e-9
    assert f == pytest.approx([f0[best], f1[best]], rel=1e-3, abs=1e-5)


def test_frequency_rises_then_falls_with_the_change_rate() -> None:
    """The paper's Figure: more visits for faster pages up to a point, then fewer, then none."""
    rates = np.logspace(-4, 2, 61)
    f = allocate(rates, np.ones_like(rates), 1.0)
    peak = int(np.argmax(f))
    assert 0 < peak < len(rates) - 1
    assert (np.diff(f[: peak + 1]) > 0).all()
    assert (np.diff(f[peak:]) <= 0).all()
    assert f[-1] == 0


def test_no_bandwidth_or_no_pages_allocates_nothing() -> None:
    assert not allocate([0.1, 0.2], [5, 5], 0.0).any()
    assert not allocate([0.1, 0.2], [0, 0], 3.0).any()


def test_recrawl_bandwidth_leaves_new_urls_their_part_and_the_recrawl_its_share() -> None:
    plan = RecrawlPlan(share=0.5, first_interval=10.0)
    assert recrawl_bandwidth(plan, 10.0, 2.0, 0) == pytest.approx(8.0)
    assert recrawl_bandwidth(plan, 10.0, 9.0, 0) == pytest.approx(5.0)  # the recrawl's share
    assert recrawl_bandwidth(plan, 10.0, 2.0, 30) == pytest.approx(8.0 - 3.0)  # unknown pages
    assert recrawl_bandwidth(plan, 10.0, 2.0, 1000) == pytest.approx(4.0)  # at most half


class Woken:
    """The scheduler's side of `tick`: which servers got recrawl work."""

    def __init__(self) -> None:
        self.servers: list[int] = []

    def work_added(self, server: ServerState, now: float) -> None:
        self.servers.append(server.id)


def test_the_buckets_policy_installs_intervals_from_the_bucket_counts(tmp_path: Path) -> None:
    """A real store with pages in three buckets (and unknown ones): after a period the policy's
    plan holds the optimum's table for those counts, and schedules pages by it."""
    engine = connect(sqlite_url(tmp_path / "crawl.db"))
    store = CrawlStore(engine)
    try:
        now = time.time()
        server = store.add_server("http://127.0.11.9:8080", now)
        per_bucket = {UNKNOWN: 4, 60: 10, 120: 20, 200: 30}  # 0: unknown; 60: ~1 min; 120, 200 slower
        store.conn.execute(insert(documents), [
            dict(server_id=server.id, path=f"/{b}/{i}", state=State.FETCHED, depth=1,
                 discovered_at=now, last_fetch=now, change_bucket=b, next_due=now + 3600)
            for b, n in per_bucket.items() for i in range(n)])
        store.commit()
        plan = RecrawlPlan(share=0.5, first_interval=10.0)
        policy = Buckets(plan)
        recrawler = Recrawler(store, None, policy, plan, fetch_rate=2.0)  # type: ignore[arg-type]
        assert recrawler.load() == sum(per_bucket.values())
        woken = Woken()
        recrawler.tick(woken, 100.0, 0)
        assert policy.plan.revisit == ()  # nothing measured yet
        recrawler.tick(woken, 100.0 + PERIOD, 0)
        assert woken.servers == []  # nothing was due
        counts = np.zeros(256)
        for b, n in per_bucket.items():
            counts[b] = n
        expected = revisit_table(plan, counts, recrawl_bandwidth(plan, 2.0, 0.0, 4))
        assert policy.plan.revisit == pytest.approx(expected)
        assert expected[UNKNOWN] == plan.first_interval
        f = allocate(RATES[[60, 120, 200]], [10, 20, 30], 2.0 - 4 / 10.0)
        assert [1 / expected[b] for b in (60, 120, 200)] == pytest.approx(f.tolist())
        assert policy.next_due(50.0, Fetched(None, 120, None)) == pytest.approx(50.0 + 1 / f[1])
    finally:
        store.close()
        engine.dispose()


def test_a_bucket_left_alone_is_visited_as_rarely_as_the_slowest_and_the_table_spends_the_bandwidth(
) -> None:
    plan = RecrawlPlan(first_interval=10.0)
    counts = np.zeros(256)
    counts[[UNKNOWN, 1, 60, 100, 180]] = [5, 100, 30, 50, 100]  # bucket 1: a change a second
    table = revisit_table(plan, counts, 3.0)
    assert table[UNKNOWN] == plan.first_interval
    known = [b for b in range(1, 256) if counts[b]]
    assert table[1] == pytest.approx(max(table[b] for b in known))  # the floor, not a year
    assert table[1] < plan.max_interval
    assert sum(counts[b] / table[b] for b in known) == pytest.approx(3.0, rel=1e-6)
    assert allocate(RATES[known], counts[known], 3.0)[0] == 0  # the optimum alone leaves it
