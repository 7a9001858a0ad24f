"""WebFountain's recrawl model (Edwards, McCurley, Tomlin 2001): equations, solver, strategies."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest

from webcrawler.recrawl.instances import Scenario, build
from webcrawler.recrawl.model import (
    ModelData,
    balance,
    bucket_sizes,
    new_pages,
    simulate,
    strategy_weights,
    violations,
)
from webcrawler.recrawl.solve import SolveFailed, solve


def tiny(buckets: int, periods: int, n0: float, nconst: float, capacity: float) -> ModelData:
    """A hand-sized instance: buckets of 100 and 60 pages changing fast and slowly."""
    b0 = np.array([100.0, 60.0][:buckets])
    a = np.tile(np.array([0.5, 0.1][:buckets]), (periods, 1)).T
    w = strategy_weights(1, periods)
    return ModelData(b0=b0, y0=b0 * 0.3, n0=n0, a=a, c=np.ones((buckets, periods)),
                     d=np.full(periods, 1.5), capacity=np.full(periods, capacity),
                     oldwt=np.tile(w, (buckets, 1)), newwt=w, oldnwt=np.full((buckets, periods), 0.05),
                     newnwt=np.full(periods, 0.2), nconst=nconst, p=b0 / b0.sum())


def test_balance_equation_matches_the_tree_of_figure_2_by_hand():
    # b = 1000 pages, y = 200 obsolete, x = 250 crawled, a = 10% change in the period.
    # Uncrawled (750): 150 were obsolete and stay so; of the 600 fresh, 60 change: 210 obsolete.
    # Crawled pages are fresh whether or not they changed (the change is seen).
    assert balance(200.0, 1000.0, 250.0, 0.1) == pytest.approx(210.0)
    assert balance(200.0, 1000.0, 1000.0, 0.1) == pytest.approx(0.0)
    assert balance(200.0, 1000.0, 0.0, 1.0) == pytest.approx(1000.0)


def test_one_period_of_new_pages_and_bucket_sizes_by_hand():
    data = tiny(2, 1, n0=40.0, nconst=7.0, capacity=80.0)
    sol = simulate(data, x=np.array([[20.0], [10.0]]), z=np.array([8.0]))
    # (3): 40 + 0.05 * (20 + 10) + (0.2 - 1) * 8 + 7 = 42.1;  (4): 8 new pages split 100:60.
    assert sol.n[1] == pytest.approx(42.1)
    assert sol.b[:, 1] == pytest.approx([105.0, 63.0])
    assert sol.y[:, 1] == pytest.approx([0.8 * (0.5 * 30 + 50), (50 / 60) * (0.9 * 18 + 6)])


@pytest.mark.parametrize("strategy", [1, 2, 3])
def test_every_solution_keeps_the_constraints(strategy):
    data = build(Scenario(pages=2e6, buckets=12, periods=6, crawls_per_cycle=0.8), strategy)
    sol = solve(data)
    assert violations(data, sol) == []
    used = (data.c * sol.x).sum(axis=0) + data.d * sol.z
    assert np.all(used <= data.capacity * (1 + 1e-6))  # (1)
    assert np.all(sol.x <= sol.b[:, :-1] * (1 + 1e-6))  # (5)
    assert np.all(sol.z <= sol.n[:-1] * (1 + 1e-6))  # (6)
    assert used.sum() > 0.99 * data.capacity.sum()  # a scarce crawler is kept busy


def test_violations_names_a_broken_constraint():
    data = tiny(2, 1, n0=5.0, nconst=0.0, capacity=50.0)
    assert violations(data, simulate(data, np.array([[40.0], [20.0]]), np.zeros(1))) == [
        "(1) bandwidth exceeded"]
    data = dataclasses.replace(data, capacity=np.full(1, 500.0))
    assert violations(data, simulate(data, np.array([[120.0], [0.0]]), np.array([6.0]))) == [
        "(5) x_it > b_i,t-1", "(6) z_t > n_t-1", "negative pages"]  # 120 of 100 crawled: y < 0


def brute_force(data: ModelData, steps: int) -> float:
    """The best objective over a grid of every decision, as shares r = x_it / b_i,t-1 and
    s = z_t / n_t-1 in [0, 1] (so (5) and (6) hold), keeping the grid points that keep (1)."""
    B, T = data.buckets, data.periods
    grid = np.linspace(0.0, 1.0, steps)
    shares = np.array(list(itertools.product(grid, repeat=(B + 1) * T))).T
    y, b, n = data.y0[:, None], data.b0[:, None], np.full(shares.shape[1], data.n0)
    total, feasible = 0.0, np.ones(shares.shape[1], dtype=bool)
    for t in range(T):
        x, z = shares[t * (B + 1): t * (B + 1) + B] * b, shares[t * (B + 1) + B] * n
        feasible &= (data.c[:, t, None] * x).sum(axis=0) + data.d[t] * z <= data.capacity[t]
        y = balance(y, b, x, data.a[:, t, None])
        n = new_pages(n, (data.oldnwt[:, t, None] * x).sum(axis=0), z, data.newnwt[t], data.nconst)
        b = bucket_sizes(b, data.p[:, None], z)
        total = total + (data.oldwt[:, t, None] * y).sum(axis=0) + data.newwt[t] * n
    return float(np.min(np.where(feasible, total, np.inf)))


@pytest.mark.parametrize("full", [False, True], ids=["substituted", "paper-variables"])
def test_tiny_instance_matches_brute_force(full):
    data = tiny(2, 2, n0=20.0, nconst=10.0, capacity=60.0)
    solved = solve(data, full=full).objective
    grid = brute_force(data, steps=9)
    assert solved <= grid + 1e-6  # no grid point beats the solver
    assert grid - solved < 0.03 * grid  # and the grid comes close to it


def test_solver_failure_is_one_clear_line():
    data = build(Scenario(pages=2e6, buckets=12, periods=6), 1)
    with pytest.raises(SolveFailed) as failed:
        solve(data, max_iter=1)
    message = str(failed.value)
    assert "\n" not in message
    assert "Ipopt did not find an optimal plan: Maximum_Iterations_Exceeded" in message


def test_strategies_as_the_paper_reports_them_on_a_medium_instance():
    """Section 5.2 at B = 25 (the paper's B = 255 runs in bench/recrawl_model.py)."""
    scenario = Scenario(buckets=25)
    plans = {s: solve(build(scenario, s)) for s in (1, 2, 3)}
    assert plans[2].objective < plans[3].objective < plans[1].objective
    one, three = plans[1].crawls_per_cycle(), plans[3].crawls_per_cycle()  # slowest bucket first
    untouched = one < 0.01
    assert untouched[:6].all()  # the slowest-changing quarter is never crawled under strategy 1
    assert not untouched[-12:].any() and one[-12:].max() > 2
    assert np.all(three >= 0.99)  # strategy 3 crawls every page at least once
    assert np.all(three[:12] < 1.01) and three[-12:].max() > 1.5  # only fast ones more than once
    obsolete_1, obsolete_3 = plans[1].obsolete(), plans[3].obsolete()
    # Figure 4: strategy 1 has fewer obsolete pages in every period but the last (ours: but the
    # last three; strategy 3 starts its final sweep earlier: docs/recrawl-model.md)
    assert np.all(obsolete_1[1:-3] < obsolete_3[1:-3])
    assert obsolete_1[-1] > obsolete_3[-1]
