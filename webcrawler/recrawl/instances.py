"""The paper's instance (section 5): 500 M pages, the web doubling in about 400 days, B = 255, T = 14.

The paper gives only part of its data ("simulated, but realistic data"); every value it does
not give is a parameter here, with the choice documented in docs/recrawl-model.md:
a period of 2 days (a four-week cycle), change rates spread geometrically from once a year
to once a week, a crawler able to fetch the repository 1.2 times per cycle, a start state
left by crawling every page once in the previous cycle. Versions 1-3 are Experiments 1-3.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from webcrawler.recrawl.model import ModelData, with_strategy


@dataclasses.dataclass(frozen=True)
class Scenario:
    """The knobs of a synthetic instance (what `plan-recrawl` takes as options)."""

    pages: float = 500e6
    buckets: int = 255
    periods: int = 14
    period_days: float = 2.0
    doubling_days: float = 400.0
    slowest_days: float = 365.0  # mean days between changes, slowest bucket
    fastest_days: float = 7.0  # mean days between changes, fastest bucket
    crawls_per_cycle: float = 1.2  # capacity: the repository this many times per cycle
    old_cost: float = 1.0  # seconds per old page (cconst)
    new_cost: float = 1.0  # seconds per new page (dconst)
    old_finds_new: float = 0.001  # oldnwt
    new_finds_new: float = 0.05  # newnwt
    version: int = 1  # 1: equal buckets; 2: 3 M / 1 M / 3 M; 3: changes half as often

    def change_rates(self) -> np.ndarray:
        """Changes per day of each bucket, slowest first (version 3 halves them)."""
        rates = np.geomspace(1 / self.slowest_days, 1 / self.fastest_days, self.buckets)
        return rates / 2 if self.version == 3 else rates

    def bucket_pages(self) -> np.ndarray:
        """Version 2 (Experiment 2): the fastest and slowest quarters 3 M each, the middle 1 M
        (in proportion, scaled to `pages`); otherwise equal buckets."""
        if self.version != 2:
            return np.full(self.buckets, self.pages / self.buckets)
        rank = np.arange(self.buckets) / self.buckets
        share = np.where((rank < 0.25) | (rank >= 0.75), 3.0, 1.0)
        return share * self.pages / share.sum()


def start_obsolete(b0: np.ndarray, rates: np.ndarray, cycle_days: float) -> np.ndarray:
    """Obsolete pages at the start if every page was crawled once, at a uniform random time,
    in the previous cycle of `cycle_days`: b (1 - (1 - e^-rD) / rD) for Poisson changes."""
    rd = rates * cycle_days
    return b0 * (1 - (1 - np.exp(-rd)) / rd)


def build(scenario: Scenario, strategy: int = 1) -> ModelData:
    """A ModelData for the scenario under strategy 1, 2 or 3's weights."""
    s, B, T = scenario, scenario.buckets, scenario.periods
    rates = s.change_rates()
    b0 = s.bucket_pages()
    a = np.tile(1 - np.exp(-rates * s.period_days), (T, 1)).T
    nconst = float(b0.sum() * (2 ** (s.period_days / s.doubling_days) - 1))
    capacity = s.crawls_per_cycle * float(b0.sum()) / T * s.old_cost
    data = ModelData(
        b0=b0, y0=start_obsolete(b0, rates, T * s.period_days), n0=nconst, a=a,
        c=np.full((B, T), s.old_cost), d=np.full(T, s.new_cost), capacity=np.full(T, capacity),
        oldwt=np.zeros((B, T)), newwt=np.zeros(T), oldnwt=np.full((B, T), s.old_finds_new),
        newnwt=np.full(T, s.new_finds_new), nconst=nconst, p=b0 / b0.sum())
    return with_strategy(data, strategy)
