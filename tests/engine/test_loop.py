"""The crawl loop's logic, fast: the in-process pool (the agents' code, no processes) and the
in-memory store, against real HTTP servers on loopback."""

from __future__ import annotations

import dataclasses
from itertools import count
from pathlib import Path

import pytest

from tests.support.inprocess import InProcessPool
from webcrawler.demoweb.server import LoopbackWeb, Page, Site, html
from webcrawler.engine.loop.crawl import BaseHooks, CrawlLoop
from webcrawler.engine.loop.index_hooks import index_loop
from webcrawler.engine.loop.policies import NullSink
from webcrawler.engine.loop.progress import block, line, snapshot
from webcrawler.engine.store.memory import MemoryStore
from webcrawler.protocol.messages import Document
from webcrawler.settings import Settings
from webcrawler.toolkit import Crawler, Limits
from webcrawler.toolkit.recording import PageStore
from webcrawler.toolkit.runtime import CrawlRun

A, B = "127.0.17.1", "127.0.17.2"


def redirect(to: str) -> Page:
    return Page("", status=301, headers=(("Location", to),))


def chain(name: str, hops: int) -> dict[str, Page]:
    """/name0 redirects to /name1 ... to /name{hops}, a page."""
    pages = {f"/{name}{i}": redirect(f"/{name}{i + 1}") for i in range(hops)}
    pages[f"/{name}{hops}"] = html(f"end of {name}", "arrived")
    return pages


def site_a() -> dict[str, Page]:
    pages = {"/": html("home", "start", [("/p1", "one"), ("/p2", "two"), ("/private/x", "no"),
                                         ("/skip-me", "skipped"), ("/short0", "short"),
                                         ("/long0", "long"), ("/noindex", "quiet"),
                                         ("/copy", "copy")])}
    pages["/p1"] = html("page one", "first", [("/deep1", "deeper"), ("/", "home")])
    pages["/p2"] = html("page two", "second", [("/p1", "one")])
    pages["/deep1"] = html("deep one", "deeper", [("/deep2", "deeper still")])
    pages["/deep2"] = html("deep two", "deepest")
    pages["/private/x"] = html("private", "robots say no")
    pages["/skip-me"] = html("skip", "excluded by a pattern")
    pages["/noindex"] = Page('<html><head><title>q</title><meta name="robots" content="noindex">'
                             '</head><body><a href="/after-noindex">on</a></body></html>')
    pages["/after-noindex"] = html("after noindex", "followed: noindex is not nofollow")
    pages["/copy"] = pages["/p2"]
    return pages | chain("short", 2) | chain("long", 6)


@pytest.fixture(scope="module")
def web():
    b_pages = {"/": html("b home", "other", [(f"/b{i}", f"b {i}") for i in range(6)])}
    b_pages |= {f"/b{i}": html(f"b {i}", "page") for i in range(6)}
    with LoopbackWeb([Site(A, site_a(), robots_txt="User-agent: *\nDisallow: /private\n"),
                      Site(B, b_pages, robots_txt="")]) as served:
        yield served


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", delay=0.0, max_depth=2, exclude=("skip-me",),
                    connect_timeout=2.0, read_timeout=2.0, total_timeout=5.0, progress_interval=60)


def crawl(settings: Settings, seeds: list[str], **changes) -> tuple[CrawlLoop, InProcessPool]:
    settings = dataclasses.replace(settings, **changes)
    pool = InProcessPool(settings)
    loop = index_loop(settings, MemoryStore(), pool_factory=lambda: pool)
    assert loop.add_seeds(seeds) == []
    loop.run()
    return loop, pool


def states(loop: CrawlLoop, origin: str) -> dict[str, tuple[str, object]]:
    store = loop.store
    assert isinstance(store, MemoryStore)
    server = store.server(origin)
    assert server is not None
    return {u.path: (u.state, u.values.get("reason")) for u in store.urls.values()
            if u.server_id == server.id}


