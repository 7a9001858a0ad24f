"""The one-byte change bucket: right direction, more certain with history, a second to a year;
the irregular-interval estimate and the probe of pages seen changed at every recrawl."""

from __future__ import annotations

import math

import numpy as np
import pytest

from webcrawler.recrawl.buckets import (
    UNKNOWN,
    History,
    bucket,
    bucket_of_interval,
    change_rate,
    interval_of_bucket,
    resolution,
)
from webcrawler.recrawl.changes import Change
from webcrawler.recrawl.policies import PROBES, Fetched, RecrawlPlan, make_policy, needs_probe
from webcrawler.recrawl.replan import PROBE_FRACTION, probe_interval


def history(recrawls: int, changes: int, every: float = 60.0) -> History:
    return History(fetches=recrawls + 1, changes=changes, span=recrawls * every)


def test_no_history_is_the_unknown_bucket() -> None:
    assert bucket(History(fetches=1, changes=0, span=0.0)) == UNKNOWN


def test_buckets_span_a_second_to_a_year() -> None:
    assert bucket_of_interval(1.0) == 1
    assert interval_of_bucket(bucket_of_interval(365 * 86400.0)) > 300 * 86400.0
    assert bucket_of_interval(10 * 365 * 86400.0) == 255


def test_a_page_that_always_changes_moves_to_faster_buckets() -> None:
    seen = [bucket(history(n, n)) for n in (1, 4, 16, 64)]
    assert seen == sorted(seen, reverse=True) and seen[0] > seen[-1]
    assert interval_of_bucket(seen[-1]) < 60.0  # faster than we looked: the estimator saw it


def test_a_page_that_never_changes_moves_to_slower_buckets() -> None:
    seen = [bucket(history(n, 0)) for n in (1, 4, 16, 64)]
    assert seen == sorted(seen) and seen[0] < seen[-1]


def test_resolution_grows_with_history() -> None:
    steps = [resolution(n) for n in (1, 4, 16, 100, 400, 1000)]
    assert steps == sorted(steps, reverse=True)
    assert steps[0] > 1 and steps[-1] == 1
    # few recrawls: neighbouring rates share a coarse bucket; many tell them apart
    assert bucket(history(2, 1, 60.0)) == bucket(history(2, 1, 75.0))
    assert bucket(history(900, 450, 60.0)) != bucket(history(900, 450, 75.0))


def test_policies_schedule_as_documented() -> None:
    plan = RecrawlPlan(first_interval=10.0)
    changed = Fetched(Change.CHANGED, bucket_of_interval(100.0), last_interval=20.0)
    same = Fetched(Change.UNMODIFIED, bucket_of_interval(100.0), last_interval=20.0)
    assert make_policy("none", plan).next_due(0.0, changed) is None
    assert make_policy("uniform", plan).next_due(5.0, changed) == 5.0
    adaptive = make_policy("adaptive", plan)
    assert adaptive.next_due(0.0, changed) < 20.0 < adaptive.next_due(0.0, same)
    assert 90.0 < make_policy("buckets", plan).next_due(0.0, changed) < 110.0
    assert make_policy("buckets", plan).next_due(0.0, Fetched(None, UNKNOWN, None)) == 10.0
    model = RecrawlPlan(revisit=tuple(float(b) for b in range(256)))  # the model's seam
    assert make_policy("buckets", model).next_due(0.0, changed) == float(changed.bucket)


def test_equal_intervals_give_cho_and_garcia_molinas_estimate() -> None:
    # 4 recrawls of 60 s, 2 changed: -ln((4 - 2 + 0.5) / (4 + 1)) / 60 = ln 2 / 60
    kept = History(fetches=5, changes=2, span=240.0, changed_span=120.0, shortest_change=60.0)
    assert change_rate(kept) == pytest.approx(math.log(2) / 60, rel=1e-9)
    assert change_rate(History(fetches=5, changes=2, span=240.0)) == pytest.approx(math.log(2) / 60)
    # never changed: -ln(4.5 / 5) / 60
    assert change_rate(history(4, 0)) == pytest.approx(-math.log(0.9) / 60)


