"""Change-rate priors (issue 35): a page's server and its sitemap changefreq give it a rate
before its own history does, pooled from what the crawl saw of its group; the prior fades as
the page's own recrawls come in, and a changefreq that lies is no worse than none."""

from __future__ import annotations

import math

import pytest

from webcrawler.recrawl.buckets import UNKNOWN, History, Prior, bucket, change_rate
from webcrawler.recrawl.priors import MIN_RECRAWLS, SERVER_RECRAWLS, Evidence, changefreq


def test_changefreq_words_are_the_protocols() -> None:
    assert changefreq(" Daily ") == "daily" and changefreq("never") == "never"
    assert changefreq("fortnightly") == "" and changefreq(None) == ""


def test_a_new_page_gets_its_groups_rate_and_its_bucket() -> None:
    evidence = Evidence()
    assert evidence.prior("a", "daily") is None  # nothing seen yet: the policy's default
    for k in range(MIN_RECRAWLS):
        evidence.add("a", "daily", 60.0, k % 2 == 0)  # half the minute-long recrawls changed
        evidence.add("a", "never", 60.0, False)
    daily, never = evidence.prior("a", "daily"), evidence.prior("a", "never")
    assert daily is not None and never is not None
    n, x = MIN_RECRAWLS, MIN_RECRAWLS // 2
    n, x = n + SERVER_RECRAWLS, x + SERVER_RECRAWLS / 4  # with the server's mean: a quarter changed
    assert daily.rate == pytest.approx(-math.log((n - x + 0.5) / (n + 1)) / 60.0)
    assert never.rate < daily.rate / 5  # the groups the sitemap names are told apart
    fresh = bucket(History(1, 0, 0.0, prior=daily))
    assert fresh != UNKNOWN and fresh < bucket(History(1, 0, 0.0, prior=never))
    assert change_rate(History(1, 0, 0.0)) is None  # no prior, no rate: as before


def test_an_unlisted_group_borrows_its_servers_rate() -> None:
    evidence = Evidence()
    for _ in range(MIN_RECRAWLS):
        evidence.add("a", "weekly", 60.0, True)
    weekly, unlisted = evidence.prior("a", "weekly"), evidence.prior("a", "")
    assert weekly is not None and unlisted is not None
    assert unlisted.rate == pytest.approx(-math.log(0.5 / (SERVER_RECRAWLS + 1)) / 60.0)
    assert evidence.prior("b", "weekly") is None  # another server's pages say nothing of b's
    assert Evidence(weight=0.0).prior("a", "weekly") is None  # priors off


def test_the_prior_fades_as_the_pages_own_recrawls_come_in() -> None:
    fast = Prior(rate=1 / 60.0)  # its group changes every minute; this page never does
    gaps = [abs(math.log(change_rate(History(n + 1, 0, 60.0 * n, prior=fast)) * 60.0))
            for n in (1, 4, 16)]
    assert gaps == sorted(gaps)  # further from the group's rate with every unchanged recrawl
    alone = change_rate(History(5, 0, 240.0))
    slow = change_rate(History(5, 0, 240.0, prior=Prior(rate=1e-7)))
    assert alone is not None and slow is not None and slow < alone / 10  # a "never" group


def test_dated_changes_with_a_prior_are_the_posterior_mode() -> None:
    prior = Prior(rate=0.01, weight=2.0)
    kept = History(fetches=5, changes=2, span=240.0, changed_span=120.0, shortest_change=60.0,
                   change_ages=50.0, prior=prior)
    exposure = 2.0 * 240.0 / 4  # two mean recrawl intervals
    assert change_rate(kept) == pytest.approx((2 + 0.01 * exposure) / (50.0 + 120.0 + exposure))


def test_a_prior_rides_along_with_the_history() -> None:
    prior = Prior(rate=0.5)
    assert History(1, 0, 0.0, prior=prior).after(10.0, True, None).prior == prior


def test_a_page_dated_back_a_year_unchanged_is_slow_whatever_its_prior() -> None:
    """One recrawl whose history starts at an old Last-Modified (a year unchanged): the prior is
    worth at most `weight` changes, so the year outweighs it; a prior worth a year of its own
    rate would leave the page at half the prior's rate."""
    prior = Prior(1.0 / 300.0)  # its group changes every five minutes
    year = 365 * 86400.0
    dated = change_rate(History(2, 0, year, prior=prior))
    assert dated is not None and dated < prior.rate / 1000
    short = change_rate(History(2, 0, 60.0, prior=prior))  # a minute unchanged: the prior's half
    assert short == pytest.approx(prior.rate * 60.0 / (60.0 + 60.0), rel=1e-6)  # as before the cap