def test_robots_first_then_the_scope_and_robots_rules(web, settings):
    loop, pool = crawl(settings, [web.url(A)])
    a = states(loop, web.origin(A))
    assert loop.stats.stop_reason == "nothing left to fetch"
    assert pool.paths(web.origin(A))[0] == "/robots.txt"
    assert "/private/x" not in pool.paths(web.origin(A))
    assert a["/private/x"] == ("excluded", "robots")
    assert "/skip-me" not in a  # the scope refuses it: not even stored
    assert a["/deep1"][0] == "fetched" and "/deep2" not in a  # max_depth 2
    assert pool.paths(web.origin(A)).count("/robots.txt") == 1


def test_redirects_are_followed_up_to_the_limit(web, settings):
    loop, _ = crawl(settings, [web.url(A, "/short0"), web.url(A, "/long0")], max_depth=10)
    a = states(loop, web.origin(A))
    assert a["/short0"][0] == a["/short1"][0] == "redirected"
    assert a["/short2"][0] == "fetched"
    assert a["/long4"][0] == "redirected"
    assert a["/long5"] == ("failed", "too-many-redirects")
    assert "/long6" not in a


def test_noindex_is_kept_out_of_the_index_duplicates_are_not_followed(web, settings):
    loop, _ = crawl(settings, [web.url(A)])
    a = states(loop, web.origin(A))
    assert a["/noindex"] == ("fetched", "noindex")
    assert a["/after-noindex"][0] == "fetched"
    duplicates = {path for path, (_, reason) in a.items() if reason == "duplicate"}
    assert len(duplicates & {"/p2", "/copy"}) == 1


def test_a_duplicate_is_followed_where_its_links_lead_elsewhere(settings):
    """Two servers whose home pages are byte-identical, relative links to their own pages:
    both servers are crawled whole (a copy on one server, /copy above, is not followed)."""
    home = html("the home page", "welcome", [("/x", "x"), ("/y", "y")])
    one = {"/": home, "/x": html("one x", "the first x"), "/y": html("one y", "the first y")}
    two = {"/": home, "/x": html("two x", "the second x"), "/y": html("two y", "the second y")}
    with LoopbackWeb([Site("127.0.17.11", one, robots_txt=""),
                      Site("127.0.17.12", two, robots_txt="")]) as twins:
        loop, _ = crawl(settings, [twins.url("127.0.17.11"), twins.url("127.0.17.12")])
        found = {address: states(loop, twins.origin(address))
                 for address in ("127.0.17.11", "127.0.17.12")}
    assert sorted(server["/"][1] or "" for server in found.values()) == ["", "duplicate"]
    assert all(server[path] == ("fetched", None) for server in found.values()
               for path in ("/x", "/y")), found


def test_one_request_in_flight_per_server_and_the_servers_in_parallel(web, settings):
    loop, pool = crawl(settings, [web.url(A), web.url(B)])
    assert set(pool.most_at_once.values()) == {1}
    assert pool.most_held == 2
    urls = [job.url for job in pool.requests]
    assert len(urls) == len(set(urls))  # never twice
    assert loop.stats.answered == len(urls) - loop.stats.robots
    assert {web.url(B, f"/b{i}") for i in range(6)} <= set(urls)


def test_the_time_limit_stops_before_any_request(web, settings):
    loop, pool = crawl(settings, [web.url(A)], hours=0.0)
    assert loop.stats.stop_reason == "time limit" and pool.requests == []


def test_the_document_limit_stops_the_crawl(web, settings):
    loop, _ = crawl(settings, [web.url(B)], max_docs=3)
    assert loop.stats.stop_reason == "document limit" and loop.stats.retrieved == 3


class StopAtFirst(BaseHooks):
    def __init__(self, loop: CrawlLoop) -> None:
        self.loop = loop
        self.documents: list[str] = []

    def document(self, entry, server, doc: Document) -> None:
        self.documents.append(entry.path)
        self.loop.request_stop("seen one")


