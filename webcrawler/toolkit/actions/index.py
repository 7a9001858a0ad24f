"""Add visited pages to the search index, as `webcrawler index` does, so `webcrawler serve` finds them.

SPHINX lists "full text indexing" first among the services crawlers perform
(Miller and Bharat 1998, section 1); here a personal crawler feeds our own
engine. Pages go the engine's document path (engine/loop/documents.py), the one
`webcrawler index` takes: a `documents` row through the crawl's store
(`engine.store.CrawlStore`, server and counters kept), the page's text into
the index outbox in the same transaction (`engine.indexer.IndexSink`), which
the index process commits. So a page that says noindex (robots meta or
X-Robots-Tag) is stored but not indexed, a page with the same content as one
already fetched (the agent's checksum, whichever crawl fetched it) is stored
as a duplicate, and the links of the others are stored, their targets queued. One URL per
document holds as in a batch crawl (engine/loop/one_url.py): a page whose canonical URL is
another is kept as its alias, a page that nearly repeats an indexed one (`near_duplicates`,
the crawl setting's default unless given) as a near-duplicate; neither is indexed.
The data directory stays one the query server, `webcrawler stats` and
`webcrawler index --reindex` understand.

In a toolkit crawl that knows the action (attached, or kept as an attribute of the
crawler) the crawl's loop runs on the data directory: the run asks the action for its
store before building the loop (`offer_store`, toolkit/recording.py), the loop records
every answer there and commits it with the index on its own cadence (`commit_every`
answers or `commit_seconds`, and at its end), and the action only takes the pages it is
handed (its `when`). A page handed over by hand (no crawl, or a crawl that does not know
the action) goes the same path through a store the action opens on the first such page
and commits every `commit_every` pages of the default settings, with the running crawl's
loop when there is one, and when the action closes.

The database and index are checked when opened: a damaged one stops the crawl (or the
action) with the engine's own error. Only one writer may use a data directory at a time:
do not run this beside `webcrawler index` on the same directory.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING

from webcrawler.datadir import DataDir, create_private
from webcrawler.protocol import urls
from webcrawler.protocol.messages import Document
from webcrawler.settings import Settings
from webcrawler.toolkit.actions.base import PagePredicate, VisitAction
from webcrawler.toolkit.model import Page
from webcrawler.toolkit.recording import PageStore, record_taken
from webcrawler.toolkit.running import running_loop

if TYPE_CHECKING:  # the engine's store and index writer load SQLAlchemy and Whoosh (about 1.4 s):
    # every crawl imports the actions, few add to the index, so they are imported on first use
    from webcrawler.engine.interfaces import Store
    from webcrawler.engine.loop.crawl import CrawlLoop
    from webcrawler.engine.loop.documents import Judge
    from webcrawler.engine.loop.one_url import OneURLPerDocument
    from webcrawler.engine.loop.policies import DocumentSink
    from webcrawler.engine.pipeline.index_sink import IndexSink
    from webcrawler.engine.records import FrontierEntry
    from webcrawler.engine.store.sql import CrawlStore

Opened = tuple["CrawlStore", "IndexSink", "OneURLPerDocument"]


class AddToIndex(VisitAction):
    """``AddToIndex("webcrawler-data")``: every visited page stored and indexed there."""

    def __init__(self, data_dir: str | Path = "webcrawler-data", when: PagePredicate | None = None,
                 db_url: str = "", near_duplicates: float = Settings.near_duplicates) -> None:
        super().__init__(when)
        self.data_dir = Path(data_dir)
        self.paths = DataDir(self.data_dir)
        self.db_url = db_url or self.paths.database_url
        self.near_duplicates = near_duplicates  # 0: off
        self.added = 0
        self._own: Opened | None = None  # pages handed over by hand: a store of its own
        self._crawl: PageStore | None = None  # the crawl whose loop runs on the data directory
        self._judges: list[OneURLPerDocument] = []
        self._run = 0
        self._added_before_run = 0
        self._since_commit = 0
        self._loop: CrawlLoop | None = None  # the crawl loop whose commits the own store follows

    # --- in a crawl: the loop's store (toolkit/recording.py) -----------------
    def offer_store(self) -> PageStore:
        """The data directory's store, index sink and judge for a crawl's loop, opened now;
        the crawl records its answers there and closes them. Pages handed over by hand
        before are committed first (one writer at a time)."""
        self._close_own()
        store, sink, judge = self._open()
        self._crawl = PageStore(store, sink, judge, self._kept, lambda: _release(store))
        return self._crawl

    def _kept(self, reason: str | None) -> None:
        self.added += reason is None

    def handle(self, page: Page) -> None:
        crawl = self._crawl
        if crawl is not None and crawl.take(page):
            return  # the page the crawl is visiting: its loop records it after the visit
        if crawl is not None and not crawl.closed:  # another page, in that crawl: its store
            self._record(crawl.store, crawl.sink, crawl.judge, page)
            return
        if self._own is None:
            self._own = self._open()
            self._run = self._own[0].start_run(mode="toolkit")
            self._added_before_run = self.added  # pages a crawl's loop indexed are its run's
        self._record(*self._own, page)
        self._since_commit += 1
        if not self._follow_loop() and self._since_commit >= Settings.commit_every:
            self._commit()  # no crawl loop to commit with (a page given by hand)

    def _record(self, store: Store, sink: DocumentSink, judge: Judge, page: Page) -> None:
        """A page no crawl recorded, as the loop records one: its URL queued, then the
        document path."""
        from webcrawler.engine.loop.documents import queue_urls
        from webcrawler.engine.records import FrontierEntry

        url = urls.try_normalize(page.url)
        if url is None:
            return
        origin, path = urls.split(url)
        server, _, ids, _ = queue_urls(store, origin, [path], page.depth, 0)
        entry = FrontierEntry(ids[path], server.id, path, page.depth)
        document = page.document or _document(page, url)  # a Page built by hand: its own text
        self._kept(record_taken(store, sink, entry, document, judge).reason)
        server.docs_fetched += 1

    # --- by hand: a store of its own ----------------------------------------
    def _follow_loop(self) -> bool:
        """Commit with the running toolkit crawl's loop (told once per loop); False outside one."""
        loop = running_loop()
        if loop is None:
            return False
        if loop is not self._loop:
            loop.on_commit(self)
            self._loop = loop
        return True

    def pending(self) -> bool:
        """Pages written since the last commit (the loop's `commit_seconds` asks)."""
        return self._since_commit > 0

    def commit(self) -> None:
        """The loop committed: commit the pages given by hand too (`Committer`)."""
        if self._since_commit and self._own is not None:
            self._commit()

    def _open(self) -> Opened:
        """The data directory's store, index sink and judge, checked first."""
        from webcrawler.database.schema import check_database, connect
        from webcrawler.engine.pipeline.index_sink import IndexSink
        from webcrawler.engine.store.sql import CrawlStore
        from webcrawler.index import check

        create_private(self.data_dir)
        check_database(self.db_url)
        check(self.paths.index)
        store = CrawlStore(connect(self.db_url))
        try:
            sink = IndexSink(store, self.paths.index)
        except BaseException:
            _release(store)
            raise
        judge = self._one_url(store, sink)
        self._judges.append(judge)
        return store, sink, judge

    def _one_url(self, store: CrawlStore, sink: IndexSink) -> OneURLPerDocument:
        """The batch crawl's canonical and near-duplicate judgement, over this store (a
        canonical URL is stored, not scheduled: the toolkit's crawl visits what it chose)."""
        from webcrawler.engine.loop.documents import queue_urls
        from webcrawler.engine.loop.one_url import OneURLPerDocument
        from webcrawler.engine.loop.policies import Scope

        def url_of(entry: FrontierEntry) -> str:
            return store.servers_by_id[entry.server_id].origin + entry.path

        def queue(url: str, depth: int) -> int:
            origin, path = urls.split(url)
            return queue_urls(store, origin, [path], depth, 0)[2][path]

        return OneURLPerDocument(store, Scope(), sink, url_of, queue, self.near_duplicates)

    def _commit(self, ended: bool = False) -> None:
        assert self._own is not None
        store, sink, _ = self._own
        store.update_run(self._run, self.added - self._added_before_run, 0, ended=ended,
                         stop_reason="finished" if ended else None)
        store.commit()
        sink.commit()
        self._since_commit = 0

    def _close_own(self) -> None:
        """Commit and close the store of pages given by hand."""
        if self._own is None:
            return
        store, sink, _ = self._own
        try:
            self._commit(ended=True)
            sink.close()
        finally:
            self._own = None
            _release(store)

    def finish(self) -> str:
        self._close_own()
        if self._crawl is not None:
            self._crawl.close()  # closed by its crawl already, unless it never ran
        if not self._judges:
            return f"no pages added to the index in {self.data_dir}"
        kept_out = "; ".join(line for judge in self._judges if (line := judge.line()))
        return f"{self.added} pages added to the index in {self.data_dir}" + (
            f" ({kept_out})" if kept_out else "")


def _release(store: CrawlStore) -> None:
    store.close()
    store.engine.dispose()


def _document(page: Page, url: str) -> Document:
    """A page that no agent answered (made by a callback, or a test) as the engine's
    `Document` message, its checksum over its re-encoded markup."""
    body = (page.html or page.text or "").encode("utf-8", errors="replace")
    return Document(job_id=0, url=url, final_url=url, status=getattr(page, "status", 200),
                    content_type=getattr(page, "content_type", "text/html"), charset="utf-8",
                    title=page.title or "", text=page.text or "",
                    length=getattr(page, "length", 0) or len(body),
                    checksum=hashlib.blake2b(body, digest_size=16).hexdigest())
