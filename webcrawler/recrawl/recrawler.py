"""The incremental crawl's side of the engine: what a recrawl's answer does to the page.

WebFountain section 4: a page already stored is fetched again when due; the answer
is a 304 (unchanged, no body), a body identical to the stored one, a trivially
changed one (shingles alike), a real change, a 404/410 (the page is gone), or a
redirect. Each updates the page's history (times fetched / changed / trivial /
unmodified, last change, the bucket) and its next due time in the crawl's own
transaction, so a killed crawl loses nothing it committed; a real change re-indexes
the page (the index keeps one version, the newest) and replaces its links, a gone
page leaves the index. The index crawl's hooks (engine/loop/index_hooks.py) call in here only
for pages with `entry.recrawl`, to schedule the first recrawl of a page it just found, and with
the pages a sitemap lists.

Sitemaps say when a page last changed (`lastmod`): a page listed with a lastmod after its
last fetch is due at once, and the date serves its change history as a Last-Modified header
does (the header wins when the answer has one; a date the shingles do not confirm makes the
page's dates untrusted, lastmod.py); its `changefreq` puts the page in a group whose pooled
recrawls give the page a prior change rate before its own history can (priors.py), from its
first fetch on. So that their news is read, a server's sitemaps are due
at the start of every incremental crawl, and as the policy says afterwards. A page made due
early keeps its earlier place in the schedule too: it is fetched again then, as the policy
had planned.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, replace
from email.utils import formatdate
from typing import TYPE_CHECKING, Any

from webcrawler.database.states import State
from webcrawler.engine.interfaces import Store
from webcrawler.engine.loop.policies import DocumentSink
from webcrawler.engine.records import FoundLink, FrontierEntry
from webcrawler.engine.scheduling.frontier import BreadthFirstFrontier, Ordering
from webcrawler.engine.scheduling.scheduler import ServerFirstOrder
from webcrawler.protocol.messages import Document, Failure, NotModified, Reason
from webcrawler.recrawl.buckets import UNKNOWN, History, Prior, bucket, interval_of_bucket
from webcrawler.recrawl.changes import Change, classify
from webcrawler.recrawl.lastmod import UNTRUSTED, ServerDates, ages_after, date_test, http_date, stored_ages
from webcrawler.recrawl.pace import FetchPace
from webcrawler.recrawl.policies import Buckets, Fetched, Policy, RecrawlPlan, make_policy
from webcrawler.recrawl.priors import Evidence, changefreq
from webcrawler.recrawl.queues import RECRAWLABLE, Notify, RecrawlQueues
from webcrawler.recrawl.replan import Replanner

if TYPE_CHECKING:  # --plan auto's driver takes the Replanner's place (setup.py)
    from webcrawler.recrawl.model_driver import ModelDriver

log = logging.getLogger(__name__)

GONE_STATUSES = frozenset({404, 410})
PULL_RETRY = 0.25  # seconds before a pull_ahead that found nothing is tried again


def rate_of_bucket(page_bucket: int) -> float | None:
    """Changes a second a bucket stands for (None: unknown)."""
    interval = interval_of_bucket(page_bucket)
    return None if interval is None else 1.0 / interval


@dataclass
class RecrawlStats:
    """What the progress line and the summary show of the recrawl."""

    recrawled: int = 0  # answers to recrawls
    not_modified: int = 0  # 304
    identical: int = 0  # body byte-identical
    trivial: int = 0  # body differed, shingles alike
    changed: int = 0
    gone: int = 0  # 404 / 410
    moved: int = 0  # now a redirect
    failed: int = 0  # timeouts, 5xx, ...: tried again later
    listed: int = 0  # made due by a sitemap's lastmod

    def line(self, due: int) -> str:
        return (f"recrawl: due {due}, recrawled {self.recrawled} (304 {self.not_modified}, "
                f"identical {self.identical}, trivial {self.trivial}, changed {self.changed}, "
                f"gone {self.gone}, moved {self.moved}, failed {self.failed})"
                + (f", {self.listed} due by sitemap lastmod" if self.listed else ""))


@dataclass(frozen=True, slots=True)
class _Before:
    """The page's row before this answer."""

    state: str
    checksum: str | None
    sketch: bytes | None
    fetches: int
    changes: int
    trivial: int
    unmodified: int
    not_modified: int
    first_fetch: float | None
    last_fetch: float | None
    next_due: float | None
    changed_seconds: float
    shortest_change: float | None
    last_modified: str | None
    change_ages: float | None  # trusted sum of ages (lastmod.py), None: untrusted

    def first_seen(self, now: float) -> float:
        """When the page's history starts (a page from before first_fetch: its last fetch)."""
        return self.first_fetch or self.last_fetch or now

    def last_interval(self) -> float | None:
        if self.next_due is None or self.last_fetch is None:
            return None
        return max(0.0, self.next_due - self.last_fetch)


