"""From a solved plan to what the incremental crawl consumes in one period (section 4's last words).

"The critical solution outputs are the ratios x_it / b_it and the z_t values, which tell us how
many URLs in the 'old' and 'new' queues we should crawl in each time period, and hence the
probabilities p in Figure 1": per change bucket a recrawl rate (fetches per page per period,
and the interval between fetches it implies), and the weights of the never-crawled / recrawl
aggregator as shares of the period's fetches. The engine re-solves each cycle and takes
period 0 (the paper's adaptation at two levels); this module never fetches nor schedules.
"""

from __future__ import annotations

import dataclasses
import math

from webcrawler.recrawl.model import Solution


@dataclasses.dataclass(frozen=True, slots=True)
class PeriodInputs:
    """One period of a plan, in the crawl's own terms."""

    period_seconds: float
    bucket_rates: dict[int, float]  # change_bucket -> fetches per page in this period
    new_share: float  # share of this period's fetches for never-crawled pages (z_t)
    recrawl_share: float  # share for old pages (sum_i x_it); new_share + recrawl_share = 1
    deferred: dict[int, float] = dataclasses.field(default_factory=dict)  # bucket skipped in
    #   this period -> seconds until the start of the first later period that crawls it

    def interval(self, bucket: int) -> float:
        """Seconds between two fetches of a page of `bucket`. A bucket this period skips is due
        when a later period of the plan crawls it (a due time, once set, is kept until the page
        is fetched: a plan re-solved later cannot call it back); inf when no period does."""
        rate = self.bucket_rates.get(bucket, 0.0)
        return self.period_seconds / rate if rate > 1e-9 else self.deferred.get(bucket, math.inf)


def period_inputs(plan: Solution, bucket_ids: list[int], period_seconds: float,
                  period: int = 0) -> PeriodInputs:
    """Period `period` of `plan` (buckets ordered as `bucket_ids`) as rates and shares."""
    if len(bucket_ids) != plan.x.shape[0]:
        raise ValueError(f"{len(bucket_ids)} bucket ids for a plan of {plan.x.shape[0]} buckets")
    ratios = plan.x[:, period] / plan.b[:, period]
    old, new = float(plan.x[:, period].sum()), float(plan.z[period])
    total = old + new
    return PeriodInputs(
        period_seconds=period_seconds,
        bucket_rates={int(b): float(r) for b, r in zip(bucket_ids, ratios, strict=True)},
        new_share=new / total if total > 0 else 0.0,
        recrawl_share=old / total if total > 0 else 0.0,
        deferred=_deferred(plan, bucket_ids, period_seconds, period),
    )


def _deferred(plan: Solution, bucket_ids: list[int], period_seconds: float,
              period: int) -> dict[int, float]:
    """Seconds from the start of `period` to the first later period crawling each bucket."""
    out = {}
    for k, b in enumerate(bucket_ids):
        later = [t for t in range(period + 1, plan.x.shape[1]) if plan.x[k, t] > 1e-9 * plan.b[k, t]]
        if later:
            out[int(b)] = (later[0] - period) * period_seconds
    return out
