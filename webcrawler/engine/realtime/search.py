"""Real-time search mode: crawl now for documents like the user's query (Pinkerton 1994).

"To find an initial list of similar documents, the WebCrawler runs the user's
query against its index. [...] From the list, the most relevant documents are
noted, and any unexplored links from those documents are followed. As new
documents are retrieved, they are added to the index, and the query is re-run.
[...] new documents near the top of the list become candidates for further
exploration." Links are chosen by the similarity of their anchor text to the
query (`orders/anchor_text.py`).

    run_realtime(settings, options, on_event=None, cancelled=None) -> RealtimeSummary

A job is a client of the crawl loop with the indexing hooks and another `Ordering`: the same agents,
robots.txt rules, politeness and content-type discrimination. Every document
it retrieves goes through the store and the index sink, so it stays in the
index for everyone. It stops when `want` new documents reach `threshold`
(relevance of 1000), after `seconds`, after `max_fetches` retrievals, or when
cancelled. It is built to run beside `webcrawler index` on the same data
directory: it commits after every answer, holds no transaction while it waits,
and reads the links it explores through a read-only connection.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from webcrawler import index
from webcrawler.datadir import create_private
from webcrawler.engine.interfaces import Job, OutboxBook
from webcrawler.engine.loop.crawl import NOTHING_LEFT, CrawlLoop
from webcrawler.engine.loop.index_hooks import IndexHooks
from webcrawler.engine.loop.pool import start_agents
from webcrawler.engine.pipeline.index_sink import IndexSink
from webcrawler.engine.records import FrontierEntry, ServerState
from webcrawler.engine.scheduling.orders.anchor_text import AnchorFrontier, Candidate, anchor_ordering
from webcrawler.engine.store.scope import resolve
from webcrawler.engine.store.sql import CrawlStore, waiting_engine
from webcrawler.index.words.query import parse_with_words as parse_query
from webcrawler.protocol.messages import Document, Failure, NotModified, Redirect
from webcrawler.settings import Settings

log = logging.getLogger(__name__)

TICK = 0.1  # seconds between two looks at the index
SETTLE = 3.0  # seconds a fetched document may take to show in the index's results
BUSY_TIMEOUT_MS = 120_000  # wait this long for `webcrawler index` to commit


@dataclass(frozen=True)
class RealtimeOptions:
    """One real-time search. Each field: default, then what it is for."""

    query: str
    seconds: float = 30.0  # stop after this long
    want: int = 10  # stop when this many new documents reach `threshold`
    threshold: int = 300  # relevance (of 1000, the best result's) a document needs to count
    max_fetches: int = 200  # retrievals at most
    start_urls: tuple[str, ...] = ()  # start from these documents too (or instead of the index)
    explore_top: int = 50  # results this near the top have their links explored
    guided: bool = True  # False: breadth-first from the same documents (the benchmark baseline)


@dataclass(frozen=True, slots=True)
class Found:
    """A document like the query: already in the index (`new` False) or retrieved just now."""

    doc_id: int
    url: str
    title: str
    score: int  # relevance, 1000 for the best result when it was found
    new: bool
    seconds: float  # since the job started


@dataclass(frozen=True, slots=True)
class Progress:
    fetched: int  # documents asked of the agents so far
    found: int  # new documents that reached the threshold
    seconds: float


@dataclass(frozen=True, slots=True)
class RealtimeSummary:
    query: str
    fetched: int
    found: int
    seconds: float
    stop_reason: str
    results: tuple[Found, ...] = field(default_factory=tuple)
    scope: str = ""  # the scope in force, and where it came from


class RealtimeSink:
    """The index sink of a job, composed around an `IndexSink` of its own kind (a second
    writer: batches numbered below every other writer's, none re-sent; each committed as it
    comes, as its searcher waits for what it fetched): tells the job what it fetched, and
    keeps no transaction open."""

    commit_pace = 0.0

    def __init__(self, store: OutboxBook, index_dir: Path,
                 on_add: Callable[[int], None]) -> None:
        self.store = store
        self._on_add = on_add
        self.index = IndexSink(store, index_dir, pace=self.commit_pace, resend=False)

    def add(self, doc_id: int, document: Document) -> None:
        self.index.add(doc_id, document)
        self._on_add(doc_id)

    def remove(self, doc_id: int) -> None:
        self.index.remove(doc_id)

    def resend(self, doc_ids: Sequence[int]) -> None:
        self.index.resend(doc_ids)

    def commit(self) -> None:
        self.index.commit()
        if self.store.pending():  # the outbox clean-up
            self.store.outbox_commit()

    def close(self) -> None:
        self.index.close()

    def abort(self) -> None:
        self.index.abort()


class RealtimeHooks:
    """The job's hooks, composed: the index's (`IndexHooks`) take the answers, the job keeps
    the clock and its reasons to stop."""

    def __init__(self, loop: CrawlLoop, job: RealtimeJob) -> None:
        self.index = IndexHooks(loop)
        self.loop = loop
        self.job = job
        self._next_report = 0.0

    # --- the answers: the index's --------------------------------------------
    def document(self, entry: FrontierEntry, server: ServerState, doc: Document) -> None:
        self.index.document(entry, server, doc)

    def redirect(self, entry: FrontierEntry, answer: Redirect, hops: int) -> None:
        self.index.redirect(entry, answer, hops)

    def failure(self, entry: FrontierEntry, server: ServerState, failure: Failure) -> None:
        self.index.failure(entry, server, failure)

    def not_modified(self, entry: FrontierEntry, answer: NotModified) -> None:
        self.index.not_modified(entry, answer)

    def excluded(self, entry: FrontierEntry, reason: str) -> None:
        self.index.excluded(entry, reason)

    def kind(self, entry: FrontierEntry) -> str:
        return self.index.kind(entry)

    def report(self) -> str:
        return self.index.report()

    def found(self) -> str:
        return self.index.found()

    def ending(self) -> None:
        self.index.ending()

    def wait_hint(self, now: float) -> float | None:
        return self.index.wait_hint(now)

    def dispatched(self, job: Job, now: float) -> None:
        self.index.dispatched(job, now)

    # --- the job's clock and stop ---------------------------------------------
    def tick(self, now: float) -> None:
        if now >= self._next_report or self.loop.stats.stop_reason:
            self._next_report = now + TICK
            self.job.tick(self.loop)

    def stop_reason(self, now: float, reason: str) -> str:
        return self.job.stopping or reason

    def may_dispatch(self, now: float) -> bool:
        return not self.job.stopping


class RealtimeJob:
    """One real-time search: construct, then `run()` (blocking)."""

    def __init__(self, settings: Settings, options: RealtimeOptions,
                 on_event: Callable[[Found | Progress], None] | None = None,
                 cancelled: Callable[[], bool] | None = None,
                 explicit: Collection[str] | None = None) -> None:
        parse_query(options.query)  # raises index.QueryError for a query that cannot run
        self.options = options
        self._explicit = explicit
        self.settings = dataclasses.replace(
            settings, hours=options.seconds / 3600.0, commit_every=1,
            max_docs=0, seeds=(), sitemaps=False)  # the query's links, not a site's list
        self._on_event = on_event or (lambda e: None)
        self._cancelled = cancelled or (lambda: False)
        self._started = time.monotonic()
        self._fetched: set[int] = set()  # doc ids retrieved by this job
        self._last_fetch = 0.0
        self._explored: set[int] = set()
        self._reported: dict[int, Found] = {}
        self._found = 0
        self._old_shown = 0
        self._next_progress = 0.0
        self._searcher: index.SearchIndex | None = None
        self.stopping = ""  # why the job stops, once it does

    # --- running ----------------------------------------------------------
    def run(self) -> RealtimeSummary:
        s = self.settings
        create_private(s.data_dir)
        engine = waiting_engine(s.database_url, BUSY_TIMEOUT_MS)  # beside `webcrawler index`
        s, self._scope = resolve(engine, s, self._explicit)  # the stored scope, unless flags replace it
        self.settings = s
        log.info("%s", self._scope)
        store = self.store = CrawlStore(engine)  # its reads of links: outside its transaction
        sink: RealtimeSink | None = None
        try:
            index.prepare_layout(s.index_dir, 1)  # refuses a sharded index: it writes one index
            sink = RealtimeSink(store, s.index_dir, self._document_added)
            self.frontier = AnchorFrontier(
                self.options.query, self.options.guided, self.options.max_fetches,
                expecting=self._expecting, still_queued=lambda doc_id: bool(self._queued([doc_id])),
                work_added=self._work_added)
            self.crawler = CrawlLoop(s, store, lambda loop: RealtimeHooks(loop, self), sink=sink,
                                     ordering=anchor_ordering(self.frontier),
                                     pool_factory=lambda: start_agents(s), run_mode="realtime")
            rejected = self.crawler.add_seeds(list(self.options.start_urls))
            if rejected:
                log.warning("not crawlable http(s) URLs, or outside the crawl's scope, skipped: %s",
                            ", ".join(rejected))
            self._rerun(explore=True)
            store.commit()
            stats = self.crawler.run()
        finally:
            if self._searcher is not None:
                self._searcher.close()
            store.close()
            engine.dispose()
        return RealtimeSummary(self.options.query, stats.answered, self._found, self._elapsed(),
                               stats.stop_reason, tuple(self._reported.values()), self._scope)

    def tick(self, crawler: CrawlLoop) -> None:
        """The job's clock (every TICK, and once at the end): re-run the query, explore."""
        final = bool(crawler.stats.stop_reason)
        if self._cancelled() and not self.stopping:
            self.stopping = "cancelled"
        self._rerun(explore=self.options.guided and not final)
        if self._found >= self.options.want and not self.stopping:
            self.stopping = "enough found"
            if final and crawler.stats.stop_reason == NOTHING_LEFT:
                # the last answers, counted only now that the index has them all, were enough:
                # the search ends because it found what it wanted, not because it ran dry
                crawler.stats.stop_reason = self.stopping
        if crawler.store.pending():
            crawler.store.commit()
        now = time.monotonic()
        if final or now >= self._next_progress:
            self._next_progress = now + 0.5
            self._on_event(Progress(crawler.stats.answered, self._found, self._elapsed()))

    def _work_added(self, server: ServerState) -> None:
        self.crawler.scheduler.work_added(server, time.monotonic())

    def _document_added(self, doc_id: int) -> None:
        self._fetched.add(doc_id)
        self._last_fetch = time.monotonic()

    def _expecting(self) -> bool:
        f = self.frontier
        if self.stopping or (f.max_fetches and f.handed_out >= f.max_fetches):
            return False
        return time.monotonic() - self._last_fetch < SETTLE

    def _elapsed(self) -> float:
        return time.monotonic() - self._started

    # --- the query, re-run ------------------------------------------------
    def _rerun(self, explore: bool) -> None:
        searcher = self._open_searcher()
        if searcher is None:
            return
        searcher.refresh()
        hits = searcher.search(self.options.query, per_page=100).hits
        for hit in hits:
            if hit.doc_id in self._reported or hit.score < self.options.threshold:
                continue
            new = hit.doc_id in self._fetched
            if not new and self._old_shown >= max(self.options.want, 10):
                continue
            found = Found(hit.doc_id, hit.url, hit.title, hit.score, new, round(self._elapsed(), 2))
            self._reported[hit.doc_id] = found
            self._found += new
            self._old_shown += not new
            self._on_event(found)
        if explore:
            for hit in hits[: self.options.explore_top]:
                if hit.doc_id not in self._explored:
                    self._explored.add(hit.doc_id)
                    self._explore(hit.doc_id, hit.score / 1000.0)

    def _explore(self, doc_id: int, relevance: float) -> None:
        fetched = self.frontier.fetched_links.pop(doc_id, None)
        if fetched is not None:
            known = [link.target_id for link in fetched if not link.new]
            unexplored = self._queued(known) if known else set()
            self.frontier.explore([link for link in fetched
                                   if link.new or link.target_id in unexplored], relevance)
        elif doc_id not in self._fetched:
            self.frontier.explore(self._index_links(doc_id), relevance)

    def _queued(self, doc_ids: list[int]) -> set[int]:
        return self.store.queued_among(doc_ids)

    def _index_links(self, doc_id: int) -> list[Candidate]:
        """The unexplored links of a document crawled before: queued targets, with anchors."""
        store, result = self.crawler.store, []
        for target_id, anchor, origin, path, depth, redirects, server_id in self.store.queued_links(doc_id):
            if self.crawler.scope.why_not(origin + path, depth):
                continue  # queued under a wider scope: not even its robots.txt is asked
            server = store.servers_by_id.get(server_id)
            if server is None:  # added by another writer since the job started
                server = self.crawler.server(origin)
            entry = FrontierEntry(target_id, server.id, path, depth, redirects)
            result.append(Candidate(entry, server, anchor))
        return result

    def _open_searcher(self) -> index.SearchIndex | None:
        if self._searcher is None:
            try:
                self._searcher = index.open_searcher(self.settings.index_dir)
            except FileNotFoundError:
                return None
        return self._searcher


def run_realtime(settings: Settings, options: RealtimeOptions,
                 on_event: Callable[[Found | Progress], None] | None = None,
                 cancelled: Callable[[], bool] | None = None,
                 explicit: Collection[str] | None = None) -> RealtimeSummary:
    """Run one real-time search (blocking); raises index.QueryError for a bad query.
    It keeps the crawl's stored scope unless `explicit` settings override it."""
    return RealtimeJob(settings, options, on_event, cancelled, explicit).run()