def test_a_hook_stops_the_loop_and_nothing_more_goes_out(web, settings):
    pool = InProcessPool(settings)
    loop = CrawlLoop(settings, MemoryStore(), StopAtFirst, pool_factory=lambda: pool)
    loop.add_seeds([web.url(B)])
    loop.run()
    assert loop.stats.stop_reason == "seen one"
    assert isinstance(loop.hooks, StopAtFirst) and loop.hooks.documents == ["/"]
    assert pool.paths(web.origin(B)) == ["/robots.txt", "/"]


def test_a_toolkit_crawl_asks_again_for_an_unavailable_robots_txt(web, settings):
    """The engine's robots.txt lifecycle: unavailable (503) disallows all until it is asked
    again (after robots_retry), while the crawl goes on elsewhere."""
    answers = count()

    def routes(path: str) -> Page | None:
        if path == "/robots.txt":
            return Page("", status=503) if next(answers) == 0 else Page("", content_type="text/plain")
        return {"/": html("home", "", [("/one", "one"), ("/one", "again"), (web.url(B), "b")]),
                "/one": html("one", "", [("/", "home")])}.get(path)

    class Everywhere(Crawler):
        def should_visit(self, link) -> bool:
            return "hyperlink" in link.labels

    with LoopbackWeb([Site("127.0.17.3", routes)]) as flaky:
        crawler = Everywhere(roots=[flaky.url("127.0.17.3"), web.url(B)], limits=Limits(seconds=30),
                             settings=dataclasses.replace(settings, robots_retry=0.0))
        pool = InProcessPool(settings)
        summary = CrawlRun(crawler, crawler.engine_settings(), pool_factory=lambda: pool).run()
    assert summary.stop_reason == "queue-empty" and summary.pages == 2 + 7
    assert pool.paths(flaky.origin("127.0.17.3")) == ["/robots.txt", "/robots.txt", "/", "/one"]
    assert pool.paths(web.origin(B)).count("/") == 1  # never twice, though linked twice


class Offering:
    """A visit action that offers the crawl a store (toolkit/recording.py's protocol, as
    AddToIndex offers its data directory), here an in-memory one; it takes every page."""

    def __init__(self, store: MemoryStore) -> None:
        self.store, self.kept = store, []
        self.offered: PageStore | None = None

    def offer_store(self) -> PageStore:
        self.offered = PageStore(self.store, NullSink(), lambda e, doc, r: (None, None, b""),
                                 self.kept.append, lambda: None)
        return self.offered

    def __call__(self, page) -> None:
        assert self.offered is not None and self.offered.take(page)


def test_a_toolkit_crawl_on_an_offered_store_leaves_its_frontier_and_visits_known_pages_again(
        settings):
    """The store a batch crawl stopped in (C's home fetched; two of its pages and a page of D,
    a server never asked, queued): a toolkit crawl on it visits its root again and the one
    page it chose, and nothing of the old frontier, not even D's robots.txt; C's robots.txt
    is the store's, not asked again."""
    c, d = "127.0.17.4", "127.0.17.5"
    routes = {"/c0": html("c0", "zero"), "/c1": html("c1", "one")}
    with LoopbackWeb([Site(c, routes), Site(d, {"/d": html("d", "far")})]) as served:
        routes["/"] = html("c", "home", [("/c0", "c0"), ("/c1", "c1"), (served.url(d, "/d"), "d")])
        store = MemoryStore()
        first = index_loop(dataclasses.replace(settings, max_docs=1), store,
                           pool_factory=lambda: InProcessPool(settings))
        first.add_seeds([served.url(c)])
        first.run()
        old = {(u.server_id, u.path) for u in store.urls.values() if u.state == "queued"}
        assert len(old) >= 3  # /c0, /c1, D's /d (and C's /sitemap.xml)

        class OnlyC0(Crawler):
            def should_visit(self, link) -> bool:
                return link.url.endswith("/c0")

        offering = Offering(store)
        crawler = OnlyC0(roots=[served.url(c)], limits=Limits(seconds=30), settings=settings)
        crawler.on("page-visited", offering)
        pool = InProcessPool(settings)
        summary = CrawlRun(crawler, crawler.engine_settings(), pool_factory=lambda: pool).run()
    assert summary.stop_reason == "queue-empty" and summary.pages == 2
    assert summary.callback_errors == 0  # the listener's own asserts held
    assert pool.paths(served.origin(c)) == ["/", "/c0"] and pool.paths(served.origin(d)) == []
    c0 = (store.server(served.origin(c)).id, "/c0")
    assert {(u.server_id, u.path) for u in store.urls.values() if u.state == "queued"} == old - {c0}
    assert offering.kept == [None, None]  # both indexed: "/" is no duplicate of itself
    assert {u.path: u.values["times_fetched"] for u in store.urls.values()
            if u.state == "fetched"} == {"/": 2, "/c0": 1}
    assert store.runs[-1]["mode"] == "toolkit" and store.runs[-1]["documents"] == 2


