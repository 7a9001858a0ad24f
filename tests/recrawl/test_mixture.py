"""The never-changes mixture prior (issue 35, recrawl/mixture.py): a group's share of pages that
never change, fitted from the crawl's own pages, makes a page seen unchanged slower with every
unchanged recrawl, and leaves a page seen to change as the estimator had it."""

from __future__ import annotations

import numpy as np
import pytest

from webcrawler.recrawl.buckets import History, Prior, change_rate
from webcrawler.recrawl.mixture import MIN_PAGES, Mixture, fit
from webcrawler.recrawl.priors import Evidence


def _population(static: float, pages: int = 300, seconds: float = 600.0) -> tuple[list, list]:
    """Pages observed for `seconds`: a share `static` never change, the rest Poisson with
    exponentially distributed rates of mean one in 120 s (changes counted)."""
    rng = np.random.default_rng(7)
    rates = np.where(rng.random(pages) < static, 0.0, rng.exponential(1 / 120.0, pages))
    return list(rng.poisson(rates * seconds)), [seconds] * pages


def test_the_fitted_share_follows_the_populations() -> None:
    shares = []
    for static in (0.1, 0.3, 0.6):
        mixture = fit(*_population(static))
        assert mixture is not None
        shares.append(mixture.static)
    assert shares == sorted(shares) and shares[0] < 0.25 and shares[2] > 0.45
    assert fit([0] * (MIN_PAGES - 1), [60.0] * (MIN_PAGES - 1)) is None  # too few pages


def test_p_static_grows_with_the_unchanged_span() -> None:
    mixture = Mixture(static=0.2, shape=1.0, scale=120.0)
    odds = [mixture.p_static(s) for s in (0.0, 60.0, 600.0, 60000.0)]
    assert odds[0] == pytest.approx(0.2) and odds == sorted(odds) and odds[-1] > 0.95
    assert Mixture(0.0, 1.0, 120.0).p_static(60000.0) == 0.0  # no static share: never static


def test_a_static_pages_rate_falls_below_a_changing_ones_after_unchanged_visits() -> None:
    """The same group, the same recrawls: one page unchanged at each of k, the other changed at
    one; with the mixture the unchanged page falls faster than with the single Gamma prior, and
    the changed page's estimate does not move."""
    changes, spans = _population(0.3)
    mixture = fit(changes, spans)
    assert mixture is not None
    single, mixed = Prior(1 / 120.0), Prior(1 / 120.0, mixture=mixture)
    for k in (2, 4, 8):
        still = History(k + 1, 0, 60.0 * k, prior=mixed)
        moved = History(k + 1, 1, 60.0 * k, changed_span=60.0, shortest_change=60.0, prior=mixed)
        rate_still, rate_moved = change_rate(still), change_rate(moved)
        assert rate_still is not None and rate_moved is not None and rate_still < rate_moved
        plain = change_rate(History(k + 1, 0, 60.0 * k, prior=single))
        assert plain is not None and rate_still < plain
        assert rate_moved == change_rate(History(k + 1, 1, 60.0 * k, changed_span=60.0,
                                                 shortest_change=60.0, prior=single))


def test_evidence_fits_a_groups_share_from_its_pages() -> None:
    """A server whose "never" group's pages never change and whose "hourly" ones do: the
    group's share of static pages is the higher for "never"."""
    evidence = Evidence()
    rng = np.random.default_rng(11)
    for page in range(60):
        freq = "never" if page % 2 else "hourly"
        changes = 0 if freq == "never" else int(rng.poisson(5.0))
        for k in range(1, 6):
            evidence.add("a", freq, 60.0, changes > 0 and k == 1)
        evidence.seen("a", freq, page, changes, 300.0)
    never, hourly = evidence.prior("a", "never"), evidence.prior("a", "hourly")
    assert never is not None and hourly is not None
    assert never.mixture is not None and hourly.mixture is not None
    assert never.mixture.static > 0.5 > hourly.mixture.static
    assert Evidence(mixture=False).prior("a", "never") is None  # nothing seen: no prior
