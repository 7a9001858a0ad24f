"""Where a toolkit crawl keeps its answers: the run's memory, or a data directory an action offers.

A crawl that only looks at pages keeps its book of servers and URLs in an in-memory store
for the length of the run (`MemoryRecord`). A crawl with an `AddToIndex` runs its loop on
that action's data directory instead: before the loop is built, the run asks the crawler's
actions (attached, or kept on the crawler) for a store (`OffersStore`), and the action
offers its database, index sink and one-URL judge (`PageStore`). So the crawl has one
store, one sink and one commit cadence, the loop's (issue 34).

Every answer is then recorded there as `webcrawler index` records it (`DataDirectoryRecord`,
through engine/loop/documents.py): documents, redirects, failures, once each. The action
only chooses: a page handed to it while the crawl visits that page is indexed and its
links stored; a page the crawl fetched and the action did not take (its `when`, or a
`visit` that did not hand it over) is stored with the reason `not-chosen`, never indexed.
The data directory's old frontier is left as it was (`CrawlLoop(resume=False)`) and the
run's own seen set decides what it visits, so a second crawl of the same roots visits
them again.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from webcrawler.database.states import State
from webcrawler.engine.interfaces import Store
from webcrawler.engine.loop.documents import (
    Judge,
    Kept,
    links_beyond,
    record_document,
    record_failure,
    record_redirect,
    store_links,
)
from webcrawler.engine.loop.policies import DocumentSink, Scope
from webcrawler.engine.records import FoundLink, FrontierEntry, ServerState
from webcrawler.errors import ToolkitError
from webcrawler.protocol.messages import Document, Failure, Reason, Redirect
from webcrawler.toolkit.model import Page

if TYPE_CHECKING:
    from webcrawler.engine.loop.crawl import CrawlLoop
    from webcrawler.toolkit.spec import CrawlerSpec


@runtime_checkable
class OffersStore(Protocol):
    """A visit action that keeps pages in a data directory of its own (AddToIndex)."""

    def offer_store(self) -> PageStore:
        """Open the data directory for one crawl: its loop runs on it, and the run closes it."""


class OnceClosed:
    """The offered sink, closed (or aborted) once: by the loop at its end, or by the run
    when the loop never ran (a root that is no URL)."""

    def __init__(self, sink: DocumentSink) -> None:
        self.sink = sink
        self.closed = False

    def add(self, doc_id: int, document: Document) -> None:
        self.sink.add(doc_id, document)

    def remove(self, doc_id: int) -> None:
        self.sink.remove(doc_id)

    def commit(self) -> None:
        self.sink.commit()

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.sink.close()

    def abort(self) -> None:
        if not self.closed:
            self.closed = True
            self.sink.abort()


class PageStore:
    """A data directory's store, index sink and one-URL judge, offered for one crawl, and
    which page the action took (`take`). `kept` tells the action each taken page's fate
    (the reason it is not indexed; None: indexed); `release` closes the store."""

    def __init__(self, store: Store, sink: DocumentSink, judge: Judge,
                 kept: Callable[[str | None], None], release: Callable[[], None]) -> None:
        self.store = store
        self.sink = OnceClosed(sink)
        self.judge = judge
        self.kept = kept
        self.visiting: Page | None = None  # the page the crawl is visiting now
        self.taken: Page | None = None
        self.closed = False
        self._release = release

    def take(self, page: Page) -> bool:
        """The action takes `page`: True when it is the page the crawl is visiting (the run
        records it after the visit); False for any other (the action records it itself)."""
        if self.closed or page is not self.visiting:
            return False
        self.taken = page
        return True

    def close(self) -> None:
        """The crawl is over: the sink closed if the loop did not, the store released."""
        if self.closed:
            return
        self.closed = True
        try:
            self.sink.close()
        finally:
            self._release()


def offered_store(crawler: CrawlerSpec) -> PageStore | None:
    """The store one of `crawler`'s actions offers (attached to it, or kept as its attribute),
    opened; None when none does. A crawl runs on one data directory: ToolkitError for two."""
    offers = {id(a): a for a in _actions(crawler)  # a closed action takes no pages: none
              if isinstance(a, OffersStore) and not isinstance(a, type)
              and not getattr(a, "closed", False)}
    if len(offers) > 1:
        names = ", ".join(sorted(str(getattr(a, "data_dir", a)) for a in offers.values()))
        raise ToolkitError(f"{len(offers)} actions offer this crawl a data directory ({names}): "
                           "a crawl runs on one, so give it one AddToIndex")
    return next(iter(offers.values())).offer_store() if offers else None


def _actions(crawler: CrawlerSpec) -> Iterator[object]:
    """What may be a visit action of `crawler`: its listeners and its attributes."""
    yield from crawler.events.listeners()
    yield from vars(crawler).values()
    for klass in type(crawler).__mro__:
        yield from vars(klass).values()


class MemoryRecord:
    """A crawl that keeps nothing: the run's in-memory store learns what was answered, for
    the loop (what is still queued, which document repeats another)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def document(self, entry: FrontierEntry, server: ServerState, doc: Document,
                 page: Page | None) -> None:
        self.store.record_fetch(entry, State.FETCHED, doc.checksum, time.time(),
                                reason=Reason.NOINDEX if doc.noindex else None)

    def redirect(self, entry: FrontierEntry, answer: Redirect, target: FoundLink | None) -> None:
        self.store.finish(entry, State.REDIRECTED, status=answer.status)

    def failure(self, entry: FrontierEntry, server: ServerState, failure: Failure) -> None:
        self.store.finish(entry, State.FAILED, reason=failure.reason)