def test_the_progress_shows_the_limits_what_is_left_and_the_politeness_bound(settings):
    """One server, four agents, --delay 0.2: the delay bounds the crawl, and the display says
    so, with the time and the documents left of --hours and --max-docs."""
    pages = {"/": html("home", "start", [(f"/p{i}", f"page {i}") for i in range(8)])}
    pages |= {f"/p{i}": html(f"page {i}", f"text {i}") for i in range(8)}
    shown: list[list[str]] = []
    with LoopbackWeb([Site("127.0.17.13", pages, robots_txt="")]) as one:
        limited = dataclasses.replace(settings, agents=4, delay=0.2, max_docs=5, hours=0.02,
                                      progress_interval=0.0)
        pool = InProcessPool(limited)
        loop = index_loop(limited, MemoryStore(), pool_factory=lambda: pool,
                          progress=lambda crawl: shown.append(
                              [*block(snapshot(crawl)), line(snapshot(crawl))]))
        loop.add_seeds([one.url("127.0.17.13")])
        loop.run()
    assert shown and all(lines[0].startswith("webcrawler index") and " of 72 s (--hours 0.02), "
                         in lines[0] and " s left" in lines[0] for lines in shown)
    assert any(" of 5 (--max-docs), 3 left" in lines[1] for lines in shown)
    bound = "bounded by politeness: 1 server with work, one request every 0.2 s (--delay)"
    assert any(bound in lines[-2] and bound in lines[-1] for lines in shown)