class Recrawler:
    """Owns the recrawl queues, the policy and the pace; the crawler hands it answers."""

    def __init__(self, store: Store, sink: DocumentSink, policy: Policy,
                 plan: RecrawlPlan, fetch_rate: float, min_revisit: float = 0.0) -> None:
        self.store = store
        self.sink = sink
        self.policy = policy
        self.plan = plan
        self.queues = RecrawlQueues(store, BreadthFirstFrontier(store), plan.share, min_revisit)
        self.pace = FetchPace(fetch_rate)
        self.stats = RecrawlStats()
        # ours: the optimum's revisit table from the live bucket counts (unless a model set one)
        self.replanner: Replanner | ModelDriver | None = (Replanner(plan, fetch_rate, min_revisit=min_revisit)
                          if isinstance(policy, Buckets) and not plan.revisit else None)
        self._sitemap_dates: dict[int, float] = {}  # doc id -> lastmod, pages a sitemap made due
        self._changefreqs: dict[int, str] = {}  # doc id -> its sitemap's changefreq (priors.py)
        self.evidence = Evidence()
        self.dates = ServerDates()  # whose Last-Modified proved right (lastmod.py)
        self._pull_after = 0.0  # monotonic: no pull_ahead before (the last one found nothing)
        self._spare = 0  # free agents at the last tick
        self.queues.prior_rate = 1.0 / plan.first_interval

    # --- start --------------------------------------------------------------
    def load(self) -> int:
        """Schedule every stored page: pages of a batch crawl (no due time yet) get their
        first one from the policy; return how many pages are scheduled."""
        if self.policy.name == "none":
            return 0
        first = self.policy.next_due(0.0, Fetched(None, UNKNOWN, None)) or 0.0
        rows = self.store.schedule_stored(RECRAWLABLE, first, time.time())  # sitemaps due now
        for doc_id, server_id, due, page_bucket, last_fetch in rows:
            self.queues.schedule(doc_id, server_id, due)
            self._place(doc_id, page_bucket or UNKNOWN)
            self.queues.note(doc_id, last_fetch or 0.0, rate_of_bucket(page_bucket or UNKNOWN))
        self.store.commit()
        return len(rows)

    # --- the loop's hooks -----------------------------------------------------
    def tick(self, scheduler: Notify, mono: float, spare: int) -> None:
        """Release pages that fell due; with agents free, no server ready and the pace
        allowing, give each idle server the waiting page whose fetch gains most (at most
        `spare`): the bandwidth is spent whatever the plan says. A pull that finds nothing
        is not tried again before an agent is freed or PULL_RETRY seconds."""
        if spare > self._spare:  # an answer came: a server may be idle now
            self._pull_after = 0.0
        self._spare = spare
        self.queues.tick(time.time(), scheduler, mono)
        if self.replanner is not None:
            plan = self.replanner.replan(mono, self.pace.spent, self.queues.recrawls)
            if plan is not None:
                self.install(plan)
        if spare > 0 and mono >= self._pull_after and self.pace.ready(mono):
            if not self.queues.pull_ahead(spare, scheduler, mono, self._idle):
                self._pull_after = mono + PULL_RETRY

    def _idle(self, server_id: int) -> bool:
        server = self.store.servers_by_id.get(server_id)
        return server is not None and not server.in_flight and not server.has_work()


    def install(self, plan: RecrawlPlan) -> None:
        """A new period's plan: the buckets policy's revisit table, both queues' weights."""
        if isinstance(self.policy, Buckets):
            self.policy.plan = plan  # the table is the policy's input
        self.queues.set_share(plan.share)

    def may_dispatch(self, mono: float) -> bool:
        return self.pace.ready(mono)

    def dispatched(self, mono: float) -> None:
        self.pace.spend(mono)

    def wait_hint(self, mono: float) -> float | None:
        """Seconds until the pace or the schedule may give work, if either limits now."""
        hints = []
        slot = self.pace.next_slot()
        if slot is not None and slot > mono:
            hints.append(slot - mono)
        due = self.queues.next_wakeup()
        if due is not None:
            hints.append(max(0.0, due - time.time()))
        if self._pull_after > mono:
            hints.append(self._pull_after - mono)
        return min(hints) if hints else None

    def line(self) -> str:
        return self.stats.line(self.queues.due_now())

    # --- answers ------------------------------------------------------------
    def first_fetch(self, entry: FrontierEntry, now: float) -> None:
        """A page fetched for the first time (stored by the crawler's batch path): schedule
        its first recrawl, by the prior its server's and its sitemap's evidence give it when
        they give one (its bucket is the prior's), else the policy's default."""
        history = History(1, 0, 0.0, prior=self._prior(entry))
        page_bucket = bucket(history)
        self._place(entry.doc_id, page_bucket)
        self.queues.note(entry.doc_id, now, rate_of_bucket(page_bucket))
        self._schedule(entry, self.policy.next_due(now, Fetched(None, page_bucket, None, history)))

    def _prior(self, entry: FrontierEntry) -> Prior | None:
        return self.evidence.prior(entry.server_id, self._changefreqs.get(entry.doc_id, ""))

    def listed(self, pages: list[FoundLink], lastmods: dict[str, float], now: float,
               changefreqs: dict[str, str] | None = None) -> int:
        """A sitemap listed `pages` with these lastmod dates (URL -> Unix time) and changefreqs
        (URL -> word): each page's changefreq is kept for its prior; each stored page changed
        since its last fetch is due now; returns how many."""
        made_due = 0
        for page in pages:
            url = page.server.origin + page.path
            freq = changefreq((changefreqs or {}).get(url))
            if freq:
                self._changefreqs[page.target_id] = freq
            lastmod = lastmods.get(url)
            if lastmod is None or page.new:
                continue
            row = self.store.listed_row(page.target_id)
            if row is None or row[0] not in RECRAWLABLE or row[1] is None or lastmod <= row[1]:
                continue  # not fetched yet, or the store's copy is as new as the sitemap says
            self._sitemap_dates[page.target_id] = lastmod
            self.queues.schedule(page.target_id, page.server.id, now)
            self.store.set_due(page.target_id, now)
            made_due += 1
        self.stats.listed += made_due
        return made_due

    def document(self, entry: FrontierEntry, doc: Document, now: float) -> bool:
        """A recrawl brought a body; True when the page changed and its links must be replaced."""
        before = self._read(entry)
        change = classify(before.checksum, before.sketch, doc.checksum, doc.sketch)
        if before.state != State.FETCHED:
            change = Change.CHANGED  # a redirect (or a gone page) is a page again
        self._count(change)
        reason = Reason.NOINDEX if doc.noindex else None
        values: dict[str, Any] = dict(
            checksum=doc.checksum, sketch=doc.sketch or None, etag=doc.etag[:256] or None,
            last_modified=doc.last_modified[:64] or None, status=doc.status,
            content_type=doc.content_type[:128], title=doc.title[:1000], length=doc.length,
            reason=reason, detail=None)
        if change is Change.CHANGED:
            values["last_change"] = now
        self._record(entry, before, change, now, State.FETCHED, **values)
        if doc.body:  # asked for: settings.stores_responses
            self.store.save_response(entry.doc_id, now, doc)
        if change is not Change.CHANGED:
            return False
        if reason is None:
            self.sink.add(entry.doc_id, doc)  # replaces the old version in the index
        else:
            self.sink.remove(entry.doc_id)
        return True

    def not_modified(self, entry: FrontierEntry, answer: NotModified, now: float) -> None:
        """304: the stored copy is current; no body was sent."""
        before = self._read(entry)
        self.stats.not_modified += 1
        self._count(Change.UNMODIFIED, counted=True)
        validators = {k: v for k, v in (("etag", answer.etag[:256]),
                                        ("last_modified", answer.last_modified[:64])) if v}
        self._record(entry, before, Change.UNMODIFIED, now, before.state,
                     times_not_modified=before.not_modified + 1, **validators)

    def failure(self, entry: FrontierEntry, failure: Failure, now: float) -> None:
        """404/410: the page is gone (kept as a row, out of the index); else try again later."""
        self.stats.recrawled += 1
        if failure.status in GONE_STATUSES:
            self.stats.gone += 1
            self.store.finish(entry, State.GONE, reason=failure.reason,
                              detail=failure.detail[:2000], status=failure.status,
                              last_fetch=now, next_due=None)
            self.sink.remove(entry.doc_id)
            self.store.delete_links(entry.doc_id)
            self._place(entry.doc_id, None)
            self.queues.forget(entry.doc_id)
            return
        self.stats.failed += 1
        before = self._read(entry)
        self._schedule(entry, now + self.plan.bounded(before.last_interval() or self.plan.first_interval))

    def redirect(self, entry: FrontierEntry, now: float) -> None:
        """The page answers a redirect: a page that was stored leaves the index (the crawler
        then follows the target like a new link); either way it is looked at again later."""
        if entry.recrawl:
            self.stats.recrawled += 1
            if self._read(entry).state == State.FETCHED:
                self.stats.moved += 1
                self.sink.remove(entry.doc_id)
            self.store.delete_links(entry.doc_id)
        self._place(entry.doc_id, UNKNOWN)
        self._schedule(entry, self.policy.next_due(now, Fetched(None, UNKNOWN, None)))

    # --- internals ----------------------------------------------------------
    def _read(self, entry: FrontierEntry) -> _Before:
        row = self.store.page_history(entry.doc_id)
        assert row is not None, f"document {entry.doc_id} vanished"
        state, checksum, sketch, fetches, changes, trivial, unmodified, not_modified, first, last, \
            due, changed_seconds, shortest_change, last_modified, change_ages = row
        return _Before(state, checksum, sketch, fetches or 0, changes or 0, trivial or 0,
                       unmodified or 0, not_modified or 0, first, last, due, changed_seconds or 0.0,
                       shortest_change, last_modified, stored_ages(change_ages, changes or 0))

    def _count(self, change: Change, counted: bool = False) -> None:
        self.stats.recrawled += 1
        if change is Change.CHANGED:
            self.stats.changed += 1
        elif change is Change.TRIVIAL:
            self.stats.trivial += 1
        elif not counted:
            self.stats.identical += 1

    def _record(self, entry: FrontierEntry, before: _Before, change: Change, now: float,
                state: str, **values: Any) -> None:
        """The history after this answer, its bucket and next due time, in one UPDATE."""
        lastmod = values.get("last_modified", before.last_modified)
        listed = self._sitemap_dates.pop(entry.doc_id, None)
        if listed is not None and not values.get("last_modified"):  # the header wins
            lastmod = formatdate(listed, usegmt=True)
        history = _history_after(before, change is Change.CHANGED, now, lastmod)
        if before.last_fetch is not None and before.state == State.FETCHED:
            self.evidence.add(entry.server_id, self._changefreqs.get(entry.doc_id, ""),
                              now - before.last_fetch, change is Change.CHANGED)
        self.dates.add(entry.server_id, date_test(before.change_ages, history.change_ages,
                                                  change is Change.CHANGED, lastmod))
        history = replace(history, prior=self._prior(entry),
                          dates_vouched=self.dates.vouched(entry.server_id))
        page_bucket = bucket(history)
        due = self.policy.next_due(now, Fetched(change, page_bucket, before.last_interval(), history))
        self.store.finish(
            entry, state, times_fetched=history.fetches, times_changed=history.changes,
            changed_seconds=history.changed_span, shortest_change=history.shortest_change,
            change_ages=UNTRUSTED if history.change_ages is None else history.change_ages,
            times_trivial=before.trivial + (change is Change.TRIVIAL),
            times_unmodified=before.unmodified + (change is Change.UNMODIFIED),
            first_fetch=now - history.span, last_fetch=now, change_bucket=page_bucket,
            next_due=due, **values)
        self.queues.schedule(entry.doc_id, entry.server_id, due, fetched=now)
        self.queues.note(entry.doc_id, now, rate_of_bucket(page_bucket))
        self._place(entry.doc_id, page_bucket)

    def _place(self, doc_id: int, page_bucket: int | None) -> None:
        if self.replanner is not None:
            self.replanner.place(doc_id, page_bucket)

    def _schedule(self, entry: FrontierEntry, due: float | None) -> None:
        """`entry` was just asked for: its next time, never within min_revisit of now."""
        due = self.queues.schedule(entry.doc_id, entry.server_id, due, fetched=time.time())
        self.store.set_due(entry.doc_id, due)


