"""One run of a personal crawler, on the WebCrawler's engine.

SPHINX section 2's loop - take a link from the ready queue, retrieve its page,
pass it to the classifiers and to `visit`, then offer each of its links to
`should_visit` and queue the approved ones - run with the engine's parts, so
a ten-line crawler is as polite as `webcrawler index`:

- every request goes to the agent processes (engine/pool.py), through the
  request policy (gate.py), robots.txt first on each server (robots.py);
- the engine's Scheduler keeps one request in flight per server and the delay
  (or Crawl-delay) between two; the lease files keep that across processes;
- the engine's Scope refuses types the agents cannot use and, with
  deny_private, private addresses; the agents check types again;
- the ready queue (ready.py) is FIFO, LIFO or by priority.

Limits stop the crawl with a reason (queue-empty, limit-pages, limit-bytes,
limit-time, aborted); pages at the depth limit are leaves; a URL is queued at
most once. This module decides what to fetch; it never does HTTP itself.
"""

from __future__ import annotations

import itertools
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from webcrawler.engine.leases import ServerLeases, next_leased_server
from webcrawler.engine.policies import Scope
from webcrawler.engine.pool import AgentPool
from webcrawler.engine.robots_txt import obey, rules_of
from webcrawler.engine.scheduler import Scheduler, ServerState
from webcrawler.messages import Document, Failure, Reason, Redirect, Retrieve
from webcrawler.settings import Settings
from webcrawler.toolkit.agents import start_pool
from webcrawler.toolkit.classifiers import StandardClassifier
from webcrawler.toolkit.gate import REFUSED, PolicedPool
from webcrawler.toolkit.model import Limits, Link, Page, Summary
from webcrawler.toolkit.pages import make_page
from webcrawler.toolkit.ready import ReadyLinks
from webcrawler.urls import split, try_normalize

if TYPE_CHECKING:
    from webcrawler.toolkit.spec import CrawlerSpec as Crawler

log = logging.getLogger(__name__)

MAX_REDIRECTS = 5


