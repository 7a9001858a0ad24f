"""The crawl loop: pick a server, hand a URL to a free agent, give the answer to its client.

This is the project's only crawl loop. `webcrawler index` (index_hooks.py), an
incremental crawl (recrawl/), a real-time search (engine/realtime/) and a toolkit
crawler (toolkit/runtime.py) are its clients: each gives it a store, a pool
of agents and hooks (the interfaces are in engine/interfaces.py), and each gets the
same rules. The loop decides what to fetch (through the scheduler and the
ordering), it never does HTTP (the agents do), and it is the single writer of
its store.

Per server the order of requests is: robots.txt first (robots_txt.py keeps its
lifecycle: expiry, retry), then documents in the ordering's order (scheduling/orders/;
breadth-first by default) that robots.txt and the scope allow, one at a time,
with the politeness delay between them; the lease files (scheduling/leases.py) keep that
across processes. Answers go to the hooks: a document, a redirect (at most
`MAX_REDIRECTS` in a row, more is a failure), a failure.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from webcrawler.database.states import State
from webcrawler.database.storage_errors import StorageFull, is_disk_full
from webcrawler.engine.interfaces import Committer, Hooks, Job, Pool, Store
from webcrawler.engine.loop.documents import queue_urls, store_links
from webcrawler.engine.loop.policies import DocumentSink, NullSink, Scope
from webcrawler.engine.loop.retries import Retries
from webcrawler.engine.loop.robots_txt import RobotsTxt
from webcrawler.engine.loop.sitemaps import Sitemaps
from webcrawler.engine.loop.traps import Calendars
from webcrawler.engine.records import FoundLink, FrontierEntry, ServerState
from webcrawler.engine.scheduling.frontier import Ordering, server_first
from webcrawler.engine.scheduling.leases import ServerLeases, next_leased_server
from webcrawler.engine.scheduling.politeness import AdaptiveDelay
from webcrawler.engine.scheduling.scheduler import Scheduler
from webcrawler.protocol.messages import (
    Answer,
    Document,
    Failure,
    NotModified,
    Outlink,
    Reason,
    Redirect,
    Retrieve,
)
from webcrawler.protocol.urls import split, strip_params, try_normalize
from webcrawler.settings import Settings

MAX_REDIRECTS = 5
IDLE_POLL = 0.25  # seconds: the longest wait for answers while the loop may not dispatch
STOP_GRACE = 5.0  # seconds to let in-flight retrievals finish after a stop request
TIME_LIMIT = "time limit"
NOTHING_LEFT = "nothing left to fetch"


@dataclass
class CrawlStats:
    """What the progress display and the summary show."""

    started: float = field(default_factory=time.monotonic)
    retrieved: int = 0  # documents retrieved (HTTP 200 with usable content)
    answered: int = 0  # every document answer, including failures and redirects
    requests: int = 0  # every request handed to an agent (robots.txt too): the bandwidth spent
    robots: int = 0
    rendered: int = 0  # documents whose scripts ran in Chromium (--render)
    failures: Counter[str] = field(default_factory=Counter)
    excluded: Counter[str] = field(default_factory=Counter)
    stop_reason: str = ""

    def elapsed(self) -> float:
        return max(1e-9, time.monotonic() - self.started)

    def per_hour(self) -> float:
        return self.retrieved / self.elapsed() * 3600.0


class BaseHooks:
    """`Hooks` (interfaces.py) that do nothing: a client overrides what it needs."""

    def document(self, entry: FrontierEntry, server: ServerState, doc: Document) -> None:
        pass

    def redirect(self, entry: FrontierEntry, answer: Redirect, hops: int) -> None:
        pass

    def failure(self, entry: FrontierEntry, server: ServerState, failure: Failure) -> None:
        pass

    def not_modified(self, entry: FrontierEntry, answer: NotModified) -> None:
        pass

    def excluded(self, entry: FrontierEntry, reason: str) -> None:
        pass

    def tick(self, now: float) -> None:
        pass

    def stop_reason(self, now: float, reason: str) -> str:
        return reason

    def may_dispatch(self, now: float) -> bool:
        return True

    def wait_hint(self, now: float) -> float | None:
        return None

    def dispatched(self, job: Job, now: float) -> None:
        pass

    def kind(self, entry: FrontierEntry) -> str:
        return "document"

    def report(self) -> str:
        return ""

    def found(self) -> str:
        return ""

    def ending(self) -> None:
        pass


class CrawlLoop:
    """One crawl: construct with a store, the client's hooks (made from the loop, which
    they may use: `follow`, `queue`, `stats`, `request_stop`) and a pool factory;
    `add_seeds`; `run`."""

    def __init__(self, settings: Settings, store: Store, hooks: Callable[[CrawlLoop], Hooks], *,
                 pool_factory: Callable[[], Pool], sink: DocumentSink | None = None,
                 ordering: Ordering | None = None, scope: Scope | None = None,
                 seconds: float | None = None, sketch: bool = False, sitemaps: bool = False,
                 run_mode: str = "index", resume: bool = True) -> None:
        self.settings = settings
        self.store = store
        self.sink = sink or NullSink()
        self.scope = scope or Scope(settings.include, settings.exclude, settings.max_depth,
                                    settings.max_url_length, settings.deny_private,
                                    settings.scope_hosts, settings.trap_repeats, settings.types)
        self.calendars = Calendars(settings.trap_budget)  # endless date sequences (traps.py)
        self.ordering = ordering or server_first(store)
        self.frontier = self.ordering.frontier
        self.scheduler = Scheduler(settings.delay, self.ordering.servers)
        self.leases = ServerLeases(settings.paths.leases)  # politeness across processes
        self.robots = RobotsTxt(settings, store, self.scope.refuses_server)
        self.retries = Retries(settings, store)  # a passing failure is tried again
        self.politeness = AdaptiveDelay(settings)  # slow or overloaded servers: asked less often
        self.sitemaps = Sitemaps(sitemaps and settings.sitemaps, self.scope, settings.max_url_length,
                                 self.queue_id)  # `webcrawler index` reads them
        self.stats = CrawlStats()
        self.pool: Pool | None = None  # while the loop runs
        self.hooks = hooks(self)  # the client's, made for this loop
        self.seconds = settings.hours * 3600.0 if seconds is None else seconds
        self.sketch = sketch  # agents make shingle sketches (an incremental crawl compares them)
        self.run_mode = run_mode  # what the store's record of the run says it was
        self.resume = resume  # take up the store's frontier (False: the client brings its work)
        self._pool_factory = pool_factory
        self._jobs: dict[int, Job] = {}
        self._job_ids = 0
        self._since_commit = 0
        self._last_commit = time.monotonic()
        self._committers: list[Committer] = []
        self._stop_requested = ""
        self._load()

    # --- setup ----------------------------------------------------------
    def _load(self) -> None:
        """Resume: servers, their frontier sizes and unexpired robots rules from the store. A
        client that brings its own work (`resume=False`: a toolkit crawl on a data directory)
        gets the servers and their rules, but none is scheduled until it queues there: the
        store's old frontier is not this crawl's."""
        now = time.monotonic()
        servers = self.store.load_servers()
        self.robots.restore()
        for server in servers if self.resume else ():
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
            self.queue(normal, depth=0, redirects=0)
        self.store.commit()
        return rejected

    def on_commit(self, committer: Committer) -> None:
        """Commit `committer` whenever the loop commits (after its store and sink), and count
        its pending writes for the time cadence: a client writing elsewhere keeps the loop's
        rhythm instead of a copy of it."""
        if committer not in self._committers:
            self._committers.append(committer)

    def in_flight(self) -> int:
        """Retrievals handed to agents and not yet answered."""
        return len(self._jobs)

    def documents_in_flight(self) -> int:
        """Document retrievals (robots.txt left out) handed to agents and not yet answered."""
        return sum(1 for job in self._jobs.values() if job.entry is not None)

    def request_stop(self, why: str = "interrupted") -> None:
        """Stop gracefully (from a signal handler or a hook): finish or put back in-flight work."""
        self._stop_requested = self._stop_requested or why

    # --- the loop -------------------------------------------------------
    def run(self) -> CrawlStats:
        run_id = self.store.start_run(self.run_mode)
        self.hooks.tick(time.monotonic())  # something on screen while the agents start
        pool = self.pool = self._pool_factory()
        try:
            self._loop(pool, run_id)
        except BaseException as exc:
            if not is_disk_full(exc):
                raise
            self.stats.stop_reason = "disk full"
            self._abandon()
            self.hooks.tick(time.monotonic())
            raise StorageFull(self.settings.data_dir) from None
        return self.stats

    def _loop(self, pool: Pool, run_id: int) -> None:
        try:
            try:
                self._crawl(pool, run_id)
                self._drain(pool)
            finally:
                pool.shutdown()
                self.pool = None
                self.leases.close()
        except BaseException as exc:
            if not is_disk_full(exc):  # a full disk takes nothing more: run() abandons instead
                self._finish(run_id)
            raise
        self._finish(run_id)

    def _crawl(self, pool: Pool, run_id: int) -> None:
        deadline = time.monotonic() + self.seconds
        while True:
            now = time.monotonic()
            reason = self.hooks.stop_reason(now, self._stop_reason(now, deadline, pool))
            if reason:
                self.stats.stop_reason = reason
                if reason == NOTHING_LEFT:
                    self._give_up_unreachable()
                return
            self.hooks.tick(now)
            self._dispatch(pool, now)
            for job, answer in pool.poll(self._poll_timeout(now, deadline)):
                self._handle(job, answer)
            if self._commit_due(now):
                self._commit(run_id)

    def _give_up_unreachable(self) -> None:
        """Nothing is left that this crawl may fetch: the pages of a server whose robots.txt
        could not be had are this crawl's failures, with its reason (Heritrix's
        prerequisite failure), so the summary does not say "still queued" and "no failures"
        above an error that every seed failed. A resumed crawl asks again, whatever the
        reason (store.requeue_retries: a detail that starts "robots.txt unreachable" is never
        one of records.NOT_PASSING_DETAILS; a certificate may be trusted by then)."""
        for server_id, failure in list(self.retries.robots_failures.items()):
            server = self.scheduler.servers.get(server_id)
            if server is None:
                continue
            for _ in range(server.queued):
                entry = self.frontier.next_document(server)
                if entry is None:
                    break
                self.hooks.failure(entry, server, replace(
                    failure, url=server.origin + entry.path,
                    detail=f"robots.txt unreachable: {failure.detail}"))

    def _finish(self, run_id: int) -> None:
        """The client's last writes, the last commit, the index flushed, the final tick."""
        self.hooks.ending()
        self._commit(run_id, ended=True)
        self.sink.close()
        self.hooks.tick(time.monotonic())

    def _abandon(self) -> None:
        """The disk is full: drop the transaction (the database keeps its last commit) and stop
        the index without writing; the next run resumes from the last commit."""
        try:
            self.store.rollback()
        finally:
            self.sink.abort()

    def _stop_reason(self, now: float, deadline: float, pool: Pool) -> str:
        if self._stop_requested:
            return self._stop_requested
        if now >= deadline:
            return TIME_LIMIT
        if pool.busy() == 0 and self.scheduler.ready() == 0 and not self._cooling_work():
            return NOTHING_LEFT
        return ""

    def _cooling_work(self) -> bool:
        """Is any server with work waiting out its delay (robots retries do not count)?"""
        now = time.monotonic()
        return any(s.has_work() and self.retries.worth_waiting(s, now, self.robots.retrying(s))
                   for s in self.scheduler.cooling())

    def _poll_timeout(self, now: float, deadline: float) -> float:
        """How long to wait for answers. A client that paces the loop (an incremental crawl's
        --fetch-rate) gives a hint; while it or a full pool forbids dispatching, a server's
        end of cooling cannot be used, so it does not cut the wait short (it did: a cooled
        server stays in the scheduler's heap until the next dispatch, so the loop polled with
        no timeout until the pace's next slot, 2,500 times a second; issue 36)."""
        hint = self.hooks.wait_hint(now)
        if hint is None:
            return self.scheduler.poll_timeout(now, deadline)
        if self.hooks.may_dispatch(now) and self.pool is not None and self.pool.free():
            timeout = self.scheduler.poll_timeout(now, deadline)
        else:
            timeout = min(IDLE_POLL, max(0.0, deadline - now))
        return min(timeout, hint)

    def _drain(self, pool: Pool) -> None:
        """Collect the answers of in-flight retrievals for a little while; the rest stay queued."""
        end = time.monotonic() + min(STOP_GRACE, self.settings.deadline())
        while pool.busy() and time.monotonic() < end:
            for job, answer in pool.poll(0.1):
                self._handle(job, answer)

    def _commit_due(self, now: float) -> bool:
        """Every `commit_every` documents, or `commit_seconds` after the last commit."""
        if self._since_commit >= self.settings.commit_every:
            return True
        return now - self._last_commit >= self.settings.commit_seconds and (
            self.store.pending() or any(c.pending() for c in self._committers))

    def _commit(self, run_id: int, ended: bool = False) -> None:
        failures = sum(self.stats.failures.values())
        self.store.update_run(run_id, self.stats.retrieved, failures, ended=ended,
                              stop_reason=self.stats.stop_reason or None,
                              requests=self.stats.requests, fetch_rate=self.settings.fetch_rate)
        self.store.commit()
        self.sink.commit()
        for committer in self._committers:
            committer.commit()
        self._since_commit = 0
        self._last_commit = time.monotonic()

    # --- dispatch -------------------------------------------------------
    def _dispatch(self, pool: Pool, now: float) -> None:
        while pool.free() and not self._stop_requested and self.hooks.may_dispatch(now):
            server = next_leased_server(self.scheduler, self.leases, self.settings.delay, now)
            if server is None:
                return
            job = self._job_for(server, now)
            if job is None:
                self.leases.release(server.origin, requested=False)
                continue
            self._submit(pool, job, now)

    def _submit(self, pool: Pool, job: Job, now: float) -> None:
        self._job_ids += 1
        entry, server = job.entry, job.server
        self._jobs[self._job_ids] = job
        self.stats.requests += 1
        self.scheduler.dispatched(server)
        server.last_access = time.time()
        server.dirty = True
        self.hooks.dispatched(job, now)
        if entry is None:
            pool.submit(Retrieve(self._job_ids, server.origin + "/robots.txt", "robots"))
            return
        url = server.origin + entry.path
        kind = self.hooks.kind(entry)
        kind = self.sitemaps.kind_of(url) if kind == "document" else kind
        robots = self._robots_for(server) if kind in ("document", "page") else None  # rendered
        pool.submit(Retrieve(self._job_ids, url, kind, entry.etag, entry.last_modified,
                             sketch=self.sketch, body=self.settings.stores_responses, robots=robots))

    def _robots_for(self, server: ServerState) -> tuple[int | None, str] | None:
        """`server`'s robots.txt (status, body) for an agent that may render its page: the
        page's scripts' requests pass the rules its links do (None when no agent renders)."""
        rules = self.robots.rules(server) if self.settings.render != "never" else None
        return None if rules is None else (rules.status, rules.body)

    def _job_for(self, server: ServerState, now: float) -> Job | None:
        """What to ask of `server` now: its robots.txt, its next allowed document, or nothing.

        A server deny_private refuses gets no request at all, not even for robots.txt.
        Returns None after telling the scheduler where the server goes instead.
        """
        if self.robots.due(server, now):
            return Job(server, None)
        rules = self.robots.rules(server)
        if rules is None:  # robots.txt unavailable: ask again at its retry time
            self.scheduler.defer(server, server.robots_retry_at)
            return None
        cap = self.settings.max_docs_per_server
        while not (cap and server.docs_fetched >= cap) or server.recrawl_ready:
            server.capped = bool(cap and server.docs_fetched >= cap)  # recrawls go on past it
            entry = self.retries.next_due(server, now) or self.frontier.next_document(server)
            if entry is None:
                if not server.capped:
                    server.queued = 0
                break
            reason = self._refusal(server.origin + entry.path, entry, rules.allowed)
            if reason is None and not self.calendars.allows(server.origin, entry.path, entry.doc_id):
                reason = Reason.TRAP
            if reason is None:
                return Job(server, entry)
            self.store.finish(entry, State.EXCLUDED, reason=reason)
            self.stats.excluded[reason] += 1
            self.hooks.excluded(entry, reason)
        else:
            server.capped = True
        self.retries.park(self.scheduler, server)  # idle, or back when a retry is due
        return None

    def _refusal(self, url: str, entry: FrontierEntry, allowed: Callable[[str], bool]) -> str | None:
        """Why robots.txt or the scope refuse `url` now (a file's bytes may be of any type)."""
        if not allowed(url):
            return Reason.ROBOTS
        reason = self.scope.why_not(url, entry.depth)
        if reason == Reason.UNINDEXABLE and self.hooks.kind(entry) == "file":
            return None
        return reason

    # --- answers --------------------------------------------------------
    def _handle(self, retrieve: Retrieve, answer: Answer) -> None:
        job = self._jobs.pop(retrieve.job_id)
        refused = getattr(answer, "reason", "") == Reason.POLICY  # never went out
        self.leases.release(job.server.origin, requested=not refused)
        now = time.monotonic()
        self.politeness.observe(job.server, answer, now)
        entry = job.entry
        if entry is None:
            self.robots.answered(job.server, answer)
            self.retries.robots_answered(job.server, answer, now)
            self.sitemaps.robots_answered(job.server, answer)
            self.stats.robots += 1
            self.scheduler.answered(job.server, now, first_document_done=False)
            return
        if isinstance(answer, Document):
            self.stats.rendered += answer.rendered
            self.calendars.answered(job.server.origin, entry.path, answer.title, answer.text,
                                    (link.url for link in answer.links))  # read if dated
            self.hooks.document(entry, job.server, answer)
            self.retries.fetched(entry)
            self.sitemaps.found(entry, answer)
        elif isinstance(answer, NotModified):
            self.hooks.not_modified(entry, answer)
        elif isinstance(answer, Redirect):
            self._redirect(entry, job.server, answer)
        elif isinstance(answer, Failure):
            if entry.recrawl or not self.retries.failed(entry, job.server, answer, now):
                self.hooks.failure(entry, job.server, answer)  # final (a retry is asked later)
        else:  # a robots answer to a document request cannot happen; record, don't crash
            self.hooks.failure(entry, job.server, Failure(
                retrieve.job_id, retrieve.url, Reason.AGENT_DIED,
                f"unexpected answer {type(answer).__name__}"))
        self.stats.answered += 1
        self._since_commit += 1
        self.scheduler.answered(job.server, now, first_document_done=True)

    def _redirect(self, entry: FrontierEntry, server: ServerState, answer: Redirect) -> None:
        hops = entry.redirects + 1
        if hops > MAX_REDIRECTS:
            self.hooks.failure(entry, server, Failure(
                answer.job_id, answer.url, Reason.TOO_MANY_REDIRECTS,
                f"more than {MAX_REDIRECTS} redirects", answer.status))
            return
        self.hooks.redirect(entry, answer, hops)

    # --- discovery (for the hooks) -------------------------------------------
    def follow(self, entry: FrontierEntry, found: tuple[Outlink, ...]) -> list[FoundLink]:
        """Store the links of `entry`'s document that the scope lets in, queue their new
        targets, and tell the frontier."""
        stored, refused = store_links(self.store, self.scope, entry, found, self._queued)
        self.stats.excluded.update(refused)  # private addresses and traps: the summary says so
        self.frontier.links_found(entry, stored)
        return stored

    def queue(self, url: str, depth: int, redirects: int, state: str = State.QUEUED,
              again: bool = False) -> FoundLink:
        """Store one normalised `url` (a seed, a redirect's target) and queue it if it is new
        (`state` another than queued: just know it). `again`: a URL the store knows is this
        crawl's work too (a client with its own frontier fetches it again: a toolkit crawl on
        a data directory), counted in its server's queue until it is answered."""
        origin, path = split(url)
        server, added, ids, fresh = queue_urls(self.store, origin, [path], depth, redirects, state)
        unscheduled = server.id not in self.scheduler.servers  # not resumed (resume=False)
        if again and path not in fresh:
            self.store.requeue(server, ids[path])  # out again when answered
            self._queued(server, added or unscheduled, {path})
        else:
            self._queued(server, added or unscheduled, fresh)
        link = FoundLink(ids[path], server, path, "", depth, path in fresh)
        self.frontier.links_found(None, [link])
        return link

    def queue_id(self, url: str, depth: int) -> int:
        """The id of normalised `url`'s document, queued if it is new (a sitemap, a canonical URL)."""
        return self.queue(url, depth, 0).target_id

    def url_of(self, entry: FrontierEntry) -> str:
        return self.store.servers_by_id[entry.server_id].origin + entry.path

    def server(self, origin: str) -> ServerState:
        """The store's server of `origin`, stored and scheduled if it is new to this loop."""
        server = self.store.server(origin)
        if server is None:
            server = self.store.add_server(origin, time.time())
            self._queued(server, True, set())
        return server

    def _queued(self, server: ServerState, added: bool, fresh: set[str]) -> None:
        if added:  # new to the store, or (queue) to this loop's scheduler
            self.scheduler.add(server, time.monotonic())
        if fresh:
            self.scheduler.work_added(server, time.monotonic())
