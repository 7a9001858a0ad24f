"""Change ages from Last-Modified (recrawl/lastmod.py) and the dated estimator they feed
(buckets.change_rate): hand-computed maximum-likelihood values and the trust rules."""

from __future__ import annotations

import dataclasses
import math
from email.utils import formatdate

import pytest

from webcrawler.recrawl.buckets import History, bucket, change_rate
from webcrawler.recrawl.lastmod import (
    UNTRUSTED,
    VOUCH_PASSES,
    ServerDates,
    ages_after,
    change_age,
    date_test,
    http_date,
    stored_ages,
)
from webcrawler.recrawl.recrawler import _Before, _history_after

NOW = 1_795_000_000.0
LAST = NOW - 100.0  # the previous fetch
OLD = formatdate(NOW - 500.0, usegmt=True)  # the date stored with it


def test_dated_estimate_is_changes_over_ages_plus_unchanged_seconds() -> None:
    # 3 recrawls over 300 s: changed ones of 50 and 150 s whose last changes were 10 and 20 s
    # old, an unchanged one of 100 s: rate = 2 / (10 + 20 + 100)
    dated = History(fetches=4, changes=2, span=300.0, changed_span=200.0, shortest_change=50.0,
                    change_ages=30.0)
    assert change_rate(dated) == pytest.approx(2 / 130, rel=1e-12)
    # the same recrawls undated keep the irregular-interval estimate (slower here: 0.0117)
    rate = change_rate(History(4, 2, 300.0, 200.0, 50.0))
    assert rate is not None and rate < 0.9 * 2 / 130
    # a page seen changed at every recrawl, each change a second old, and one unchanged recrawl
    # of 1000 s (its date stayed put: tested): 3 / (3 + 1000), not ln(2n) / I
    fast = History(fetches=5, changes=3, span=4000.0, changed_span=3000.0, shortest_change=1000.0,
                   change_ages=3.0)
    assert change_rate(fast) == pytest.approx(3 / 1003)
    assert bucket(fast) < bucket(History(5, 3, 4000.0, 3000.0, 1000.0))
    # nothing changed yet: the dates say nothing, the interval estimate stands
    still = History(fetches=4, changes=0, span=300.0, change_ages=0.0)
    assert change_rate(still) == pytest.approx(-math.log(3.5 / 4) / 100)


def test_dates_never_tested_by_an_unchanged_recrawl_only_slow_the_estimate() -> None:
    # changed at every recrawl, each date a second old: a clock line's tick passes every check
    # (lastmod.py) but dates the tick, not the change. The shingles' estimate stands ...
    ticking = History(fetches=4, changes=3, span=3000.0, changed_span=3000.0, shortest_change=1000.0,
                      change_ages=3.0)
    undated = History(4, 3, 3000.0, 3000.0, 1000.0)
    assert change_rate(ticking) == change_rate(undated)
    assert bucket(ticking) == bucket(undated)
    # ... unless the untested dates say slower (old ages): the slower of the two
    aged = History(fetches=4, changes=3, span=3000.0, changed_span=3000.0, shortest_change=1000.0,
                   change_ages=2700.0)
    rate = change_rate(undated)
    assert rate is not None and change_rate(aged) == pytest.approx(3 / 2700) and 3 / 2700 < rate


def test_a_server_that_vouches_for_its_dates_has_them_trusted_on_pages_changed_at_every_recrawl(
        ) -> None:
    # changed at every recrawl, each change dated a minute back: the shingles alone say faster
    # (three changes in three 100 s recrawls), and the untested dates only slow that ...
    ticking = History(fetches=4, changes=3, span=300.0, changed_span=300.0, shortest_change=100.0,
                      change_ages=180.0)
    shingled = change_rate(History(4, 3, 300.0, 300.0, 100.0))
    assert shingled is not None and shingled > 3 / 180
    assert change_rate(ticking) == pytest.approx(3 / 180)
    # ... a vouched server's dates are the changes' own: they also speed it up
    fast = History(fetches=4, changes=3, span=3000.0, changed_span=3000.0, shortest_change=1000.0,
                   change_ages=3.0)
    assert change_rate(dataclasses.replace(fast, dates_vouched=True)) == pytest.approx(3 / 3.0)
    assert change_rate(fast) == change_rate(History(4, 3, 3000.0, 3000.0, 1000.0))
    assert History(1, 0, 0.0, dates_vouched=True).after(10.0, True, 1.0).dates_vouched


