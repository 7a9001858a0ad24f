"""The one-byte change bucket: right direction, more certain with history, a second to a year."""

from __future__ import annotations

from webcrawler.recrawl.buckets import (
    UNKNOWN,
    History,
    bucket,
    bucket_of_interval,
    interval_of_bucket,
    resolution,
)
from webcrawler.recrawl.changes import Change
from webcrawler.recrawl.policies import Fetched, RecrawlPlan, make_policy


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
