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

Its writes commit when the crawl's loop commits (`CrawlLoop.on_commit`, the loop
found through toolkit/running.py): every `commit_every` answers or `commit_seconds`
of the crawl's settings, and at its end, as `webcrawler index` commits. Called
outside a toolkit crawl (a page made by hand) there is no loop, and it commits
every `commit_every` pages of the default settings.

The database and index are opened on the first page (a predicate that never
holds opens nothing) and checked first: a damaged one stops the action with
the engine's own error. Only one writer may use a data directory at a time: do
not run this beside `webcrawler index` on the same directory.
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path
from typing import TYPE_CHECKING

from webcrawler.datadir import DataDir, create_private
from webcrawler.protocol import urls
from webcrawler.protocol.messages import Document
from webcrawler.settings import Settings
from webcrawler.toolkit.actions.base import PagePredicate, VisitAction
from webcrawler.toolkit.model import Page
from webcrawler.toolkit.running import running_loop

if TYPE_CHECKING:  # the engine's store and index writer load SQLAlchemy and Whoosh (about 1.4 s):
    # every crawl imports the actions, few add to the index, so they are imported on first use
    from webcrawler.engine.loop.crawl import CrawlLoop
    from webcrawler.engine.loop.one_url import OneURLPerDocument
    from webcrawler.engine.pipeline.index_sink import IndexSink
    from webcrawler.engine.records import FrontierEntry
    from webcrawler.engine.store.sql import CrawlStore


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
        self._store: CrawlStore | None = None
        self._sink: IndexSink | None = None
        self._judge: OneURLPerDocument | None = None
        self._run = 0
        self._since_commit = 0
        self._loop: CrawlLoop | None = None  # the crawl loop whose commits this follows

    def handle(self, page: Page) -> None:
        from webcrawler.engine.loop.documents import (
            links_beyond,
            queue_urls,
            record_document,
            store_links,
        )
        from webcrawler.engine.loop.policies import Scope
        from webcrawler.engine.records import FrontierEntry

        store, sink = self._open()
        url = urls.try_normalize(page.url)
        if url is None:
            return
        origin, path = urls.split(url)
        server, _, ids, _ = queue_urls(store, origin, [path], page.depth, 0)
        entry = FrontierEntry(ids[path], server.id, path, page.depth)
        document = page.document or _document(page, url)  # a Page built by hand: its own text
        kept = record_document(store, sink, entry, document, time.time(), self._judge)
        server.docs_fetched += 1
        if kept.duplicate_of is None:
            store_links(store, Scope(), entry, document.links)
        elif beyond := links_beyond(store, kept.duplicate_of, document.links):
            store_links(store, Scope(), entry, beyond)
        self.added += kept.reason is None
        self._since_commit += 1
        if not self._follow_loop() and self._since_commit >= Settings.commit_every:
            self._commit()  # no crawl loop to commit with (a page given by hand)

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
        """The loop committed: commit this crawl's pages too (`Committer`)."""
        if self._since_commit and not self.closed:
            self._commit()

    def _open(self) -> tuple[CrawlStore, IndexSink]:
        if self._store is None or self._sink is None:
            from webcrawler.database.schema import check_database, connect
            from webcrawler.engine.pipeline.index_sink import IndexSink
            from webcrawler.engine.store.sql import CrawlStore
            from webcrawler.index import check

            create_private(self.data_dir)
            check_database(self.db_url)
            check(self.paths.index)
            self._store = CrawlStore(connect(self.db_url))
            self._run = self._store.start_run(mode="toolkit")
            self._sink = IndexSink(self._store, self.paths.index)
            self._judge = self._one_url(self._store, self._sink)
        return self._store, self._sink

    def _one_url(self, store: CrawlStore, sink: IndexSink) -> OneURLPerDocument:
        """The batch crawl's canonical and near-duplicate judgement, over this store."""
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
        assert self._store is not None and self._sink is not None
        self._store.update_run(self._run, self.added, 0, ended=ended,
                               stop_reason="finished" if ended else None)
        self._store.commit()
        self._sink.commit()
        self._since_commit = 0

    def finish(self) -> str:
        if self._store is None or self._sink is None:
            return f"no pages added to the index in {self.data_dir}"
        try:
            self._commit(ended=True)
            self._sink.close()
        finally:
            self._store.close()
            self._store.engine.dispose()
        kept_out = self._judge.line() if self._judge is not None else ""
        return f"{self.added} pages added to the index in {self.data_dir}" + (
            f" ({kept_out})" if kept_out else "")


def _document(page: Page, url: str) -> Document:
    """A page that no agent answered (made by a callback, or a test) as the engine's
    `Document` message, its checksum over its re-encoded markup."""
    body = (page.html or page.text or "").encode("utf-8", errors="replace")
    return Document(job_id=0, url=url, final_url=url, status=getattr(page, "status", 200),
                    content_type=getattr(page, "content_type", "text/html"), charset="utf-8",
                    title=page.title or "", text=page.text or "",
                    length=getattr(page, "length", 0) or len(body),
                    checksum=hashlib.blake2b(body, digest_size=16).hexdigest())
