"""One run of a personal crawler, as a client of the engine's crawl loop.

SPHINX section 2's loop - take a link from the ready queue, retrieve its page,
pass it to the classifiers and to `visit`, then offer each of its links to
`should_visit` and queue the approved ones - is the engine's own loop
(engine/loop/crawl.py), so a ten-line crawler is as polite as `webcrawler index`:

- every request goes to the agent processes (engine/loop/pool.py), through the
  request policy (gate.py); robots.txt is asked first on each server, obeyed,
  and asked again when it expires or was unavailable (engine/loop/robots_txt.py);
- the loop keeps one request in flight per server and the delay (or
  Crawl-delay) between two; the lease files keep that across processes;
- the engine's Scope refuses types the agents cannot use and, with
  deny_private, private addresses; the agents check types again;
- the URLs are kept in the loop's store: an in-memory one (engine/store/memory.py), or
  the data directory an `AddToIndex` offers, which then records every answer
  (recording.py); the run's seen set queues a URL at most once per run; the ready queue
  (ready.py) is the loop's frontier: FIFO, LIFO or by priority.

`CrawlRun` is the loop's hooks: it turns answers into the toolkit's pages and
events, and names the stop (queue-empty, limit-pages, limit-bytes,
limit-time, aborted). Pages at the depth limit are leaves.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from webcrawler.engine.interfaces import Pool
from webcrawler.engine.loop.crawl import NOTHING_LEFT, TIME_LIMIT, BaseHooks, CrawlLoop
from webcrawler.engine.loop.policies import Scope
from webcrawler.engine.records import FoundLink, FrontierEntry, ServerState
from webcrawler.engine.scheduling.frontier import Ordering
from webcrawler.engine.store.memory import MemoryStore
from webcrawler.errors import ToolkitError
from webcrawler.protocol.messages import Document, Failure, Reason, Redirect
from webcrawler.protocol.urls import split, try_normalize
from webcrawler.settings import Settings
from webcrawler.toolkit.agents import start_pool
from webcrawler.toolkit.classifiers import StandardClassifier
from webcrawler.toolkit.gate import PolicedPool
from webcrawler.toolkit.model import Limits, Link, Page, Summary
from webcrawler.toolkit.pages import make_page
from webcrawler.toolkit.ready import ReadyLinks
from webcrawler.toolkit.recording import (
    DataDirectoryRecord,
    MemoryRecord,
    PageStore,
    offered_store,
)
from webcrawler.toolkit.running import running

if TYPE_CHECKING:
    from webcrawler.toolkit.spec import CrawlerSpec as Crawler

log = logging.getLogger(__name__)

FILE_ELEMENTS = frozenset({"img"})  # links to files that are fetched as bytes, never parsed


class CrawlRun(BaseHooks):
    """The state of one `Crawler.run()`: construct, then `run()` once."""

    def __init__(self, crawler: Crawler, settings: Settings, *,
                 pool_factory: Callable[[], Pool] | None = None,
                 progress: Callable[[CrawlRun], None] | None = None) -> None:
        self.crawler = crawler
        self.events = crawler.events
        self.settings = settings
        self.limits: Limits = crawler.limits
        given = crawler.classifiers
        self.classifiers = list(given) if given is not None else [StandardClassifier()]
        self.ready = ReadyLinks(crawler.order)
        self.summary = Summary()
        self._seen: set[str] = set()  # URLs queued or retrieved in this run: never again
        self.pool: PolicedPool | None = None
        self._links: dict[int, Link] = {}  # document id -> the link it was queued for
        self._pool_factory = pool_factory or (
            lambda: start_pool(settings, credentials=crawler.use_credentials))
        self._progress = progress
        self._next_report = 0.0
        self.started = time.monotonic()
        seconds = self.limits.seconds if self.limits.seconds is not None else 1e12
        scope = Scope((), (), 1 << 30, settings.max_url_length, settings.deny_private,
                      settings.scope_hosts, types=settings.types)
        self.offered: PageStore | None = offered_store(crawler)  # AddToIndex's data directory
        try:
            self.loop = CrawlLoop(  # the crawl's limits are its own (Limits), not the engine's
                dataclasses.replace(settings, max_docs_per_server=0),  # (an all-time count)
                self.offered.store if self.offered else MemoryStore(),
                lambda loop: self, pool_factory=self._police,
                sink=self.offered.sink if self.offered else None,
                ordering=Ordering("toolkit", self.ready.servers, self), scope=scope,
                seconds=seconds, run_mode="toolkit", resume=False)  # its roots, not the store's
        except BaseException:
            self._close_offered()
            raise
        self.store = self.loop.store
        self.record = DataDirectoryRecord(self.loop, self.offered) if self.offered else \
            MemoryRecord(self.store)
        self.scheduler = self.loop.scheduler

    def _police(self) -> PolicedPool:
        self.pool = PolicedPool(self._pool_factory(), self.crawler.policy)
        return self.pool

    # --- the run --------------------------------------------------------
    def run(self) -> Summary:
        try:
            with running(self.loop):  # an action that writes elsewhere commits with the loop
                return self._run()
        finally:
            self._close_offered()

    def _close_offered(self) -> None:
        """The offered data directory released (its sink closed once: the loop's or here)."""
        if self.offered is not None:
            self.offered.close()

    def _run(self) -> Summary:
        self.events.emit("crawl-started", self.crawler)
        for root in self.crawler.roots:
            url = try_normalize(root, max_length=self.settings.max_url_length)
            if url is None:
                raise ToolkitError(f"{root!r} is not an http(s) URL that can be crawled")
            self._consider(Link(url, element="a", depth=0), approve=False)
        try:
            self.loop.run()
        finally:
            self.summary.stop_reason = self.loop.stats.stop_reason
            self.summary.requests = self.pool.sent if self.pool is not None else 0
            self.summary.refused = len(self.crawler.policy.refused()) if self.crawler.policy else 0
            self.summary.seconds = time.monotonic() - self.started
            self.summary.callback_errors = len(self.events.errors)
        self.events.emit("crawl-finished", self.summary)
        return self.summary

    # --- the loop's frontier: the ready queue -------------------------------
    def next_document(self, server: ServerState) -> FrontierEntry | None:
        ready = self.ready.pop(server)
        if ready is None:
            return None
        doc_id, link = ready
        redirects = int(link.attributes.get("redirects", "0"))
        return FrontierEntry(doc_id, server.id, split(link.url)[1], link.depth, redirects)

    def links_found(self, source: FrontierEntry | None, links: list[FoundLink]) -> None:
        pass  # the toolkit queues what should_visit approves (_consider)

    # --- the loop's hooks: the clock and the stop -------------------------------
    def stop_reason(self, now: float, reason: str) -> str:
        limits, done = self.limits, self.summary
        if self.crawler.aborted:
            return "aborted"
        if limits.pages is not None and done.pages >= limits.pages:
            return "limit-pages"
        if limits.bytes is not None and done.bytes >= limits.bytes:
            return "limit-bytes"
        return {TIME_LIMIT: "limit-time", NOTHING_LEFT: "queue-empty"}.get(reason, reason)

    def may_dispatch(self, now: float) -> bool:
        if self.crawler.aborted or (self.pool is not None and self.pool.wait(now) > 0):
            return False
        pages = self.limits.pages  # enough pages may be on their way
        return pages is None or self.summary.pages + self.loop.documents_in_flight() < pages

    def wait_hint(self, now: float) -> float | None:
        if self.pool is None or not self.scheduler.ready():
            return None
        return max(self.pool.wait(now), 0.005)  # the request policy's rate: wake when one may go

    def tick(self, now: float) -> None:
        if self._progress and (now >= self._next_report or self.loop.stats.stop_reason):
            self._progress(self)
            self._next_report = now + self.settings.progress_interval

    def kind(self, entry: FrontierEntry) -> str:
        """What the agent is asked for: a file's bytes (an image), or a page."""
        return "file" if self._links[entry.doc_id].element in FILE_ELEMENTS else "page"

    # --- the loop's hooks: answers ------------------------------------------------
    def document(self, entry: FrontierEntry, server: ServerState, doc: Document) -> None:
        link = self._links.pop(entry.doc_id)
        page = None
        if doc.final_url == link.url or not self._known(doc.final_url):  # else the same
            self._seen.add(doc.final_url)  # page under another name: recorded, not visited
            page = make_page(doc, link)
            self.summary.pages += 1
            self.summary.bytes += doc.length
            self._visit(page)
        self.record.document(entry, server, doc, page)  # after the visit: was it taken?

    def _visit(self, page: Page) -> None:
        """Visit `page`; an action that offered the store may take it meanwhile."""
        offered = self.offered
        if offered is not None:
            offered.visiting = page
        try:
            self.visit(page)
        finally:
            if offered is not None:
                offered.visiting = None

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

    def redirect(self, entry: FrontierEntry, answer: Redirect, hops: int) -> None:
        link = self._links.pop(entry.doc_id)
        target = Link(answer.location, link.anchor, link.source, link.element, link.depth,
                      set(link.labels), dict(link.attributes), link.priority, link.start)
        target.attributes.update({"redirected-from": link.url, "redirects": str(hops)})
        self.record.redirect(entry, answer, self._consider(target, approve=False))

    def failure(self, entry: FrontierEntry, server: ServerState, failure: Failure) -> None:
        link = self._links.pop(entry.doc_id)
        self.record.failure(entry, server, failure)
        link.attributes.update({"failure": failure.reason, "detail": failure.detail})
        self.summary.failed += 1
        self.events.emit("page-failed", link, link.url)

    def excluded(self, entry: FrontierEntry, reason: str) -> None:
        self._skip(self._links.pop(entry.doc_id), reason)

    # --- the ready queue ------------------------------------------------
    def _consider(self, link: Link, approve: bool = True) -> FoundLink | None:
        """Queue `link` if it is new, followable, approved by should_visit, and in scope."""
        why = self._why_not(link, approve)
        if why is not None:
            self._skip(link, why)
            return None
        queued = self.loop.queue(link.url, link.depth, int(link.attributes.get("redirects", "0")),
                                 again=True)  # known to the data directory: fetched again
        self._seen.add(link.url)
        self._links[queued.target_id] = link
        self.ready.push(queued.server, queued.target_id, link)
        self.events.emit("link-queued", link, link.url)
        return queued

    def _why_not(self, link: Link, approve: bool) -> str | None:
        """Why `link` is not queued (the reason a skipped link carries); None: it is."""
        if "nofollow" in link.labels:
            return "nofollow"
        if self._known(link.url):
            return "seen"
        if approve and not self.events.guard("should_visit", _source_url(link),
                                             self.crawler.should_visit, link):
            return "should-visit"
        reason = self.loop.scope.why_not(link.url, 0)
        if reason == Reason.UNINDEXABLE and link.element in FILE_ELEMENTS:
            return None  # the last check: an image is fetched as a file, never indexed
        return reason

    def _known(self, url: str) -> bool:
        """Was `url` queued or retrieved in this run (a data directory's older URLs are not)?"""
        return url in self._seen

    def _skip(self, link: Link, why: str) -> None:
        link.attributes["skipped"] = why
        self.summary.skipped += 1
        self.events.emit("link-skipped", link, link.url)

    def progress_line(self) -> str:
        s, elapsed = self.summary, max(1e-9, time.monotonic() - self.started)
        return (f"{s.pages} pages visited, {len(self.ready)} queued, {s.failed} failed, "
                f"{s.bytes / 1e6:.1f} MB, {elapsed:.0f} s, {s.pages / elapsed:.1f} pages/s")


def _source_url(link: Link) -> str:
    return link.source.url if link.source is not None else link.url