class DataDirectoryRecord:
    """A crawl on a data directory: each answer recorded once, as `webcrawler index` does;
    the pages the action took go the document path to the index, the others are kept out."""

    def __init__(self, loop: CrawlLoop, offered: PageStore) -> None:
        self.loop = loop
        self.offered = offered

    def document(self, entry: FrontierEntry, server: ServerState, doc: Document,
                 page: Page | None) -> None:
        loop, offered = self.loop, self.offered
        if page is not None and offered.taken is page:
            offered.kept(record_taken(loop.store, loop.sink, entry, doc, offered.judge).reason)
        else:
            record_document(loop.store, loop.sink, entry, doc, time.time(), not_chosen)
        offered.taken = None
        server.docs_fetched += 1
        loop.stats.retrieved += 1

    def redirect(self, entry: FrontierEntry, answer: Redirect, target: FoundLink | None) -> None:
        record_redirect(self.loop.store, entry, answer, time.time())
        if target is not None:
            self.loop.store.add_links(entry.doc_id, [(target.target_id, "")])

    def failure(self, entry: FrontierEntry, server: ServerState, failure: Failure) -> None:
        loop = self.loop
        excluded = record_failure(loop.store, server, entry, failure, time.time(),
                                  loop.retries.final_values(entry))
        (loop.stats.excluded if excluded else loop.stats.failures)[failure.reason] += 1


def record_taken(store: Store, sink: DocumentSink, entry: FrontierEntry, doc: Document,
                 judge: Judge) -> Kept:
    """A page taken for the index: the engine's document path, then its links (a
    duplicate's only where its original's do not lead: documents.py)."""
    kept = record_document(store, sink, entry, doc, time.time(), judge)
    if kept.duplicate_of is None:
        store_links(store, Scope(), entry, doc.links)
    elif beyond := links_beyond(store, kept.duplicate_of, doc.links):
        store_links(store, Scope(), entry, beyond)
    return kept


def not_chosen(entry: FrontierEntry, doc: Document, reason: str | None
               ) -> tuple[str | None, str | None, bytes]:
    """The `Judge` of a page the action did not take: stored, not indexed."""
    return Reason.NOT_CHOSEN, "not taken by the crawl's AddToIndex", b""
