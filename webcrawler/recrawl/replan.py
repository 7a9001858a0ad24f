"""The `buckets` policy's revisit table, recomputed from the crawl as it goes (Cho and
Garcia-Molina's optimum, `allocation.py`, over WebFountain's change buckets).

The recrawler tells this object which bucket each scheduled page is in (the counts
n_b live in memory) and how many fetches went out; every PERIOD seconds it divides
the recrawl bandwidth between the buckets and installs one revisit interval per
bucket through the plan's seam, `RecrawlPlan.revisit` (the table WebFountain's model
fills too; a plan that already has one is left alone).

The bandwidth is `--fetch-rate` when given, else the fetch rate measured over the
last period; what new URLs took in that period is not the recrawl's (but the recrawl
always gets at least its `share` of a server's turns, as the queues give it). Pages
whose bucket is still unknown keep `first_interval` and their demand (at most half
the recrawl's) comes off first. A bucket the optimum leaves alone (f_b = 0: it
changes too fast to follow) is visited only as often as the least-visited recrawled
one, so that a bucket estimated from a few recrawls can still be corrected.

The plan also says how soon to probe a page seen changed at every recrawl (policies.py):
after PROBE_FRACTION of the shortest revisit interval in the table. The optimum visits
most often the pages whose changes are about as frequent as its visits; a page that
changes within a fraction of that is faster, and worth fewer visits, or none.
"""

from __future__ import annotations

import logging
from dataclasses import replace

import numpy as np

from webcrawler.recrawl.allocation import allocate
from webcrawler.recrawl.buckets import FASTEST, SLOWEST, UNKNOWN, interval_of_bucket
from webcrawler.recrawl.policies import RecrawlPlan

log = logging.getLogger(__name__)

PERIOD = 2.0  # seconds between recomputations: cheap (a few ms), and the crawl's mix moves slowly
FLOOR_ROUNDS = 4
PROBE_FRACTION = 0.5
RATES = np.array([0.0] + [1.0 / (interval_of_bucket(b) or 1.0) for b in range(FASTEST, SLOWEST + 1)])


def revisit_table(plan: RecrawlPlan, counts: np.ndarray, bandwidth: float) -> tuple[float, ...]:
    """Seconds between recrawls for each bucket 0-255: 1 / f_b of the optimum for the known
    buckets, first_interval for the unknown one. A bucket the optimum leaves alone (f_b = 0)
    is still visited as rarely as the least-visited page the optimum recrawls, and that cost
    comes off the others' bandwidth: its pages' bucket rests on a few recrawls and may be
    wrong, so leaving them is never final (the plan's max_interval when nothing is recrawled)."""
    known = counts.astype(float).copy()
    known[UNKNOWN] = 0.0
    floor, freq = 0.0, allocate(RATES, known, bandwidth)
    for _ in range(FLOOR_ROUNDS):  # a fixed point: the floor's cost changes what the rest get
        visited = (freq > 0) & (known > 0)
        left = float(known[(freq == 0) & (known > 0)].sum())
        if not visited.any() or left == 0:
            break
        floor = float(freq[visited].min())
        freq = allocate(RATES, known, max(bandwidth - left * floor, bandwidth / 2))
    with np.errstate(divide="ignore"):
        table = np.where(freq > 0, 1.0 / np.maximum(freq, 1e-300),
                         1.0 / floor if floor > 0 else plan.max_interval)
    table[UNKNOWN] = plan.first_interval
    return tuple(float(x) for x in table)


def fit_to_bandwidth(table: tuple[float, ...], counts: np.ndarray, bandwidth: float,
                     shortest: float, longest: float) -> tuple[float, ...]:
    """`table` with every known bucket's interval times one factor k, so that the pages
    scheduled by it ask for `bandwidth` fetches a second (issue 35: a plan's intervals are
    scaled to the bandwidth, not the bandwidth to the plan). No interval goes below `shortest`
    (min_revisit, the plan's min_interval), which is why k is found by bisection rather than
    as one ratio; intervals at `longest` (pages the plan never means to fetch) and the unknown
    bucket's first recrawl stay as they are, their demand taken off first."""
    intervals = np.maximum(np.asarray(table, dtype=float), shortest)
    n = counts.astype(float)
    fixed = np.zeros(len(intervals), dtype=bool)
    fixed[UNKNOWN] = True
    fixed |= intervals >= longest
    spare = bandwidth - float(np.dot(n[fixed], 1.0 / intervals[fixed]))
    scaled = (~fixed) & (n > 0)
    if spare <= 0 or not scaled.any():
        return table

    def demand(k: float) -> float:
        return float(np.dot(n[scaled], 1.0 / np.maximum(k * intervals[scaled], shortest)))

    if demand(1e-6) <= spare:  # even every page at `shortest` asks for less: as short as allowed
        k = 1e-6
    else:
        low, high = -14.0, 14.0  # log k
        for _ in range(60):
            mid = 0.5 * (low + high)
            low, high = (mid, high) if demand(float(np.exp(mid))) > spare else (low, mid)
        k = float(np.exp(high))
    out = np.where(scaled, np.minimum(np.maximum(k * intervals, shortest), longest), table)
    return tuple(float(x) for x in out)


