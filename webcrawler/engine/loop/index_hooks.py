"""What `webcrawler index` does with the crawl loop's answers: the engine's hooks.

A batch crawl stores every document through the engine's document path
(documents.py: noindex and duplicates kept out of the index, links stored and
followed), redirects as links to their targets, failures with their reason.
An incremental crawl (`recrawl`, webcrawler/recrawl/) also paces the loop
(`--fetch-rate`), releases pages as they fall due, and takes the answers to
recrawls; it runs for `--hours`, so "nothing left to fetch" does not stop it.
Real-time search (engine/realtime/search.py) composes these hooks with its own clock.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import Protocol

from webcrawler.engine.interfaces import Job, Pool, Store
from webcrawler.engine.loop.crawl import NOTHING_LEFT, BaseHooks, CrawlLoop
from webcrawler.engine.loop.documents import (
    links_beyond,
    record_document,
    record_failure,
    record_redirect,
)
from webcrawler.engine.loop.one_url import OneURLPerDocument
from webcrawler.engine.loop.policies import DocumentSink, ResendingSink
from webcrawler.engine.loop.pool import start_agents
from webcrawler.engine.pipeline.link_refresh import LinkRefresh
from webcrawler.engine.records import FoundLink, FrontierEntry, ServerState
from webcrawler.engine.scheduling.frontier import Ordering
from webcrawler.engine.scheduling.scheduler import Scheduler
from webcrawler.protocol.messages import Document, Failure, NotModified, Reason, Redirect
from webcrawler.settings import Settings


class Incremental(Protocol):
    """What the hooks ask of an incremental crawl (webcrawler/recrawl/recrawler.py's
    Recrawler): the engine names only this, so that the recrawl builds on the engine and
    never the other way round."""

    def first_fetch(self, entry: FrontierEntry, now: float) -> None: ...
    def listed(self, pages: list[FoundLink], lastmods: dict[str, float], now: float,
               changefreqs: dict[str, str] | None = None) -> int: ...
    def document(self, entry: FrontierEntry, doc: Document, now: float) -> bool: ...
    def not_modified(self, entry: FrontierEntry, answer: NotModified, now: float) -> None: ...
    def failure(self, entry: FrontierEntry, failure: Failure, now: float) -> None: ...
    def redirect(self, entry: FrontierEntry, now: float) -> None: ...
    def tick(self, scheduler: Scheduler, mono: float, spare: int) -> None: ...
    def may_dispatch(self, mono: float) -> bool: ...
    def dispatched(self, mono: float) -> None: ...
    def wait_hint(self, mono: float) -> float | None: ...
    def line(self) -> str: ...


class IndexHooks(BaseHooks):
    """The hooks of `webcrawler index` (and of the real-time search, whose hooks hold them)."""

    def __init__(self, loop: CrawlLoop, recrawl: Incremental | None = None,
                 progress: Callable[[CrawlLoop], None] | None = None) -> None:
        self.loop = loop
        self.recrawl = recrawl  # an incremental crawl (webcrawler/recrawl/); None: batch
        self.judge = OneURLPerDocument(loop.store, loop.scope, loop.sink, loop.url_of,
                                       loop.queue_id, loop.settings.near_duplicates)
        # an index that takes documents again is sent those whose in-links changed
        # (pipeline/link_refresh.py), on either store
        self.links = LinkRefresh(loop.store, loop.settings.link_refresh) \
            if isinstance(loop.sink, ResendingSink) else None
        self.progress = progress
        self._next_report = 0.0

    # --- answers ------------------------------------------------------------
    def document(self, entry: FrontierEntry, server: ServerState, doc: Document) -> None:
        loop, now = self.loop, time.time()
        if entry.recrawl and self.recrawl is not None:
            if self.recrawl.document(entry, doc, now):  # changed: its links are replaced
                loop.store.delete_links(entry.doc_id)
                self._follow(entry, doc, now)
            return
        kept = record_document(loop.store, loop.sink, entry, doc, now, self.judge)
        if self.recrawl is not None:
            self.recrawl.first_fetch(entry, now)
        server.docs_fetched += 1
        loop.stats.retrieved += 1
        if kept.duplicate_of is None:
            self._follow(entry, doc, now)
        elif beyond := links_beyond(loop.store, kept.duplicate_of, doc.links):
            self._follow(entry, dataclasses.replace(doc, links=beyond), now)

    def _follow(self, entry: FrontierEntry, doc: Document, now: float) -> None:
        """Store and queue the document's links; a sitemap's lastmod dates make the stored
        pages it lists that changed since their last fetch due, its changefreqs group them for
        their change-rate priors (recrawl/recrawler.py)."""
        found = self.loop.follow(entry, doc.links)
        if self.links is not None:
            self.links.fetched(entry.doc_id)
        if (doc.lastmods or doc.changefreqs) and self.recrawl is not None:
            self.recrawl.listed(found, dict(doc.lastmods), now, dict(doc.changefreqs))

    def found(self) -> str:
        """Sitemaps read, aliases and near-duplicates kept out, pages sent to the index again
        for their links: the summary's line."""
        parts = [self.loop.sitemaps.line(), *(judge.line() for judge in (
            self.judge, self.links) if judge)]
        return "; ".join(part for part in parts if part)

    def not_modified(self, entry: FrontierEntry, answer: NotModified) -> None:
        if self.recrawl is not None:
            self.recrawl.not_modified(entry, answer, time.time())

    def redirect(self, entry: FrontierEntry, answer: Redirect, hops: int) -> None:
        loop = self.loop
        if self.recrawl is not None:
            self.recrawl.redirect(entry, time.time())
        record_redirect(loop.store, entry, answer, time.time())
        reason = loop.scope.why_not(answer.location, entry.depth)
        if reason is None:
            target = loop.queue(answer.location, entry.depth, hops)
            loop.store.add_links(entry.doc_id, [(target.target_id, "")])
        elif reason == Reason.PRIVATE:
            loop.stats.excluded[reason] += 1

    def failure(self, entry: FrontierEntry, server: ServerState, failure: Failure) -> None:
        loop = self.loop
        if entry.recrawl and self.recrawl is not None:
            self.recrawl.failure(entry, failure, time.time())
            return
        excluded = record_failure(loop.store, server, entry, failure, time.time(),
                                  loop.retries.final_values(entry))
        (loop.stats.excluded if excluded else loop.stats.failures)[failure.reason] += 1  # as `stats`

    def excluded(self, entry: FrontierEntry, reason: str) -> None:
        if entry.recrawl:  # stored before, excluded now (robots.txt changed): out of the index
            self.loop.sink.remove(entry.doc_id)

    # --- the clock and the stop -----------------------------------------------
    def tick(self, now: float) -> None:
        loop = self.loop
        if self.links is not None and self.links.due():
            self._resend()
        if self.recrawl is not None and loop.pool is not None and not loop.stats.stop_reason:
            spare = loop.pool.free() if not loop.scheduler.ready() else 0
            self.recrawl.tick(loop.scheduler, now, spare)
        if self.progress is not None and (now >= self._next_report or loop.stats.stop_reason):
            self.progress(loop)
            self._next_report = now + loop.settings.progress_interval

    def ending(self) -> None:
        if self.links is not None and self.links.sources:  # the last documents' links too
            self._resend()

    def _resend(self) -> None:
        """Send the index the pages whose in-links changed (pipeline/link_refresh.py)."""
        if self.links is not None and isinstance(self.loop.sink, ResendingSink):
            self.loop.sink.resend(self.links.look())

    def stop_reason(self, now: float, reason: str) -> str:
        if reason and reason != NOTHING_LEFT:
            return reason
        max_docs = self.loop.settings.max_docs
        if max_docs and self.loop.stats.retrieved >= max_docs:
            return "document limit"
        if self.recrawl is not None:  # an incremental crawl runs for --hours
            return ""
        return reason

    def may_dispatch(self, now: float) -> bool:
        return self.recrawl is None or self.recrawl.may_dispatch(now)  # --fetch-rate

    def wait_hint(self, now: float) -> float | None:
        return self.recrawl.wait_hint(now) if self.recrawl is not None else None

    def dispatched(self, job: Job, now: float) -> None:
        if self.recrawl is not None:
            self.recrawl.dispatched(now)

    def report(self) -> str:
        return self.recrawl.line() if self.recrawl is not None else ""


def index_loop(settings: Settings, store: Store, *, pool_factory: Callable[[], Pool] | None = None,
               sink: DocumentSink | None = None, ordering: Ordering | None = None,
               recrawl: Incremental | None = None,
               progress: Callable[[CrawlLoop], None] | None = None) -> CrawlLoop:
    """The loop of one `webcrawler index` run (batch, or incremental with `recrawl`)."""
    return CrawlLoop(settings, store, lambda loop: IndexHooks(loop, recrawl, progress),
                     pool_factory=pool_factory or (lambda: start_agents(settings)), sink=sink,
                     ordering=ordering, sketch=recrawl is not None, sitemaps=True)