def _history_after(before: _Before, changed: bool, now: float, lastmod: str | None) -> History:
    """The page's change history with this recrawl, the ages of its last changes dated from
    `lastmod` (the answer's Last-Modified) while trusted.

    A page's evidence before the crawl (issue 35): at its first recrawl, when its dates are
    trusted (this answer agrees with the shingles, lastmod.py), the history starts at the
    first fetch's Last-Modified (or its sitemap's lastmod) instead of the first fetch: the page
    was unchanged from then on, so a page untouched for a year is known slow after one
    recrawl instead of after many, and a page dated seconds before its first fetch gains
    nothing (its history is as before)."""
    last = before.last_fetch if before.last_fetch is not None else now
    ages = ages_after(before.change_ages, before.last_modified, lastmod, changed, now,
                      before.last_fetch)
    first = before.first_seen(now)
    dated = http_date(before.last_modified) if before.fetches == 1 and ages is not None else None
    if dated is not None and dated < first:
        first = dated
    past = History(before.fetches, before.changes, last - first, before.changed_seconds,
                   before.shortest_change)
    return past.after(max(0.0, now - last), changed, ages)


def incremental(store: Store, sink: DocumentSink, policy_name: str, plan: RecrawlPlan,
                fetch_rate: float, min_revisit: float = 0.0) -> tuple[Ordering, Recrawler]:
    """The ordering and the recrawler of `webcrawler index --incremental`: the WebCrawler's
    server order (new servers first, then round robin by last access) over each server's two
    queues. ValueError for an unknown policy name."""
    recrawler = Recrawler(store, sink, make_policy(policy_name, plan), plan, fetch_rate,
                          min_revisit)
    return Ordering(f"incremental+{policy_name}", ServerFirstOrder(), recrawler.queues), recrawler
