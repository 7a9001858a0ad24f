"""The incremental crawl end to end: loopback pages the test changes between two crawls.

Each test crawls a small web with `--incremental --recrawl uniform` (every page due
again at once, so a few seconds recrawl each page several times), changes the pages,
crawls again, and reads the database, the index and the servers' access logs.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
import time
from collections import Counter
from collections.abc import Callable
from email.utils import formatdate
from pathlib import Path

import pytest
from sqlalchemy import select

from webcrawler.database.schema import connect, documents, links, responses, servers
from webcrawler.database.states import State
from webcrawler.demoweb.server import LoopbackWeb, Page, Site, html
from webcrawler.engine.loop.crawl import CrawlLoop
from webcrawler.engine.loop.index_hooks import index_loop
from webcrawler.engine.pipeline.index_sink import IndexSink
from webcrawler.engine.store.sql import CrawlStore, stored_text
from webcrawler.index import open_searcher
from webcrawler.protocol.messages import Document
from webcrawler.recrawl.lastmod import UNTRUSTED, VOUCH_PASSES
from webcrawler.recrawl.policies import RecrawlPlan
from webcrawler.recrawl.recrawler import incremental
from webcrawler.recrawl.setup import incremental_parts
from webcrawler.settings import Settings

ADDRESS = "127.0.11.1"
OLD = ("the harbour committee approved the lighthouse repairs for the coming winter season after "
       "a long debate about the cost of the new lamp, the state of the stone stairs and whether "
       "the keeper's cottage should be rented to visitors in summer")
NEW = ("instead the orchard cooperative elected a treasurer and planted quinces near the mill, "
       "then argued until midnight over cider prices, the broken press in the barn and who "
       "would drive the cart to the market on saturdays")  # a paragraph: about 35 words


class RecordingSink:
    """The real index sink, counting what the crawl asks of it."""

    def __init__(self, inner: IndexSink) -> None:
        self.inner = inner
        self.added: list[int] = []
        self.removed: list[int] = []

    def add(self, doc_id: int, document: Document) -> None:
        self.added.append(doc_id)
        self.inner.add(doc_id, document)

    def remove(self, doc_id: int) -> None:
        self.removed.append(doc_id)
        self.inner.remove(doc_id)

    def commit(self) -> None:
        self.inner.commit()

    def close(self) -> None:
        self.inner.close()

    def abort(self) -> None:
        self.inner.abort()


def crawl(settings: Settings, seed: str, plan: RecrawlPlan | None = None,
          running: list[CrawlLoop] | None = None) -> RecordingSink:
    """One incremental crawl in this process, as `webcrawler index --incremental` runs it
    (with `plan`: the settings' policy under that plan instead of the default one; with
    `running`: the crawl is appended to it while it runs, so a route may `request_stop` it
    once what the test waits for has happened, instead of a time limit deciding)."""
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    engine = connect(settings.database_url)
    store = CrawlStore(engine)
    sink = RecordingSink(IndexSink(store, settings.index_dir))
    try:
        if plan is None:
            ordering, recrawl = incremental_parts(settings, store, sink)
        else:
            ordering, recrawl = incremental(store, sink, settings.recrawl, plan, settings.fetch_rate)
            recrawl.load()
        crawler = index_loop(settings, store, sink=sink, ordering=ordering, recrawl=recrawl)
        crawler.add_seeds([seed])
        if running is not None:
            running.append(crawler)
        crawler.run()
    finally:
        store.close()
        engine.dispose()
    return sink


@pytest.fixture
def settings(tmp_path: Path, database_url: str) -> Settings:
    """On SQLite and on PostgreSQL (tests/conftest.py)."""
    return Settings(data_dir=tmp_path / "data", db_url=database_url, agents=2, delay=0.0, hours=2.5 / 3600,
                    incremental=True, recrawl="uniform", fetch_rate=25.0, commit_every=5, min_revisit=0.0,
                    commit_seconds=0.5, progress_interval=60.0, connect_timeout=2.0,
                    read_timeout=2.0, total_timeout=5.0)


class Until:
    """A route that stops the running crawl once `condition(asked)` holds, `asked` counting the
    paths this crawl's server was asked for before the request that finds it true: with one
    request in flight per server, every earlier answer has been handled by then, so it is in
    the history. A crawl then lasts until it has fetched what the test reads, whatever the
    machine's load, with BOUND as its time limit (a crawl of 2.5 s could fetch nothing)."""

    BOUND = 60.0 / 3600  # hours

    def __init__(self, route: Callable[[str], Page | None]) -> None:
        self.route = route
        self.running: list[CrawlLoop] = []
        self.asked: Counter[str] = Counter()
        self.condition: Callable[[Counter[str]], bool] | None = None

    def __call__(self, path: str) -> Page | None:
        if self.condition is not None and self.condition(self.asked):
            self.running[-1].request_stop("the test has what it waits for")
        self.asked[path] += 1
        return self.route(path)

    def crawl(self, settings: Settings, seed: str, condition: Callable[[Counter[str]], bool]
              ) -> RecordingSink:
        self.asked.clear()
        self.condition = condition
        try:
            return crawl(dataclasses.replace(settings, hours=self.BOUND), seed, running=self.running)
        finally:
            self.condition = None