def test_one_changed_recrawl_of_its_own_length() -> None:
    # changed in 2 s, unchanged for 18: the slope 1.5 * 2 / (e^(2 l) - 1) - 18 - 0.5 * 2 = 0
    # gives e^(2 l) = 1 + 3 / 19; equal intervals would have said ln 2 / 10 (-ln(1.5 / 3) / 10)
    short = History(fetches=3, changes=1, span=20.0, changed_span=2.0, shortest_change=2.0)
    assert change_rate(short) == pytest.approx(math.log(22 / 19) / 2, rel=1e-9)
    long = History(fetches=3, changes=1, span=20.0, changed_span=18.0, shortest_change=18.0)
    assert change_rate(long) == pytest.approx(math.log(38 / 11) / 18, rel=1e-9)
    assert change_rate(long) < math.log(2) / 10 < change_rate(short)


def test_a_change_within_a_short_probe_marks_a_fast_page() -> None:
    # changed in both a 20 s recrawl and a 2 s probe: the probe's term alone,
    # 1.5 * 2 / (e^(2 l) - 1) = 0.5 * 2, gives e^(2 l) = 4; the long one adds ~1e-5
    probed = History(fetches=3, changes=2, span=22.0, changed_span=22.0, shortest_change=2.0)
    rate = change_rate(probed)
    assert rate is not None and math.log(4) / 2 < rate < 1.001 * math.log(4) / 2
    unprobed = change_rate(History(fetches=3, changes=2, span=40.0, changed_span=40.0,
                                   shortest_change=20.0))  # Cho: -ln(0.5 / 3) / 20
    assert unprobed == pytest.approx(math.log(6) / 20)
    assert bucket(probed) < bucket(History(3, 2, 40.0, 40.0, 20.0))


def test_pages_seen_changed_at_every_recrawl_are_probed_until_a_short_one() -> None:
    assert needs_probe(History(2, 1, 60.0, 60.0, 60.0), probe=10.0)
    assert not needs_probe(History(2, 1, 60.0, 60.0, 60.0), probe=0.0)  # no probes in the plan
    assert not needs_probe(History(3, 2, 70.0, 70.0, 10.0), probe=10.0)  # changed within a probe
    assert not needs_probe(History(3, 1, 120.0, 60.0, 60.0), probe=10.0)  # one saw no change
    assert not needs_probe(History(PROBES + 2, PROBES + 1, 600.0, 600.0, 100.0), probe=10.0)
    assert not needs_probe(History(1, 0, 0.0), probe=10.0)  # never recrawled
    plan = RecrawlPlan(revisit=tuple([100.0] * 256), probe=10.0)
    page = History(2, 1, 60.0, 60.0, 60.0)
    assert make_policy("buckets", plan).next_due(0.0, Fetched(Change.CHANGED, 50, 60.0, page)) == 10.0
    done = History(3, 2, 70.0, 70.0, 10.0)
    assert make_policy("buckets", plan).next_due(0.0, Fetched(Change.CHANGED, 50, 10.0, done)) == 100.0


def test_the_probe_is_a_fraction_of_the_shortest_revisit() -> None:
    table = tuple([0.0] + [500.0] * 40 + [80.0, 60.0, 90.0] + [400.0] * 212)
    assert probe_interval(table, np.ones(256, dtype=np.int64)) == pytest.approx(PROBE_FRACTION * 60.0)


def test_the_probe_reads_only_buckets_that_hold_pages() -> None:
    """The table has an interval for every bucket, empty ones included; on a web of slow pages
    the shortest is an empty bucket's, far shorter than any page is visited."""
    table = tuple([0.0] + [0.8] * 40 + [80.0, 60.0, 90.0] + [400.0] * 212)
    counts = np.zeros(256, dtype=np.int64)
    counts[[41, 43, 100]] = (3, 2, 7)  # the buckets at 80 s, 90 s and 400 s hold pages
    assert probe_interval(table, counts) == pytest.approx(PROBE_FRACTION * 80.0)
    assert probe_interval(table, np.zeros(256, dtype=np.int64)) == pytest.approx(
        PROBE_FRACTION * 0.8)  # no page in a known bucket: every bucket


def test_a_recrawl_extends_the_history_the_estimate_reads() -> None:
    start = History(fetches=2, changes=1, span=60.0, changed_span=60.0, shortest_change=60.0)
    changed = start.after(20.0, True, ages=5.0)
    assert changed == History(3, 2, 80.0, 80.0, 20.0, 5.0)  # the short change is the shortest now
    assert start.after(20.0, False, ages=None) == History(3, 1, 80.0, 60.0, 60.0, None)
    assert History(1, 0, 0.0).after(30.0, True, None) == History(2, 1, 30.0, 30.0, 30.0)