def test_a_recrawl_tests_its_servers_dates_only_where_the_page_still_trusts_them() -> None:
    assert date_test(7.0, 7.0, False, OLD) is True  # unchanged, the date stayed put
    assert date_test(7.0, None, False, formatdate(NOW - 20.0)) is False  # a clock line moved it
    assert date_test(7.0, None, True, OLD) is False  # a change the date did not follow
    assert date_test(7.0, 26.5, True, formatdate(NOW - 20.0)) is None  # a clock moves with it too
    assert date_test(None, None, False, OLD) is None  # untrusted already: failed once
    assert date_test(7.0, 7.0, False, None) is None  # no date: nothing tested


def test_a_server_vouches_after_enough_passes_and_no_fail() -> None:
    dates = ServerDates()
    for _ in range(VOUCH_PASSES - 1):
        dates.add("honest", True)
        dates.add("clock", True)
        dates.add("honest", None)
    assert not dates.vouched("honest")
    dates.add("honest", True)
    dates.add("clock", True)
    dates.add("clock", False)  # one clock page among its pages
    assert dates.vouched("honest") and not dates.vouched("clock") and not dates.vouched("unseen")


def test_an_age_is_the_middle_of_what_a_whole_second_date_allows() -> None:
    assert change_age(10.0, gap=100.0) == 9.5  # the change came 0-1 s after the stated second
    assert change_age(0.6, gap=100.0) == 0.3  # not before the fetch's own second
    assert change_age(10.0, gap=4.0) == 4.0  # not before the previous fetch


def test_a_real_change_with_a_moved_date_adds_its_age() -> None:
    new = formatdate(NOW - 20.0, usegmt=True)
    assert ages_after(7.0, OLD, new, True, NOW, LAST) == pytest.approx(7.0 + 19.5)
    assert http_date(new) == NOW - 20.0


@pytest.mark.parametrize("new, changed, why", [
    (formatdate(NOW - 20.0, usegmt=True), False, "a trivial change (or none) moved the date"),
    (formatdate(NOW + 3600.0, usegmt=True), True, "a date in the future"),
    (OLD, True, "a real change did not move the date"),
    (formatdate(LAST - 60.0, usegmt=True), True, "a date before the previous fetch"),
    (None, True, "a real change without a date"),
    ("not a date", True, "a date that does not parse"),
])
def test_dates_that_disagree_with_the_shingles_make_the_page_untrusted(
        new: str | None, changed: bool, why: str) -> None:
    assert ages_after(7.0, OLD, new, changed, NOW, LAST) is None, why


def test_untrusted_is_for_good_and_agreeing_answers_keep_the_sum() -> None:
    assert ages_after(7.0, OLD, OLD, False, NOW, LAST) == 7.0  # identical body, same date
    assert ages_after(7.0, OLD, None, False, NOW, LAST) == 7.0  # a 304 without a date
    assert ages_after(None, OLD, formatdate(NOW - 20.0), True, NOW, LAST) is None
    assert stored_ages(None, changes=0) == 0.0  # never changed: nothing missing
    assert stored_ages(None, changes=2) is None  # changes from before the column: ages missing
    assert stored_ages(UNTRUSTED, changes=2) is None and stored_ages(12.5, changes=2) == 12.5


def _first_recrawl(last_modified: str | None, changed: bool, new_lastmod: str | None) -> History:
    fetched = 1_800_000_000.0  # the first fetch; the first recrawl a minute later
    before = _Before("fetched", "c", None, 1, 0, 0, 0, 0, fetched, fetched, fetched + 60.0, 0.0, None,
                     last_modified, 0.0)
    return _history_after(before, changed, fetched + 60.0, new_lastmod)


def test_a_trusted_last_modified_starts_the_history_before_the_first_fetch() -> None:
    """Issue 35: a page its server dates a month back was unchanged for that month, so its
    first recrawl already knows it slow; without the date it looks as fast as a minute says."""
    month_ago = formatdate(1_800_000_000.0 - 30 * 86400, usegmt=True)
    dated = _first_recrawl(month_ago, False, month_ago)
    plain = _first_recrawl(None, False, None)
    assert dated.span == pytest.approx(30 * 86400 + 60.0)
    assert plain.span == pytest.approx(60.0)
    assert bucket(dated) > bucket(plain) + 100  # slower by far more than seven octaves
    # a change the date does not follow: the dates are not trusted, the history is the fetches'
    assert _first_recrawl(month_ago, True, month_ago).span == pytest.approx(60.0)