def rows(settings: Settings) -> dict[str, dict]:
    engine = connect(settings.database_url)
    try:
        with engine.connect() as conn:
            found = conn.execute(select(documents)).mappings().all()
            return {r["path"]: dict(r) for r in found}
    finally:
        engine.dispose()


def hits(settings: Settings, word: str) -> int:
    with open_searcher(settings.index_dir) as searcher:
        return searcher.search(word).total


def test_unchanged_and_timestamp_only_pages_are_not_reindexed_edited_ones_are(
        settings: Settings) -> None:
    clock = itertools.count()
    state = {"para": OLD}
    routes = {
        "/": html("home", "the home page", [("/static", "static"), ("/stamped", "stamped"),
                                            ("/edited", "edited")]),
        "/static": html("static", "a page that never changes at all, " * 5),
    }

    def route(path: str) -> Page | None:
        if path == "/stamped":
            return html("stamped", f"Last updated 2026-11-{next(clock) % 28 + 1:02d} "
                        f"{next(clock) % 24:02d}:00. " + "a page whose words stay the same " * 5)
        if path == "/edited":
            return html("edited", state["para"] + " and a footer that does not change " * 3,
                        [("/new-link" if state["para"] == NEW else "/old-link", "link")])
        if path in ("/old-link", "/new-link"):
            return html(path, "a linked page")
        return routes.get(path)

    until = Until(route)
    pages = ("/static", "/stamped", "/edited")
    with LoopbackWeb([Site(ADDRESS, until)]) as web:
        # at least 2.5 s too: the buckets compared below need unchanged recrawls spanning
        # seconds (the fastest bucket is a change a second), which a quiet machine's two
        # fetches a page do not (they took 0.5 s)
        start = time.monotonic()
        until.crawl(settings, web.url(ADDRESS, "/"), lambda asked: all(
            asked[p] >= 2 for p in pages) and time.monotonic() - start >= 2.5)
        first = rows(settings)
        assert hits(settings, "lighthouse") == 1
        state["para"] = NEW
        sink = until.crawl(settings, web.url(ADDRESS, "/"), lambda asked: all(asked[p] for p in pages))
    after = rows(settings)
    ids = {path: row["id"] for path, row in after.items()}
    static, stamped, edited = after["/static"], after["/stamped"], after["/edited"]
    assert static["times_fetched"] > first["/static"]["times_fetched"] >= 2
    assert static["times_changed"] == 0 and static["times_unmodified"] >= 2
    assert stamped["times_changed"] == 0 and stamped["times_trivial"] >= 2
    assert ids["/static"] not in sink.added and ids["/stamped"] not in sink.added
    assert edited["times_changed"] == 1 and sink.added.count(ids["/edited"]) == 1
    assert edited["last_change"] > first["/edited"]["last_change"]
    assert hits(settings, "quinces") == 1 and hits(settings, "lighthouse") == 0
    engine = connect(settings.database_url)
    try:
        with engine.connect() as conn:
            assert NEW in (stored_text(conn, ids["/edited"]) or "")
            targets = {t for (t,) in conn.execute(select(links.c.target_id)
                                                  .where(links.c.source_id == ids["/edited"]))}
            body = conn.execute(select(responses.c.body)
                                .where(responses.c.doc_id == ids["/edited"])).scalar()
    finally:
        engine.dispose()
    assert targets == {ids["/new-link"]}  # the lost link is gone, the gained one is there
    assert body is not None and b"quinces" in __import__("zlib").decompress(body)
    # the page seen to change has a faster bucket than the one never seen to change
    assert 0 < edited["change_bucket"] < static["change_bucket"]
    # the one changed recrawl's length is kept, as the shortest change too (buckets.History)
    assert 0 < edited["changed_seconds"] == edited["shortest_change"] <= (
        edited["last_fetch"] - edited["first_fetch"])
    assert not static["changed_seconds"] and static["shortest_change"] is None