def probe_interval(table: tuple[float, ...], counts: np.ndarray) -> float:
    """Seconds to a probing recrawl: PROBE_FRACTION of the shortest revisit interval among
    the known buckets that hold pages (`counts`; the optimum's most visited pages: a page
    that changes within it changes faster than those). Not among every bucket: the table
    also has an interval for each empty one, and the shortest of those is the optimum's peak
    frequency whether or not any page changes at that rate (on a web of slow pages at a high
    bandwidth it was under a second, a probe that cannot see a change). With no page in a
    known bucket, the whole table's shortest."""
    held = [table[b] for b in range(FASTEST, len(table)) if counts[b] > 0]
    return PROBE_FRACTION * min(held or table[FASTEST:])


def recrawl_bandwidth(plan: RecrawlPlan, total: float, new: float, unknown: int) -> float:
    """Fetches per second the known buckets may share: the total less what new URLs took (but
    at least the recrawl's share), less the unknown pages' first recrawls (at most half)."""
    recrawl = max(total - new, plan.share * total)
    return recrawl - min(unknown / plan.first_interval, recrawl / 2)


class Replanner:
    """Bucket counts and fetch counts in memory; a new plan every PERIOD seconds."""

    def __init__(self, plan: RecrawlPlan, fetch_rate: float, period: float = PERIOD,
                 min_revisit: float = 0.0) -> None:
        self.plan = plan
        self.fetch_rate = fetch_rate
        self.period = period
        self.shortest = max(plan.min_interval, min_revisit)  # no page is due sooner after a fetch
        self.bandwidth = 0.0  # recrawls a second the last replan divided
        self.counts = np.zeros(SLOWEST + 1, dtype=np.int64)
        self._bucket_of: dict[int, int] = {}
        self._last: tuple[float, int, int] | None = None  # (monotonic time, fetches, recrawls)

    def place(self, doc_id: int, bucket: int | None) -> None:
        """Page `doc_id` is now in `bucket` (None: no longer scheduled)."""
        old = self._bucket_of.pop(doc_id, None)
        if old is not None:
            self.counts[old] -= 1
        if bucket is not None:
            self._bucket_of[doc_id] = bucket
            self.counts[bucket] += 1

    def replan(self, mono: float, fetches: int, recrawls: int) -> RecrawlPlan | None:
        """The new plan when a period has passed since the last one (None otherwise, or when
        there is nothing to divide yet). `fetches` and `recrawls` count dispatches so far."""
        if self._last is None:
            self._last = (mono, fetches, recrawls)
            return None
        then, fetches0, recrawls0 = self._last
        elapsed = mono - then
        if elapsed < self.period:
            return None
        self._last = (mono, fetches, recrawls)
        total = self.fetch_rate if self.fetch_rate > 0 else (fetches - fetches0) / elapsed
        new = max(0.0, ((fetches - fetches0) - (recrawls - recrawls0)) / elapsed)
        self.bandwidth = max(total - new, self.plan.share * total)
        bandwidth = recrawl_bandwidth(self.plan, total, new, int(self.counts[UNKNOWN]))
        if bandwidth <= 0 or self.counts[FASTEST:].sum() == 0:
            return None
        table = revisit_table(self.plan, self.counts, bandwidth)
        log.debug("replan: %.2f recrawls/s over %d known pages", bandwidth,
                  int(self.counts[FASTEST:].sum()))
        return replace(self.plan, revisit=self.fit(table), probe=probe_interval(table, self.counts))

    def fit(self, table: tuple[float, ...]) -> tuple[float, ...]:
        """`table` scaled to the recrawl bandwidth measured at the last replan (with a cap:
        the cap less what new URLs take), the clamps to `shortest` included."""
        if self.fetch_rate <= 0 or self.bandwidth <= 0:
            return table
        return fit_to_bandwidth(table, self.counts, self.bandwidth, self.shortest,
                                self.plan.max_interval)
