"""The model's data from a stored crawl's own history (the paper's second level of adaptation).

Section 6: "between cycles the data necessary for the optimization is updated for the next
cycle - particularly the change rates, and new page creation rates". From the `documents`
columns incremental crawling keeps (change_bucket, times_fetched, times_changed, first_fetch,
last_fetch, beside state) and the `crawls` table this estimates, per bucket: its pages
b_i0, its change rate (the rate its bucket stands for: its pages' own estimates), its
pages obsolete now; and for the crawl: seconds per fetch, new pages found per fetch, and
no pages appearing unless a fetch finds them (nconst = 0: a crawl has no other source
once seeded). The store reads the columns by name (engine/store/history.py), so a crawl made
before incremental crawling existed gets one clear line, not a traceback. Read only.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from webcrawler.engine.store.history import HistoryReader, StoredHistory, stored_history
from webcrawler.errors import NothingToDo
from webcrawler.recrawl.buckets import UNKNOWN, History, change_rate, interval_of_bucket
from webcrawler.recrawl.instances import Scenario
from webcrawler.recrawl.model import ModelData, with_strategy

NEEDED = ("change_bucket", "times_fetched", "times_changed", "first_fetch", "last_fetch", "state")


class NoHistory(NothingToDo, RuntimeError):
    """The stored crawl cannot give the model's data; the message is one line."""


@dataclasses.dataclass(frozen=True)
class BucketHistory:
    """What the crawl saw of each change bucket (arrays ordered as `ids`)."""

    ids: np.ndarray  # change_bucket numbers
    pages: np.ndarray  # fetched documents
    intervals: np.ndarray  # sum of (times_fetched - 1): fetch pairs observed
    changes: np.ndarray  # sum of times_changed
    observed: np.ndarray  # sum of seconds between first and last fetch
    since_fetch: list[np.ndarray]  # per bucket: seconds since each page's last fetch


def change_rates(h: BucketHistory) -> np.ndarray:
    """Changes per second of each bucket: the rate its bucket number stands for, i.e. its pages'
    own estimate (buckets.change_rate over each page's history with its server's and sitemap's
    prior, rounded to the bucket grid: the posterior the buckets policy allocates on). The
    unknown bucket (no recrawl yet) gets the whole crawl's pooled rate.

    Not the bucket's recrawls pooled: a page that is seen to change leaves its bucket, so a
    bucket of pages never seen to change keeps only the histories that happened not to, and
    one half-changed pseudo-recrawl for all of them put its rate 30 times too low
    (docs/recrawl-model.md, "The model's assumptions against the truth")."""
    pooled = pooled_rate(h)
    return np.array([pooled if b == UNKNOWN else 1.0 / (interval_of_bucket(int(b)) or 1.0)
                     for b in h.ids])


def pooled_rate(h: BucketHistory) -> float:
    """buckets.change_rate over all the crawl's recrawls pooled (0 before any recrawl)."""
    return change_rate(History(fetches=int(h.intervals.sum()) + 1, changes=int(h.changes.sum()),
                               span=float(h.observed.sum()))) or 0.0


def read_history(url: str) -> tuple[BucketHistory, dict[str, float]]:
    """Per-bucket history and crawl-wide figures; NoHistory when the columns or rows are missing."""
    return _summarised(url, stored_history(url, NEEDED))


def history_source(url: str) -> Callable[[], tuple[BucketHistory, dict[str, float]]]:
    """read_history of the crawl at `url` for a run that reads it again and again (ModelDriver,
    every period): its tables reflected at the first read only (HistoryReader)."""
    reader = HistoryReader(url)
    return lambda: _summarised(url, reader.read(NEEDED))


def _summarised(url: str, stored: StoredHistory) -> tuple[BucketHistory, dict[str, float]]:
    if stored.unreadable:
        raise NoHistory(f"cannot read the crawl at {url}: {stored.unreadable}")
    if stored.missing:
        raise NoHistory(f"the crawl at {url} keeps no change history (no documents."
                        f"{', '.join(stored.missing)}): recrawl it incrementally first")
    return summarise(stored.rows, stored.seconds, stored.fetched)


def summarise(rows: Sequence[Any], seconds: float, fetched: float) -> tuple[BucketHistory, dict[str, float]]:
    """Per-bucket sums of `documents` rows (objects with NEEDED's attributes) and the crawl's
    figures, as read_history returns them; a simulator builds such rows from its own pages."""
    old = [r for r in rows if r.times_fetched and r.last_fetch is not None and r.state != "gone"]
    if not old:
        raise NoHistory("the stored crawl has no fetched documents with a change bucket yet")
    now = max(r.last_fetch for r in old)
    ids = np.array(sorted({int(r.change_bucket) for r in old}))
    where = {b: k for k, b in enumerate(ids)}
    sums = np.zeros((4, len(ids)))
    since: list[list[float]] = [[] for _ in ids]
    for r in old:
        k = where[int(r.change_bucket)]
        sums[:, k] += (1, r.times_fetched - 1, min(r.times_changed, r.times_fetched - 1),
                       max(r.last_fetch - (r.first_fetch or r.last_fetch), 0.0))
        since[k].append(now - r.last_fetch)
    total_fetches = float(sum(r.times_fetched for r in old))
    span = max(now - min(r.first_fetch or r.last_fetch for r in old), 1.0)
    crawl = {
        "seconds_per_fetch": seconds / fetched if fetched and seconds else span / total_fetches,
        "new_per_fetch": len(rows) / total_fetches,
        "never_crawled": float(sum(1 for r in rows if r.state == "queued" and not r.times_fetched)),
        "span_seconds": span,
        "documents": float(len(rows)),
    }
    pages, intervals, changes, observed = sums
    return BucketHistory(ids, pages, intervals, changes, observed, [np.array(s) for s in since]), crawl


def from_database(url: str, scenario: Scenario, strategy: int = 1) -> tuple[ModelData, dict[str, Any]]:
    """The model for the next cycle of the stored crawl: T and the period length from the
    scenario, everything else measured; returns it with a description for the JSON."""
    history, crawl = read_history(url)
    return from_history(history, crawl, scenario, strategy)


def from_history(history: BucketHistory, crawl: dict[str, float], scenario: Scenario,
                 strategy: int = 1) -> tuple[ModelData, dict[str, Any]]:
    """Turn measured history into ModelData (the assumptions are in docs/recrawl-model.md)."""
    T, period = scenario.periods, scenario.period_days * 86400.0
    rates = change_rates(history)
    b0 = history.pages.astype(float)
    y0 = np.array([(1 - np.exp(-r * s)).sum() for r, s in zip(rates, history.since_fetch, strict=True)])
    cost = crawl["seconds_per_fetch"]
    data = ModelData(
        b0=b0, y0=y0, n0=crawl["never_crawled"], a=np.tile(1 - np.exp(-rates * period), (T, 1)).T,
        c=np.full((len(b0), T), cost), d=np.full(T, cost), capacity=np.full(T, period),
        oldwt=np.zeros((len(b0), T)), newwt=np.zeros(T),
        oldnwt=np.full((len(b0), T), scenario.old_finds_new),
        newnwt=np.full(T, min(crawl["new_per_fetch"], 0.99)), nconst=0.0, p=b0 / b0.sum(),
        shape=history.changes / np.maximum(b0, 1.0) + 0.5)
    source = {"kind": "crawl", "bucket_ids": history.ids.tolist(),
              "changes_per_day": (rates * 86400).round(6).tolist(), "period_seconds": period, **crawl}
    return with_strategy(data, strategy), source