def test_deleted_page_leaves_the_index_and_a_new_redirect_is_followed(settings: Settings) -> None:
    pages = {"/": html("home", "home", [("/doomed", "doomed"), ("/moving", "moving")]),
             "/doomed": html("doomed", "the zeppelin hangar page"),
             "/moving": html("moving", "the walrus enclosure page")}
    with LoopbackWeb([Site(ADDRESS, pages)]) as web:
        crawl(settings, web.url(ADDRESS, "/"))
        assert hits(settings, "zeppelin") == 1 and hits(settings, "walrus") == 1
        del pages["/doomed"]
        pages["/moving"] = Page(b"", status=301, headers=(("Location", "/moved"),))
        pages["/moved"] = html("moved", "the pelican enclosure page")
        crawl(settings, web.url(ADDRESS, "/"))
    after = rows(settings)
    doomed, moving, moved = after["/doomed"], after["/moving"], after["/moved"]
    assert doomed["state"] == State.GONE and doomed["status"] == 404
    assert moving["state"] == State.REDIRECTED and moved["state"] == State.FETCHED
    assert hits(settings, "zeppelin") == 0 and hits(settings, "walrus") == 0
    assert hits(settings, "pelican") == 1


def test_validators_make_conditional_requests_and_304_is_unmodified(settings: Settings) -> None:
    etag, stamp = '"rev-7"', "Mon, 23 Nov 2026 10:00:00 GMT"
    page = dataclasses.replace(html("tagged", "a page with validators"),
                               headers=(("ETag", etag), ("Last-Modified", stamp)))
    pages = {"/": html("home", "home", [("/tagged", "tagged")]), "/tagged": page}
    settings = dataclasses.replace(settings, max_docs_per_server=2)  # caps new pages, not recrawls
    with LoopbackWeb([Site(ADDRESS, pages)]) as web:
        crawl(settings, web.url(ADDRESS, "/"))
        pages["/tagged"] = Page(b"", status=304, headers=(("ETag", etag),))
        web.log.settle()  # the first crawl's requests are all logged before they are counted
        seen = len(web.log.snapshot())
        sink = crawl(settings, web.url(ADDRESS, "/"))
        web.log.settle()
        asked = [dict(h.headers) for h in web.log.snapshot()[seen:] if h.path == "/tagged"]
    tagged = rows(settings)["/tagged"]
    assert asked and all(h.get("If-None-Match") == etag for h in asked)
    assert all(h.get("If-Modified-Since") == stamp for h in asked)
    assert tagged["etag"] == etag and tagged["last_modified"] == stamp
    assert tagged["times_unmodified"] >= len(asked) and tagged["times_changed"] == 0
    assert tagged["times_not_modified"] == len(asked)  # each conditional GET was answered 304
    assert tagged["state"] == State.FETCHED and tagged["id"] not in sink.added
    assert hits(settings, "validators") == 1


def test_last_modified_dates_changes_only_while_it_agrees_with_the_shingles(
        settings: Settings) -> None:
    vocabulary = ["".join(w) for w in itertools.product("bdfgklmnprst", "aeiou", "bdfgklmnprst")]
    visits = itertools.count()
    dated_in: set[int] = set()  # the seconds in which this crawl asked for /dated

    def route(path: str) -> Page | None:
        second = int(time.time())
        if path == "/dated":  # rewritten every second, dated by that second
            dated_in.add(second)
            words = random.Random(second).sample(vocabulary, 60)
            page = html("dated", " ".join(words))
        elif path == "/counted":  # a visitor counter (trivial), dated by the second served
            page = html("counted", f"visitor {next(visits)}. " + "the words stay the same " * 8)
        else:
            return html("home", "home", [("/dated", "dated"), ("/counted", "counted")])
        return dataclasses.replace(page, headers=(("Last-Modified", formatdate(second, usegmt=True)),))

    until = Until(route)
    with LoopbackWeb([Site(ADDRESS, until)]) as web:
        for _ in range(2):  # each until /dated was asked in two seconds and /counted twice
            dated_in.clear()
            until.crawl(settings, web.url(ADDRESS, "/"),
                        lambda asked: len(dated_in) >= 2 and asked["/counted"] >= 2)
    after = rows(settings)
    dated, counted = after["/dated"], after["/counted"]
    assert dated["times_changed"] >= 1 and counted["times_changed"] == 0 < counted["times_trivial"]
    # each change is at most a second old when fetched, never older than its recrawl
    assert 0 <= dated["change_ages"] <= min(dated["changed_seconds"], dated["times_changed"])
    assert counted["change_ages"] == UNTRUSTED  # its date moved with a trivial change