class CrawlRun:
    """The state of one `Crawler.run()`: construct, then `run()` once."""

    def __init__(self, crawler: Crawler, settings: Settings, *,
                 pool_factory: Callable[[], AgentPool] | None = None,
                 progress: Callable[[CrawlRun], None] | None = None) -> None:
        self.crawler = crawler
        self.events = crawler.events
        self.settings = settings
        self.limits: Limits = crawler.limits
        given = crawler.classifiers
        self.classifiers = list(given) if given is not None else [StandardClassifier()]
        self.ready = ReadyLinks(crawler.order)
        self.scheduler = Scheduler(settings.delay, self.ready.servers)
        self.leases = ServerLeases(settings.data_dir / "leases")
        self.scope = Scope((), (), 1 << 30, settings.max_url_length, settings.deny_private,
                           settings.scope_hosts)
        self.summary = Summary()
        self.seen: set[str] = set()  # URLs queued, retrieved or redirected to: never again
        self._servers: dict[str, ServerState] = {}
        self._jobs: dict[int, tuple[ServerState, Link | None]] = {}
        self._documents_out = 0
        self._job_ids = itertools.count(1)
        self._pool_factory = pool_factory or (lambda: start_pool(settings))
        self._progress = progress
        self.started = time.monotonic()

    # --- the run --------------------------------------------------------
    def run(self) -> Summary:
        self.events.emit("crawl-started", self.crawler)
        for root in self.crawler.roots:
            url = try_normalize(root, max_length=self.settings.max_url_length)
            if url is None:
                raise ValueError(f"{root!r} is not an http(s) URL that can be crawled")
            self._consider(Link(url, element="a", depth=0), approve=False)
        pool = PolicedPool(self._pool_factory(), self.crawler.policy)
        try:
            self._loop(pool)
        finally:
            pool.shutdown()
            self.leases.close()
            self.summary.requests = pool.sent
            self.summary.refused = len(self.crawler.policy.refused()) if self.crawler.policy else 0
            self.summary.seconds = time.monotonic() - self.started
            self.summary.callback_errors = len(self.events.errors)
        self.events.emit("crawl-finished", self.summary)
        return self.summary

    def _loop(self, pool: PolicedPool) -> None:
        deadline = self.started + (self.limits.seconds if self.limits.seconds is not None else 1e12)
        next_report = 0.0
        while True:
            now = time.monotonic()
            reason = self._stop_reason(now, deadline, pool)
            if reason:
                self.summary.stop_reason = reason
                break
            self._dispatch(pool, now)
            for job, answer in pool.poll(self._timeout(now, deadline, pool)):
                self._handle(job, answer)
            if self._progress and now >= next_report:
                self._progress(self)
                next_report = now + self.settings.progress_interval
        if self._progress:
            self._progress(self)

    def _stop_reason(self, now: float, deadline: float, pool: PolicedPool) -> str:
        limits, done = self.limits, self.summary
        if self.crawler.aborted:
            return "aborted"
        if limits.pages is not None and done.pages >= limits.pages:
            return "limit-pages"
        if limits.bytes is not None and done.bytes >= limits.bytes:
            return "limit-bytes"
        if now >= deadline:
            return "limit-time"
        if pool.busy() == 0 and self.scheduler.ready() == 0 and not self._cooling_work():
            return "queue-empty"
        return ""

    def _cooling_work(self) -> bool:
        return any(s.has_work() for s in self.scheduler.cooling())

    def _timeout(self, now: float, deadline: float, pool: PolicedPool) -> float:
        timeout = self.scheduler.poll_timeout(now, deadline)
        if self.scheduler.ready():  # the request policy's rate: wake when the next may go
            timeout = min(timeout, max(pool.wait(now), 0.005))
        return timeout

    # --- dispatch -------------------------------------------------------
    def _dispatch(self, pool: PolicedPool, now: float) -> None:
        while pool.free() and not self.crawler.aborted and pool.wait(now) <= 0:
            if self.limits.pages is not None and \
                    self.summary.pages + self._documents_out >= self.limits.pages:
                return  # enough pages are on their way
            server = next_leased_server(self.scheduler, self.leases, self.settings.delay, now)
            if server is None:
                return
            link = self._next_link(server)
            if link is None and server.robots is not None:
                self.leases.release(server.origin, requested=False)
                continue
            self._submit(pool, server, link)

    def _next_link(self, server: ServerState) -> Link | None:
        """The server's next link its robots.txt allows (None: robots.txt itself, or nothing)."""
        if server.robots is None:
            return None
        while (link := self.ready.pop(server)) is not None:
            if server.robots.allowed(link.url):
                return link
            self._skip(link, Reason.ROBOTS)
        self.scheduler.idle(server)
        return None

    def _submit(self, pool: PolicedPool, server: ServerState, link: Link | None) -> None:
        job_id = next(self._job_ids)
        url = server.origin + "/robots.txt" if link is None else link.url
        self._jobs[job_id] = (server, link)
        if link is not None:
            self._documents_out += 1
        self.scheduler.dispatched(server)
        pool.submit(Retrieve(job_id, url, _kind(link)))

    # --- answers --------------------------------------------------------
    def _handle(self, job: Retrieve, answer: object) -> None:
        server, link = self._jobs.pop(job.job_id)
        refused = getattr(answer, "reason", "") == REFUSED
        self.leases.release(server.origin, requested=not refused)
        now = time.monotonic()
        if link is None:
            self._robots(server, answer)
            self.scheduler.answered(server, now, first_document_done=False)
            return
        self._documents_out -= 1
        if isinstance(answer, Document):
            self._page(answer, link)
        elif isinstance(answer, Redirect):
            self._redirect(answer, link)
        elif isinstance(answer, Failure):
            self._fail(link, answer.reason, answer.detail)
        self.scheduler.answered(server, now, first_document_done=True)

    def _robots(self, server: ServerState, answer: object) -> None:
        rules = rules_of(answer, self.settings.robots_token)[0]
        obey(server, rules, self.settings.delay)  # a short crawl: no expiry, no retry
        if rules.unavailable:
            log.info("%s/robots.txt unavailable: nothing on that server is fetched", server.origin)

    def _page(self, doc: Document, link: Link) -> None:
        if doc.final_url != link.url and doc.final_url in self.seen:
            return  # the same page under another name
        self.seen.add(doc.final_url)
        page = make_page(doc, link)
        self.summary.pages += 1
        self.summary.bytes += doc.length
        self.visit(page)

    def visit(self, page: Page) -> None:
        """Classify, tell the listeners, visit, then offer the links (unless a leaf)."""
        guard, url = self.events.guard, page.url
        for classifier in self.classifiers:
            guard(f"{type(classifier).__name__}.classify", url, classifier.classify, page)
        self.events.emit("page-retrieved", page, url)
        guard("visit", url, self.crawler.visit, page)
        self.events.emit("page-visited", page, url)
        leaf = self.limits.depth is not None and page.depth >= self.limits.depth
        for link in page.links:
            if leaf:
                self._skip(link, "depth")
            else:
                self._consider(link)

    def _redirect(self, answer: Redirect, link: Link) -> None:
        hops = int(link.attributes.get("redirects", "0")) + 1
        if hops > MAX_REDIRECTS:
            self._fail(link, Reason.TOO_MANY_REDIRECTS, f"more than {MAX_REDIRECTS} redirects")
            return
        target = Link(answer.location, link.anchor, link.source, link.element, link.depth,
                      set(link.labels), dict(link.attributes), link.priority, link.start)
        target.attributes.update({"redirected-from": link.url, "redirects": str(hops)})
        self._consider(target, approve=False)

    def _fail(self, link: Link, reason: str, detail: str) -> None:
        link.attributes.update({"failure": reason, "detail": detail})
        self.summary.failed += 1
        self.events.emit("page-failed", link, link.url)

    # --- the ready queue ------------------------------------------------
    def _consider(self, link: Link, approve: bool = True) -> None:
        """Queue `link` if it is new, followable, approved by should_visit, and in scope."""
        if "nofollow" in link.labels:
            return self._skip(link, "nofollow")
        if link.url in self.seen:
            return self._skip(link, "seen")
        if approve and not self.events.guard("should_visit", _source_url(link),
                                             self.crawler.should_visit, link):
            return self._skip(link, "should-visit")
        reason = self.scope.why_not(link.url, 0)
        if reason == Reason.UNINDEXABLE and link.element in FILE_ELEMENTS:
            reason = None  # the last check: an image is fetched as a file, never indexed
        if reason is not None:
            return self._skip(link, reason)
        self.seen.add(link.url)
        server = self._server(split(link.url)[0])
        self.ready.push(server, link)
        self.scheduler.work_added(server, time.monotonic())
        self.events.emit("link-queued", link, link.url)
        return None

    def _skip(self, link: Link, why: str) -> None:
        link.attributes["skipped"] = why
        self.summary.skipped += 1
        self.events.emit("link-skipped", link, link.url)

    def _server(self, origin: str) -> ServerState:
        server = self._servers.get(origin)
        if server is None:
            server = self._servers[origin] = ServerState(len(self._servers) + 1, origin)
            self.scheduler.add(server, time.monotonic())
        return server

    def progress_line(self) -> str:
        s, elapsed = self.summary, max(1e-9, time.monotonic() - self.started)
        return (f"{s.pages} pages visited, {len(self.ready)} queued, {s.failed} failed, "
                f"{s.bytes / 1e6:.1f} MB, {elapsed:.0f} s, {s.pages / elapsed:.1f} pages/s")


def _source_url(link: Link) -> str:
    return link.source.url if link.source is not None else link.url


FILE_ELEMENTS = frozenset({"img"})  # links to files that are fetched as bytes, never parsed


def _kind(link: Link | None) -> str:
    """What the agent is asked for: robots.txt, a file's bytes (an image), or a page."""
    if link is None:
        return "robots"
    return "file" if link.element in FILE_ELEMENTS else "page"
