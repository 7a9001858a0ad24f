"""WebFountain's recrawl model (Edwards, McCurley, Tomlin 2001, section 4), as data and equations.

T periods of one crawler cycle, B buckets of pages that change at about the same rate.
Decisions: x_it old pages of bucket i crawled in period t, z_t new pages crawled. State:
b_it pages in bucket i, y_it of them obsolete, n_t new pages not yet crawled (all at the
end of period t; index 0 of the state arrays is the start of the cycle). Constraints:

    (1) sum_i c_it x_it + d_t z_t <= C_t                               bandwidth
    (2) y_it = (1 - x_it / b_i,t-1) ((1 - a_it) y_i,t-1 + a_it b_i,t-1)  balance (Figure 2)
    (3) n_t  = n_t-1 + sum_i oldnwt_it x_it + (newnwt_t - 1) z_t + nconst
    (4) b_it = b_i,t-1 + p_i z_t
    (5) x_it <= b_i,t-1
    (6) z_t  <= n_t-1

Objective: minimise sum_t sum_i oldwt_it y_it + newwt_t n_t. The equations here are plain
arithmetic, so they serve numpy arrays (checking a solution, brute force) and casadi
symbols (solve.py) alike. This module never solves and never touches the crawl.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from webcrawler.errors import SettingError

STRATEGIES = (1, 2, 3)
SMALL_WEIGHT = 0.01  # strategy 3's weight on every period but the last (the paper: "very low")


@dataclasses.dataclass(frozen=True)
class ModelData:
    """One instance: arrays are (B,) per bucket, (T,) per period or (B, T) per bucket and period."""

    b0: np.ndarray  # pages in each bucket at the start of the cycle
    y0: np.ndarray  # obsolete pages in each bucket at the start
    n0: float  # new pages known but never crawled at the start
    a: np.ndarray  # (B, T) fraction of bucket i's pages that change in period t
    c: np.ndarray  # (B, T) seconds to crawl an old page (cconst)
    d: np.ndarray  # (T,) seconds to crawl a new page (dconst)
    capacity: np.ndarray  # (T,) seconds of crawling available (Cconst)
    oldwt: np.ndarray  # (B, T) weight on obsolete old pages
    newwt: np.ndarray  # (T,) weight on uncrawled new pages
    oldnwt: np.ndarray  # (B, T) new pages found per old page crawled
    newnwt: np.ndarray  # (T,) new pages found per new page crawled
    nconst: float  # new pages brought to the crawler's attention each period
    p: np.ndarray  # (B,) share of crawled new pages that land in each bucket, sums to 1
    shape: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0))  # (B,) certainty
    #   of each bucket's rate: the shape of a Gamma belief of mean the bucket's rate (changes seen
    #   a page + 1/2); empty: the rates are known

    @property
    def buckets(self) -> int:
        return int(self.b0.shape[0])

    @property
    def periods(self) -> int:
        return int(self.d.shape[0])


@dataclasses.dataclass(frozen=True)
class Solution:
    """A solved plan: decisions and the state they lead to (state arrays have T+1 columns)."""

    x: np.ndarray  # (B, T)
    z: np.ndarray  # (T,)
    y: np.ndarray  # (B, T+1)
    n: np.ndarray  # (T+1,)
    b: np.ndarray  # (B, T+1)
    objective: float
    status: str = "simulated"
    seconds: float = 0.0
    iterations: int = 0

    def obsolete(self) -> np.ndarray:
        """Obsolete pages per period, old and new together (the paper's Figure 4), (T+1,)."""
        return self.y.sum(axis=0) + self.n

    def crawls_per_cycle(self) -> np.ndarray:
        """Crawls per page per cycle for each bucket (Figure 3): sum_t x_it / b_i,t-1."""
        return (self.x / self.b[:, :-1]).sum(axis=1)


def balance(y_prev: Any, b_prev: Any, x: Any, a: Any) -> Any:
    """Equation (2), the leaves marked * in Figure 2: uncrawled pages that were obsolete,
    or were fresh and changed; crawled pages are fresh (a change in the period is seen)."""
    return (1 - x / b_prev) * ((1 - a) * y_prev + a * b_prev)


def new_pages(n_prev: Any, crawled_old: Any, z: Any, newnwt: Any, nconst: float) -> Any:
    """Equation (3); `crawled_old` is sum_i oldnwt_it x_it (found by recrawls)."""
    return n_prev + crawled_old + (newnwt - 1) * z + nconst


def bucket_sizes(b_prev: Any, p: Any, z: Any) -> Any:
    """Equation (4): crawled new pages join the buckets in proportion p."""
    return b_prev + p * z


def objective(data: ModelData, y: np.ndarray, n: np.ndarray) -> float:
    """sum_t sum_i oldwt_it y_it + newwt_t n_t over t = 1..T (state columns 1..T)."""
    return float((data.oldwt * y[:, 1:]).sum() + (data.newwt * n[1:]).sum())


def simulate(data: ModelData, x: np.ndarray, z: np.ndarray) -> Solution:
    """Run equations (2)-(4) forward from the start state for given decisions."""
    B, T = data.buckets, data.periods
    y, b, n = np.zeros((B, T + 1)), np.zeros((B, T + 1)), np.zeros(T + 1)
    y[:, 0], b[:, 0], n[0] = data.y0, data.b0, data.n0
    for t in range(T):
        y[:, t + 1] = balance(y[:, t], b[:, t], x[:, t], data.a[:, t])
        found = float((data.oldnwt[:, t] * x[:, t]).sum())
        n[t + 1] = new_pages(n[t], found, z[t], data.newnwt[t], data.nconst)
        b[:, t + 1] = bucket_sizes(b[:, t], data.p, z[t])
    return Solution(x=x, z=z, y=y, n=n, b=b, objective=objective(data, y, n))


def violations(data: ModelData, sol: Solution, rel: float = 1e-6) -> list[str]:
    """Which of constraints (1), (5), (6) and the signs a solution breaks (empty: none)."""
    found = []
    used = (data.c * sol.x).sum(axis=0) + data.d * sol.z
    if np.any(used > data.capacity * (1 + rel)):
        found.append("(1) bandwidth exceeded")
    if np.any(sol.x > sol.b[:, :-1] * (1 + rel) + rel):
        found.append("(5) x_it > b_i,t-1")
    if np.any(sol.z > sol.n[:-1] * (1 + rel) + rel):
        found.append("(6) z_t > n_t-1")
    if min(sol.x.min(), sol.z.min(), sol.y.min(), sol.n.min()) < -rel * max(1.0, data.b0.max()):
        found.append("negative pages")
    return found


def strategy_weights(strategy: int, periods: int, small: float = SMALL_WEIGHT) -> np.ndarray:
    """The paper's section 5.1 weights per period (the same on old and new pages).
    1: equal, summing to 1; 2: all on the last period; 3: 1 on the last, `small` on the rest."""
    if strategy == 1:
        return np.full(periods, 1.0 / periods)
    weights = np.zeros(periods) if strategy == 2 else np.full(periods, small)
    if strategy not in STRATEGIES:
        raise SettingError(f"strategy must be 1, 2 or 3, not {strategy}")
    weights[-1] = 1.0
    return weights


def with_strategy(data: ModelData, strategy: int, small: float = SMALL_WEIGHT) -> ModelData:
    """The same instance with strategy 1, 2 or 3's objective weights."""
    w = strategy_weights(strategy, data.periods, small)
    return dataclasses.replace(data, oldwt=np.tile(w, (data.buckets, 1)), newwt=w.copy())