def test_a_server_whose_dates_proved_right_vouches_for_them_one_with_a_clock_page_does_not(
        settings: Settings) -> None:
    """Two servers on loopback, each with static pages dated once and a page rewritten every
    second and dated by it; one also has a visitor counter whose date moves with every visit. The
    first server's dates pass every test and it vouches for them (lastmod.ServerDates); the
    counter's one failed test is enough to keep the other from vouching."""
    honest, clocked = "127.0.11.7", "127.0.11.8"
    vocabulary = ["".join(w) for w in itertools.product("bdfgklmnprst", "aeiou", "bdfgklmnprst")]
    made = time.time() - 3600.0  # when the static pages were written
    asked: Counter[tuple[str, str]] = Counter()
    running: list[CrawlLoop] = []
    static = [f"/s{k}" for k in range(6)]

    def enough() -> bool:  # answers handled: one request in flight per server
        passes = sum(asked[honest, path] - 2 for path in ["/", *static] if asked[honest, path] > 1)
        return passes >= VOUCH_PASSES and asked[clocked, "/counted"] >= 3 and asked[honest, "/fast"] >= 3

    def route(address: str, path: str) -> Page | None:
        if running and enough():
            running[-1].request_stop("the test has what it waits for")
        asked[address, path] += 1
        second = int(time.time())
        if path == "/fast":  # rewritten every second, dated by that second
            page, dated = html("fast", " ".join(random.Random(second).sample(vocabulary, 60))), second
        elif path == "/counted" and address == clocked:  # its date moves with every visit
            visit = asked[address, path]
            page, dated = html("counted", f"visitor {visit}. " + "the words stay the same " * 8), made + visit
        elif path in static:
            page, dated = html(path, f"static page {path} " + OLD), made
        elif path == "/":
            links = [(p, p) for p in [*static, "/fast"]] + ([("/counted", "counted")] if address == clocked
                                                            else [(web.url(clocked, "/"), "the other")])
            page, dated = html("home", "home", links), made
        else:
            return None
        return dataclasses.replace(page, headers=(("Last-Modified", formatdate(dated, usegmt=True)),))

    settings = dataclasses.replace(settings, hours=Until.BOUND, fetch_rate=8.0)
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    with LoopbackWeb([Site(honest, lambda path: route(honest, path)),
                      Site(clocked, lambda path: route(clocked, path))]) as web:
        engine = connect(settings.database_url)
        store = CrawlStore(engine)
        sink = IndexSink(store, settings.index_dir)
        try:
            ordering, recrawl = incremental_parts(settings, store, sink)
            assert recrawl is not None
            crawler = index_loop(settings, store, sink=sink, ordering=ordering, recrawl=recrawl)
            crawler.add_seeds([web.url(honest, "/")])
            running.append(crawler)
            crawler.run()
        finally:
            store.close()
            engine.dispose()
    assert enough(), "the crawl stopped before the servers' dates were tested"
    engine = connect(settings.database_url)
    try:
        with engine.connect() as conn:
            ids = dict(conn.execute(select(servers.c.host, servers.c.id)).all())
            found = conn.execute(select(servers.c.host, documents.c.path, documents.c.change_ages)
                                 .join(servers, servers.c.id == documents.c.server_id)).all()
    finally:
        engine.dispose()
    ages = {(host, path): value for host, path, value in found}
    assert recrawl.dates.vouched(ids[honest]) and not recrawl.dates.vouched(ids[clocked])
    assert ages[clocked, "/counted"] == UNTRUSTED  # the one failed test
    assert ages[honest, "/fast"] is not None and ages[honest, "/fast"] >= 0  # dated and trusted