# --- one URL per document on the in-memory store ----------------------------------------------
C = "127.0.17.3"
WORDS = " ".join("".join(chr(97 + i // 26 ** k % 26) for k in range(3)) + "ly"  # 400 distinct
                 for i in range(400))  # words (digits count as one in a sketch): one to judge


def canonical_page(title: str, canonical: str, links: tuple[str, ...] = ()) -> Page:
    anchors = "".join(f'<a href="{href}">{href}</a>' for href in links)
    return Page(f'<html><head><title>{title}</title><link rel="canonical" href="{canonical}">'
                f"</head><body><p>{title} {title}</p>{anchors}</body></html>")


@pytest.fixture(scope="module")
def one_url_web():
    pages = {"/": html("home", "start", [("/print", "print"), ("/article", "article"),
                                         ("/near-a", "a"), ("/near-b", "b")]),
             "/print": canonical_page("print view", "/article"),  # fetched before its canonical
             "/article": html("the article", "the text", [("/mobile", "mobile")]),
             "/mobile": canonical_page("mobile view", "/article"),  # fetched after it
             "/near-a": html("a page", WORDS),
             "/near-b": html("a page", WORDS + " updated on the 29th")}
    with LoopbackWeb([Site(C, pages, robots_txt="")]) as served:
        yield served


class Removals:
    """A `DocumentSink` that records what the crawl adds to and takes out of the index."""

    def __init__(self) -> None:
        self.added: list[int] = []
        self.removed: list[int] = []

    def add(self, doc_id: int, document: Document) -> None:
        self.added.append(doc_id)

    def remove(self, doc_id: int) -> None:
        self.removed.append(doc_id)

    def commit(self) -> None: ...
    def close(self) -> None: ...
    def abort(self) -> None: ...


def one_url_crawl(web, settings: Settings) -> tuple[CrawlLoop, Removals, dict[str, int]]:
    sink = Removals()
    store = MemoryStore()
    loop = index_loop(dataclasses.replace(settings, max_depth=3), store,
                      pool_factory=lambda: InProcessPool(settings), sink=sink)
    assert loop.add_seeds([web.url(C)]) == []
    loop.run()
    server = store.server(web.origin(C))
    assert server is not None
    return loop, sink, {u.path: u.doc_id for u in store.urls.values() if u.server_id == server.id}


def test_canonical_urls_on_the_in_memory_store(one_url_web, settings):
    """An alias fetched before its canonical page leaves the index when that page is indexed;
    one fetched after never enters it: one search result per document."""
    loop, sink, ids = one_url_crawl(one_url_web, settings)
    c = states(loop, one_url_web.origin(C))
    assert c["/article"] == ("fetched", None)
    assert c["/print"] == ("fetched", "canonical") and c["/mobile"] == ("fetched", "canonical")
    assert ids["/print"] in sink.added and ids["/print"] in sink.removed  # indexed until then
    assert ids["/mobile"] not in sink.added
    assert "aliases 2 (canonical URLs)" in loop.hooks.found()


def test_near_duplicates_on_the_in_memory_store(one_url_web, settings):
    loop, sink, ids = one_url_crawl(one_url_web, settings)
    c = states(loop, one_url_web.origin(C))
    assert c["/near-a"] == ("fetched", None) and ids["/near-a"] in sink.added
    assert c["/near-b"] == ("fetched", "near-duplicate") and ids["/near-b"] not in sink.added
    store = loop.store
    assert isinstance(store, MemoryStore)
    assert str(store.urls[ids["/near-b"]].values["detail"]).startswith(
        f"resembles document {ids['/near-a']} ")
    assert "near-duplicates 1 not indexed" in loop.hooks.found()


class Reindexing(Removals):
    """A sink that indexes with the in-links the store holds at that moment and records them, as
    the index's outbox does, and takes documents again: link refresh runs with it."""

    def __init__(self, store: MemoryStore) -> None:
        super().__init__()
        self.store = store
        self.resent: list[int] = []

    def add(self, doc_id: int, document: Document) -> None:
        super().add(doc_id, document)
        self.store.record_indexed({doc_id: self.store.in_link_counts([doc_id]).get(doc_id, 0)})

    def resend(self, doc_ids) -> None:
        self.resent += doc_ids


def test_link_refresh_on_the_in_memory_store(settings):
    """The hub is indexed first, when one page links to it; the five pages after it link to it
    too, so at the crawl's end it is sent to the index again, and only it."""
    pages = {"/": html("home", "start", [("/hub", "hub")] + [(f"/p{i}", "p") for i in range(5)]),
             "/hub": html("hub", "the hub")}
    pages |= {f"/p{i}": html(f"p{i}", "a page", [("/hub", "the hub")]) for i in range(5)}
    store = MemoryStore()
    sink = Reindexing(store)
    with LoopbackWeb([Site("127.0.17.4", pages, robots_txt="")]) as web:
        loop = index_loop(settings, store, pool_factory=lambda: InProcessPool(settings), sink=sink)
        assert loop.add_seeds([web.url("127.0.17.4")]) == []
        loop.run()
        server = store.server(web.origin("127.0.17.4"))
        assert server is not None
        hub = store.lookup(server, "/hub")
    assert hub is not None and store.indexed_with[hub] == 1  # indexed with the home page's link
    assert store.in_link_counts([hub]) == {hub: 6}
    assert sink.resent == [hub]
    assert "1 page sent to the index again" in loop.hooks.found()


def test_every_seed_failed_is_told_on_the_in_memory_store(web, settings):
    from webcrawler.engine.loop.outcome import failed_seeds

    seed = web.url(B, "/missing")
    loop, _ = crawl(settings, [seed])
    assert failed_seeds(loop, loop.store, [seed]) == (
        f"nothing was fetched, every seed failed: {seed} (http-error: HTTP 404)")


@pytest.mark.parametrize("order", ["pagerank", "backlink"])
def test_the_priority_orders_on_the_in_memory_store(web, settings, order):
    """The live orders ask the store only through `interfaces.OrderBook`: a crawl in each of
    them on the in-memory store fetches what the default order does, and obeys robots.txt."""
    from webcrawler.engine.scheduling.orders.batch import make_ordering

    store = MemoryStore()
    pool = InProcessPool(settings)
    loop = index_loop(settings, store, pool_factory=lambda: pool,
                      ordering=make_ordering(order, store, hot_query="page"))
    assert loop.add_seeds([web.url(B)]) == []
    loop.run()
    fetched = sorted(path for path, (state, _) in states(loop, web.origin(B)).items()
                     if state == "fetched")
    assert fetched == ["/", *(f"/b{i}" for i in range(6))]
    default, _ = crawl(settings, [web.url(A)])
    store = MemoryStore()
    loop = index_loop(settings, store, pool_factory=lambda: InProcessPool(settings),
                      ordering=make_ordering(order, store))
    assert loop.add_seeds([web.url(A)]) == []
    loop.run()
    assert states(loop, web.origin(A)) == states(default, web.origin(A))
    assert "/private/x" not in web.log.paths(web.name(A))


def test_an_incremental_crawl_on_the_in_memory_store(settings):
    """The recrawl asks the store only through `interfaces.RecrawlBook`: a batch crawl, then an
    incremental one on the same in-memory store schedules the stored pages, finds the page
    that changed (it goes to the index again) and keeps each page's history."""
    from webcrawler.recrawl.policies import RecrawlPlan
    from webcrawler.recrawl.recrawler import incremental

    site = Site("127.0.17.5", {"/": html("home", "start", [("/same", "same"), ("/news", "news")]),
                               "/same": html("same", "never changes"),
                               "/news": html("news", "the first story")}, robots_txt="")
    store, sink = MemoryStore(), Removals()
    with LoopbackWeb([site]) as web:
        batch = index_loop(settings, store, pool_factory=lambda: InProcessPool(settings), sink=sink)
        assert batch.add_seeds([web.url(site.address)]) == []
        batch.run()
        site.routes["/news"] = html("news", " ".join(f"story{i}" for i in range(300)))  # rewritten
        again = dataclasses.replace(settings, incremental=True, hours=1.5 / 3600, recrawl="uniform",
                                    fetch_rate=8.0)
        ordering, recrawler = incremental(store, sink, "uniform", RecrawlPlan(), 8.0)
        assert recrawler.load() == 3  # the stored pages, scheduled
        loop = index_loop(again, store, pool_factory=lambda: InProcessPool(again), sink=sink,
                          ordering=ordering, recrawl=recrawler)
        loop.run()
    server = store.server(web.origin(site.address))
    assert server is not None
    news, same = store.lookup(server, "/news"), store.lookup(server, "/same")
    assert news is not None and same is not None
    assert recrawler.stats.changed == 1 and recrawler.stats.recrawled >= 3
    assert sink.added.count(news) == 2 and sink.added.count(same) == 1  # the change re-indexed
    assert store.urls[news].values["times_changed"] == 1
    assert int(str(store.urls[same].values["times_fetched"])) >= 2
    assert store.urls[same].values["times_changed"] == 0
