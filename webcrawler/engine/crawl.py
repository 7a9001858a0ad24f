"""The crawl loop: pick a server, hand a URL to a free agent, store the answer.

This is the WebCrawler's search engine in indexing mode. It alone decides
what to fetch (through the scheduler and the policies), it never does HTTP
(the agents do), and it is the single writer of the database (the store) and
of the full-text index (the sink).

Per server the order of requests is: robots.txt first (robots_txt.py keeps its
lifecycle), then documents in the ordering's order (orders/; breadth-first by
default), one at a time, with the politeness delay between them.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from webcrawler.database import State
from webcrawler.engine.canonical import Canonicals
from webcrawler.engine.frontier import FoundLink, Ordering
from webcrawler.engine.leases import ServerLeases, next_leased_server
from webcrawler.engine.near_duplicates import NEAR_DUPLICATE, NearDuplicates
from webcrawler.engine.orders.batch import server_first
from webcrawler.engine.policies import DocumentSink, NullSink, Scope
from webcrawler.engine.pool import AgentPool
from webcrawler.engine.robots_txt import RobotsTxt
from webcrawler.engine.scheduler import Scheduler, ServerState
from webcrawler.engine.sitemaps import Sitemaps
from webcrawler.engine.store import CrawlStore, FrontierEntry, NewURL
from webcrawler.messages import (
    Document,
    Failure,
    Link,
    NotModified,
    Reason,
    Redirect,
    Retrieve,
)
from webcrawler.settings import Settings
from webcrawler.storage_errors import StorageFull, is_disk_full
from webcrawler.urls import split, strip_params, try_normalize

if TYPE_CHECKING:
    from webcrawler.recrawl.recrawler import Recrawler

log = logging.getLogger(__name__)

MAX_REDIRECTS = 5
STOP_GRACE = 5.0  # seconds to let in-flight retrievals finish after a stop request


@dataclass
class _Job:
    server: ServerState
    entry: FrontierEntry | None  # None for robots.txt


@dataclass
class CrawlStats:
    """What the progress display and the summary show."""

    started: float = field(default_factory=time.monotonic)
    retrieved: int = 0  # documents retrieved (HTTP 200 with usable content)
    answered: int = 0  # every document answer, including failures and redirects
    robots: int = 0
    failures: Counter[str] = field(default_factory=Counter)
    excluded: Counter[str] = field(default_factory=Counter)
    stop_reason: str = ""

    def elapsed(self) -> float:
        return max(1e-9, time.monotonic() - self.started)

    def per_hour(self) -> float:
        return self.retrieved / self.elapsed() * 3600.0


class Crawler:
    """One run of `webcrawler index`: construct, `add_seeds`, `run`."""

    def __init__(self, settings: Settings, store: CrawlStore, *,
                 sink: DocumentSink | None = None,
                 pool_factory: Callable[[], AgentPool] | None = None,
                 progress: Callable[[Crawler], None] | None = None,
                 ordering: Ordering | None = None,
                 recrawl: Recrawler | None = None) -> None:
        self.settings = settings
        self.recrawl = recrawl  # an incremental crawl (webcrawler/recrawl/); None: batch
        self.store = store
        self.sink = sink or NullSink()
        self.scope = Scope(settings.include, settings.exclude, settings.max_depth,
                           settings.max_url_length, settings.deny_private, settings.scope_hosts)
        self.ordering = ordering or server_first(store)
        self.frontier = self.ordering.frontier
        self.scheduler = Scheduler(settings.delay, self.ordering.servers)
        self.leases = ServerLeases(settings.data_dir / "leases")  # politeness across processes
        self.robots = RobotsTxt(settings, store, self.scope.refuses_server)
        self.sitemaps = Sitemaps(settings.sitemaps, self.scope, settings.max_url_length, self._queue)
        self.canonicals = Canonicals(store.conn, self.scope, self.sink, self._url_of, self._queue)
        self.near_duplicates = NearDuplicates(store.conn, settings.near_duplicates)
        self.stats = CrawlStats()
        self._pool_factory = pool_factory or self._default_pool
        self._progress = progress
        self._jobs: dict[int, _Job] = {}
        self._job_ids = 0
        self._since_commit = 0
        self._last_commit = time.monotonic()
        self._stop_requested = ""
        self._load()

    # --- setup ----------------------------------------------------------
    def _default_pool(self) -> AgentPool:
        s = self.settings
        return AgentPool(s.agents, s.agent_config(), s.robots_token, deadline=s.deadline(),
                         max_urls=s.agent_max_urls, memory_mb=s.agent_memory_mb)

    def _load(self) -> None:
        """Resume: servers, their frontier sizes and unexpired robots rules from the database."""
        now = time.monotonic()
        servers = self.store.load_servers()
        self.robots.restore()
        for server in servers:
            self.scheduler.add(server, now)

    def add_seeds(self, urls: list[str]) -> list[str]:
        """Queue the seed URLs (depth 0); return the ones that are not valid http(s) URLs
        or that the scope excludes (no request is made for them, not even robots.txt)."""
        rejected = []
        for url in urls:
            normal = try_normalize(url, max_length=self.settings.max_url_length)
            normal = normal and strip_params(normal, self.settings.param_names())
            if normal is None or self.scope.why_not(normal, 0) not in (None, Reason.UNINDEXABLE):
                rejected.append(url)
                continue
            self._queue(split(normal), depth=0, redirects=0)
        self.store.commit()
        return rejected

    def in_flight(self) -> int:
        """Retrievals handed to agents and not yet answered."""
        return len(self._jobs)

    def request_stop(self, why: str = "interrupted") -> None:
        """Stop gracefully (from a signal handler): finish or put back in-flight work."""
        self._stop_requested = self._stop_requested or why

    # --- the loop -------------------------------------------------------
    def run(self) -> CrawlStats:
        run_id = self.store.start_run()
        if self._progress:
            self._progress(self)  # something on screen while the agents start
        pool = self._pool_factory()
        try:
            self._loop(pool, run_id)
        except BaseException as exc:
            if not is_disk_full(exc):
                raise
            self.stats.stop_reason = "disk full"
            self._abandon()
            if self._progress:
                self._progress(self)
            raise StorageFull(self.settings.data_dir) from None
        return self.stats

    def _loop(self, pool: AgentPool, run_id: int) -> None:
        try:
            try:
                self._crawl(pool, run_id)
                self._drain(pool)
            finally:
                pool.shutdown()
                self.leases.close()
        except BaseException as exc:
            if not is_disk_full(exc):  # a full disk takes nothing more: run() abandons instead
                self._finish(run_id)
            raise
        self._finish(run_id)

    def _crawl(self, pool: AgentPool, run_id: int) -> None:
        deadline = time.monotonic() + self.settings.hours * 3600.0
        next_report = 0.0
        while True:
            now = time.monotonic()
            reason = self._stop_reason(now, deadline, pool)
            if reason:
                self.stats.stop_reason = reason
                return
            if self.recrawl is not None:
                self.recrawl.tick(self.scheduler, now, pool.free() if not self.scheduler.ready() else 0)
            self._dispatch(pool, now)
            for job, answer in pool.poll(self._poll_timeout(now, deadline)):
                self._handle(job, answer)
            if self._commit_due(now):
                self._commit(run_id)
            if self._progress and now >= next_report:
                self._progress(self)
                next_report = now + self.settings.progress_interval

    def _finish(self, run_id: int) -> None:
        """The last commit, the index flushed, the final progress line."""
        self._commit(run_id, ended=True)
        self.sink.close()
        if self._progress:
            self._progress(self)

    def _abandon(self) -> None:
        """The disk is full: drop the transaction (the database keeps its last commit) and stop
        the index without writing; the next run resumes from the last commit."""
        try:
            self.store.conn.rollback()
        finally:
            self.sink.abort()

    def _stop_reason(self, now: float, deadline: float, pool: AgentPool) -> str:
        if self._stop_requested:
            return self._stop_requested
        if now >= deadline:
            return "time limit"
        if self.settings.max_docs and self.stats.retrieved >= self.settings.max_docs:
            return "document limit"
        if (pool.busy() == 0 and self.scheduler.ready() == 0 and not self._cooling_work()
                and self.recrawl is None):  # an incremental crawl runs for --hours
            return "nothing left to fetch"
        return ""

    def _cooling_work(self) -> bool:
        """Is any server with work waiting out its delay (robots retries do not count)?"""
        return any(s.has_work() and not self.robots.retrying(s) for s in self.scheduler.cooling())

    def _poll_timeout(self, now: float, deadline: float) -> float:
        timeout = self.scheduler.poll_timeout(now, deadline)
        hint = self.recrawl.wait_hint(now) if self.recrawl is not None else None
        return timeout if hint is None else min(timeout, hint)

    def _drain(self, pool: AgentPool) -> None:
        """Collect the answers of in-flight retrievals for a little while; the rest stay queued."""
        end = time.monotonic() + min(STOP_GRACE, self.settings.deadline())
        while pool.busy() and time.monotonic() < end:
            for job, answer in pool.poll(0.1):
                self._handle(job, answer)

    def _commit_due(self, now: float) -> bool:
        """Every `commit_every` documents, or `commit_seconds` after the last commit."""
        if self._since_commit >= self.settings.commit_every:
            return True
        return (now - self._last_commit >= self.settings.commit_seconds
                and self.store.conn.in_transaction())

    def _commit(self, run_id: int, ended: bool = False) -> None:
        failures = sum(self.stats.failures.values())
        self.store.update_run(run_id, self.stats.retrieved, failures, ended=ended,
                              stop_reason=self.stats.stop_reason or None)
        self.store.commit()
        self.sink.commit()
        self._since_commit = 0
        self._last_commit = time.monotonic()

    # --- dispatch -------------------------------------------------------
    def _dispatch(self, pool: AgentPool, now: float) -> None:
        while pool.free() and not self._stop_requested:
            if self.recrawl is not None and not self.recrawl.may_dispatch(now):
                return  # --fetch-rate: the next slot is not yet
            server = next_leased_server(self.scheduler, self.leases, self.settings.delay, now)
            if server is None:
                return
            job = self._job_for(server, now)
            if job is None:
                self.leases.release(server.origin, requested=False)
                continue
            self._job_ids += 1
            url = server.origin + ("/robots.txt" if job.entry is None else job.entry.path)
            kind = "robots" if job.entry is None else self.sitemaps.kind_of(url)
            self._jobs[self._job_ids] = job
            self.scheduler.dispatched(server)
            server.last_access = time.time()
            server.dirty = True
            if self.recrawl is not None:
                self.recrawl.dispatched(now)
            entry = job.entry
            pool.submit(Retrieve(self._job_ids, url, kind, entry.etag if entry else "",
                                 entry.last_modified if entry else "",
                                 sketch=self.recrawl is not None,
                                 body=self.settings.stores_responses))

    def _job_for(self, server: ServerState, now: float) -> _Job | None:
        """What to ask of `server` now: its robots.txt, its next allowed document, or nothing.

        A server deny_private refuses gets no request at all, not even for robots.txt.
        Returns None after telling the scheduler where the server goes instead.
        """
        if self.robots.due(server, now):
            return _Job(server, None)
        rules = self.robots.rules(server)
        if rules is None:  # robots.txt unavailable: ask again at its retry time
            self.scheduler.defer(server, server.robots_retry_at)
            return None
        cap = self.settings.max_docs_per_server
        while not (cap and server.docs_fetched >= cap) or server.recrawl_ready:
            server.capped = bool(cap and server.docs_fetched >= cap)  # recrawls go on past it
            entry = self.frontier.next_document(server)
            if entry is None:
                if not server.capped:
                    server.queued = 0
                break
            url = server.origin + entry.path
            reason = Reason.ROBOTS if not rules.allowed(url) else self.scope.why_not(url, entry.depth)
            if reason is None:
                return _Job(server, entry)
            self.store.finish(entry, State.EXCLUDED, reason=reason)
            if entry.recrawl:  # stored before, excluded now (robots.txt changed): out of the index
                self.sink.remove(entry.doc_id)
            self.stats.excluded[reason] += 1
        else:
            server.capped = True
        self.scheduler.idle(server)
        return None

    # --- answers --------------------------------------------------------
    def _handle(self, retrieve: Retrieve, answer: object) -> None:
        job = self._jobs.pop(retrieve.job_id)
        self.leases.release(job.server.origin)
        now = time.monotonic()
        if job.entry is None:
            self.robots.answered(job.server, answer)
            self.sitemaps.robots_answered(job.server, answer)
            self.stats.robots += 1
            self.scheduler.answered(job.server, now, first_document_done=False)
            return
        if isinstance(answer, Document):
            self._document(job, answer)
        elif isinstance(answer, NotModified) and self.recrawl is not None:
            self.recrawl.not_modified(job.entry, answer, time.time())
        elif isinstance(answer, Redirect):
            self._redirect(job, answer)
        elif isinstance(answer, Failure):
            self._failure(job, answer)
        else:  # a robots answer to a document request cannot happen; record, don't crash
            self._failure(job, Failure(retrieve.job_id, retrieve.url, Reason.AGENT_DIED,
                                       f"unexpected answer {type(answer).__name__}"))
        self.stats.answered += 1
        self._since_commit += 1
        self.scheduler.answered(job.server, now, first_document_done=True)

    def _document(self, job: _Job, doc: Document) -> None:
        entry, server = job.entry, job.server
        assert entry is not None
        now = time.time()
        if entry.recrawl and self.recrawl is not None:
            if self.recrawl.document(entry, doc, now):  # changed: its links are replaced
                self.store.delete_links(entry.doc_id)
                self._add_links(entry, doc.links)
            return
        duplicate = self.store.duplicate_of(doc.checksum, entry.doc_id)
        reason = Reason.NOINDEX if doc.noindex else Reason.DUPLICATE if duplicate else None
        detail = f"same content as document {duplicate}" if duplicate else None
        if reason is None:
            reason, detail = self.canonicals.judge(entry, doc)
        sketch = doc.sketch or self.near_duplicates.sketch(doc, reason)
        if reason is None and (near := self.near_duplicates.judge(entry, sketch)):
            reason, detail = NEAR_DUPLICATE, near
        self.store.record_fetch(
            entry, State.FETCHED, doc.checksum, now, reason=reason, detail=detail,
            status=doc.status, content_type=doc.content_type[:128], title=doc.title[:1000],
            length=doc.length, etag=doc.etag[:256] or None,
            last_modified=doc.last_modified[:64] or None, sketch=sketch or None,
            first_fetch=now, last_change=now,
        )
        if doc.body:  # asked for: settings.stores_responses
            self.store.save_response(entry.doc_id, now, doc)
        self.sitemaps.found(entry, doc)
        if self.recrawl is not None:
            self.recrawl.first_fetch(entry, now)
        server.docs_fetched += 1
        self.stats.retrieved += 1
        if not duplicate:
            self._add_links(entry, doc.links)
        if reason is None:
            self.sink.add(entry.doc_id, doc)

    def _url_of(self, entry: FrontierEntry) -> str:
        server = self.store.servers_by_id[entry.server_id]
        return server.origin + entry.path

    def _redirect(self, job: _Job, answer: Redirect) -> None:
        entry = job.entry
        assert entry is not None
        hops = entry.redirects + 1
        if hops > MAX_REDIRECTS:
            self._failure(job, Failure(answer.job_id, answer.url, Reason.TOO_MANY_REDIRECTS,
                                       f"more than {MAX_REDIRECTS} redirects", answer.status))
            return
        if self.recrawl is not None:
            self.recrawl.redirect(entry, time.time())
        self.store.finish(entry, State.REDIRECTED, status=answer.status, last_fetch=time.time(),
                          detail=answer.location[:2000])
        reason = self.scope.why_not(answer.location, entry.depth)
        if reason is None:
            targets = self._queue(split(answer.location), entry.depth, hops)
            self.store.add_links(entry.doc_id, [(targets, "")])
        elif reason == Reason.PRIVATE:
            self.stats.excluded[reason] += 1

    def _failure(self, job: _Job, failure: Failure) -> None:
        entry, server = job.entry, job.server
        assert entry is not None
        if entry.recrawl and self.recrawl is not None:
            self.recrawl.failure(entry, failure, time.time())
            return
        state = State.EXCLUDED if failure.reason == Reason.UNINDEXABLE else State.FAILED
        self.store.finish(entry, state, reason=failure.reason, detail=failure.detail[:2000],
                          status=failure.status, content_type=failure.content_type[:128] or None,
                          last_fetch=time.time())
        server.docs_failed += 1
        self.stats.failures[failure.reason] += 1

    # --- discovery ------------------------------------------------------
    def _add_links(self, entry: FrontierEntry, found: tuple[Link, ...]) -> None:
        depth = entry.depth + 1
        groups: dict[str, dict[str, str]] = {}
        for link in found:
            reason = self.scope.why_not(link.url, depth)
            if reason is not None:
                if reason == Reason.PRIVATE:  # counted: the summary says the safety worked
                    self.stats.excluded[reason] += 1
                continue
            origin, path = split(link.url)
            anchors = groups.setdefault(origin, {})
            if path not in anchors:
                anchors[path] = link.anchor
        stored: list[FoundLink] = []
        for origin, anchors in groups.items():
            server, ids, fresh = self._queue_many(origin, list(anchors), depth, 0)
            stored.extend(FoundLink(ids[path], server, path, anchor, depth, path in fresh)
                          for path, anchor in anchors.items())
        self.store.add_links(entry.doc_id, [(link.target_id, link.anchor) for link in stored])
        self.frontier.links_found(entry, stored)

    def _queue(self, parts: tuple[str, str], depth: int, redirects: int) -> int:
        origin, path = parts
        server, ids, fresh = self._queue_many(origin, [path], depth, redirects)
        self.frontier.links_found(None, [FoundLink(ids[path], server, path, "", depth,
                                                   path in fresh)])
        return ids[path]

    def _queue_many(self, origin: str, paths: list[str], depth: int, redirects: int
                    ) -> tuple[ServerState, dict[str, int], set[str]]:
        """Store `paths` of `origin` (a new server is added); (server, path -> id, new paths)."""
        server = self.store.server(origin)
        if server is None:
            server = self.store.add_server(origin, time.time())
            self.scheduler.add(server, time.monotonic())
        ids, fresh = self.store.add_urls(server, [NewURL(p, depth, redirects) for p in paths],
                                         time.time())
        if fresh:
            self.scheduler.work_added(server, time.monotonic())
        return server, ids, fresh
