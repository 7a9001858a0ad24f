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
"""

from __future__ import annotations

import time

import numpy as np

from webcrawler.recrawl.allocation import allocate
from webcrawler.recrawl.model import ModelData, Solution, balance, bucket_sizes, new_pages, objective


def solve_freshness(data: ModelData) -> Solution:
    """The plan of most time-averaged fresh pages (module docstring); never fails."""
    started = time.monotonic()
    B, T = data.buckets, data.periods
    x, z = np.zeros((B, T)), np.zeros(T)
    y, b, n = np.zeros((B, T + 1)), np.zeros((B, T + 1)), np.zeros(T + 1)
    y[:, 0], b[:, 0], n[0] = data.y0, data.b0, data.n0
    for t in range(T):
        z[t] = min(n[t], data.capacity[t] / data.d[t])
        fetches = (data.capacity[t] - data.d[t] * z[t]) / float(np.mean(data.c[:, t]))
        rates = -np.log1p(-np.minimum(data.a[:, t], 1 - 1e-12))  # changes a period
        x[:, t] = b[:, t] * allocate(rates, b[:, t], fetches)
        y[:, t + 1] = balance(y[:, t], b[:, t], np.minimum(x[:, t], b[:, t]), data.a[:, t])
        found = float((data.oldnwt[:, t] * x[:, t]).sum())
        n[t + 1] = max(0.0, new_pages(n[t], found, z[t], data.newnwt[t], data.nconst))
        b[:, t + 1] = bucket_sizes(b[:, t], data.p, z[t])
    return Solution(x=x, z=z, y=y, n=n, b=b, objective=objective(data, y, n), status="allocated",
                    seconds=time.monotonic() - started)
