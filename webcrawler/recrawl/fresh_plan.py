"""The model solved for the crawl's own goal: time-averaged freshness at a fixed bandwidth.

The paper's objective (section 4) counts obsolete pages at the end of each period and lets the
capacity go unspent; the crawl is judged by the share of its pages that are fresh, averaged
over time, with every fetch of `--fetch-rate` spent (docs/recrawl-model.md, "The crawl's
objective"). Over the paper's own structure (buckets i of b_i pages changing a fraction a_it
per period, periods t with capacity C_t, never-crawled pages n_t), that objective is

    maximise sum_t sum_i b_i F(l_i, x_it / b_i)   with sum_i c_it x_it + d_t z_t = C_t,

F being Cho and Garcia-Molina's freshness of a page of l_i = -ln(1 - a_it) changes a period
recrawled x_it / b_i times a period (allocation.py). The periods are independent given z_t,
so each period is Cho and Garcia-Molina's Lagrangian allocation over the model's buckets
(allocation.allocate). New pages come first (z_t = n_t-1, as far as the capacity goes): a
never-crawled page is stale until fetched, and one fetch makes it fresh for as long as any
recrawl could. A bucket may be crawled more than once a period (x_it > b_i,t-1, which
constraint (5) forbids): the period is the model's clock, not the crawl's; the obsolete pages
(2) counts are computed with x_it capped at b_i,t-1, for the report.

A bucket's l_i is an estimate, and half the crawl's pages have been seen a few times unchanged:
some never change, some change hourly, and their bucket cannot tell which. When the data says
how certain each rate is (ModelData.shape: a Gamma belief of mean l_i and shape the changes seen
a page + 1/2) the allocation maximises the expected freshness over that belief instead of F at
the point estimate (allocate_expected; docs/recrawl-model.md, "Honest per-bucket rates").
"""

from __future__ import annotations

import time

import numpy as np

from webcrawler.recrawl.allocation import allocate
from webcrawler.recrawl.model import ModelData, Solution, balance, bucket_sizes, new_pages, objective

# Bisections of allocate_expected: log f over a bracket ~40 nats wide (26 halvings: 6e-7 of f)
# and log mu over 90 (30 halvings: 1e-7); the result is rescaled to spend the bandwidth exactly.
# More buy nothing the plan can use and cost the crawl's loop (each solve runs it every period).
_INNER, _OUTER = 26, 30


def solve_freshness(data: ModelData) -> Solution:
    """The plan of most time-averaged fresh pages (module docstring); never fails."""
    started = time.monotonic()
    B, T = data.buckets, data.periods
    x, z = np.zeros((B, T)), np.zeros(T)
    y, b, n = np.zeros((B, T + 1)), np.zeros((B, T + 1)), np.zeros(T + 1)
    y[:, 0], b[:, 0], n[0] = data.y0, data.b0, data.n0
    spent = 0.0
    for t in range(T):
        z[t] = min(n[t], data.capacity[t] / data.d[t])
        fetches = (data.capacity[t] - data.d[t] * z[t]) / float(np.mean(data.c[:, t]))
        rates = -np.log1p(-np.minimum(data.a[:, t], 1 - 1e-12))  # changes a period
        if t == 0 or not (np.allclose(b[:, t], b[:, t - 1]) and np.isclose(fetches, spent)
                          and np.array_equal(data.a[:, t], data.a[:, t - 1])):
            visits = (allocate(rates, b[:, t], fetches) if not data.shape.size else
                      allocate_expected(rates, data.shape, b[:, t], fetches))
        spent = fetches  # a period like the last (every page found, same capacity): same visits
        x[:, t] = b[:, t] * visits
        y[:, t + 1] = balance(y[:, t], b[:, t], np.minimum(x[:, t], b[:, t]), data.a[:, t])
        found = float((data.oldnwt[:, t] * x[:, t]).sum())
        n[t + 1] = max(0.0, new_pages(n[t], found, z[t], data.newnwt[t], data.nconst))
        b[:, t + 1] = bucket_sizes(b[:, t], data.p, z[t])
    return Solution(x=x, z=z, y=y, n=n, b=b, objective=objective(data, y, n), status="allocated",
                    seconds=time.monotonic() - started)


def expected_freshness(mean: np.ndarray, shape: np.ndarray, f: np.ndarray) -> np.ndarray:
    """E[F(l, f)] for a rate l believed Gamma(shape, shape / mean): F is the mean over s in
    [0, 1] of e^(-l s / f), whose expectation is (1 + s u)^(-shape), u = mean / (shape f), so

        E[F] = ((1 + u)^(1 - shape) - 1) / ((1 - shape) u),

    F(mean, f) as the shape grows (the rate known), above it for a vague belief (Jensen)."""
    k = np.where(np.abs(shape - 1) < 1e-6, 1 + 1e-6, shape)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        u = mean / (k * f)
        value = np.expm1((1 - k) * np.log1p(u)) / ((1 - k) * u)
    return np.where(mean <= 0, 1.0, np.where(f <= 0, 0.0, value))


def _marginal(mean: np.ndarray, shape: np.ndarray, f: np.ndarray) -> np.ndarray:
    """d E[F] / d f, by a central difference in log f (E[F] is smooth and concave in f)."""
    step = 1e-4
    up = expected_freshness(mean, shape, f * (1 + step))
    return (up - expected_freshness(mean, shape, f * (1 - step))) / (2 * step * f)


def allocate_expected(rates: np.ndarray, shapes: np.ndarray, counts: np.ndarray,
                      bandwidth: float) -> np.ndarray:
    """Visits a period per page of each bucket that maximise the expected fresh pages, sum
    counts E[F(l_b, f_b)] with sum counts f_b = bandwidth, l_b ~ Gamma(shape_b, shape_b / rate_b):
    Cho and Garcia-Molina's Lagrangian over the belief rather than the point estimate. A bucket
    seen to change rarely is worth fewer visits than its mean rate says (some of its pages may
    never change); known rates (large shapes) give allocation.allocate's answer."""
    rates, shapes, counts = (np.asarray(v, dtype=float) for v in (rates, shapes, counts))
    live = (rates > 0) & (counts > 0)
    if bandwidth <= 0 or not live.any():
        return np.zeros_like(rates)
    mean, shape, n = rates[live], shapes[live], counts[live]
    low_f = np.full(mean.shape, np.log(bandwidth / n.sum() * 1e-6))  # log visits a period
    high_f = np.full(mean.shape, np.log(1e6 * mean.max() + bandwidth))

    def spend(log_mu: float) -> tuple[float, np.ndarray]:
        lo, hi = low_f.copy(), high_f.copy()
        for _ in range(_INNER):  # f_b with marginal value mu: the marginal falls as f rises
            mid = 0.5 * (lo + hi)
            above = _marginal(mean, shape, np.exp(mid)) > np.exp(log_mu)
            lo, hi = np.where(above, mid, lo), np.where(above, hi, mid)
        f = np.exp(0.5 * (lo + hi))
        f = np.where(_marginal(mean, shape, np.exp(low_f)) > np.exp(log_mu), f, 0.0)
        return float(np.dot(n, f)), f

    lo_mu, hi_mu = -60.0, 30.0
    for _ in range(_OUTER):
        mid = 0.5 * (lo_mu + hi_mu)
        lo_mu, hi_mu = (mid, hi_mu) if spend(mid)[0] > bandwidth else (lo_mu, mid)
    spent, f = spend(hi_mu)
    out = np.zeros_like(rates)
    out[live] = f * (bandwidth / spent if spent > 0 else 0.0)
    return out

