"""A toolkit crawl with an AddToIndex runs its loop on the data directory (issue 34): one
store, one sink, one commit cadence. Each answer is recorded there once; the action chooses
which pages are indexed; a repeat crawl visits its pages again; the data directory's old
frontier is not the crawl's work; a page handed over by hand still goes in; two data
directories in one crawl are a clear error; the sink is closed once, even when the crawl
never starts."""

from __future__ import annotations

import dataclasses
import multiprocessing
from pathlib import Path

import pytest
from sqlalchemy import func, select

from webcrawler.commands.index import run_index
from webcrawler.database.schema import connect, crawls, documents, servers
from webcrawler.demoweb.server import LoopbackWeb, Page, Site, html
from webcrawler.engine.store.sql import CrawlStore
from webcrawler.errors import ToolkitError
from webcrawler.query_server import create_app
from webcrawler.settings import Settings
from webcrawler.toolkit import Crawler, Limits
from webcrawler.toolkit import Page as ToolkitPage
from webcrawler.toolkit.actions import AddToIndex
from webcrawler.toolkit.running import running_loop

HOME, OTHER, THIRD = "127.0.16.21", "127.0.16.22", "127.0.16.23"


@pytest.fixture(scope="module")
def web():
    home = html("home", "the start", [("/a", "a"), ("/b", "b"), ("/gone", "gone"),
                                      ("/moved", "moved"), ("/other", "other"),
                                      ("/keep-copy", "copy")])
    routes = {"/": home, "/a": html("alpha", "walrus words"), "/b": html("bravo", "narwhal"),
              "/gone": Page("no such page", status=404),
              "/moved": Page("", status=301, headers=(("Location", "/a2"),)),
              "/a2": html("alpha two", "dugong words"),
              "/other": html("same", "manatee words"), "/keep-copy": html("same", "manatee words")}
    elsewhere = {f"/p{i}": html(f"p{i}", "far away") for i in range(5)}
    with LoopbackWeb([Site(HOME, routes), Site(OTHER, elsewhere),
                      Site(THIRD, {"/t": html("third", "never asked")})]) as served:
        elsewhere["/"] = html("elsewhere", "", [(f"/p{i}", f"p{i}") for i in range(5)]
                              + [(served.url(THIRD, "/t"), "third")])
        yield served


@pytest.fixture
def fast(tmp_path: Path) -> Settings:
    return Settings(delay=0.0, agents=2, hours=0.02, data_dir=tmp_path / "leases",
                    connect_timeout=2.0, read_timeout=2.0, total_timeout=5.0)


def rows(data: Path) -> dict[str, tuple]:
    """path -> (state, reason, detail, times fetched) of the home site's documents."""
    engine = connect(f"sqlite:///{data / 'webcrawler.db'}")
    try:
        with engine.connect() as conn:
            d = documents.c
            found = conn.execute(select(servers.c.host, d.path, d.state, d.reason, d.detail,
                                        d.times_fetched)
                                 .join(servers, servers.c.id == d.server_id)).all()
    finally:
        engine.dispose()
    return {r.path: (r.state, r.reason, r.detail, r.times_fetched) for r in found if r.host == HOME}


def scalar(data: Path, query) -> object:
    engine = connect(f"sqlite:///{data / 'webcrawler.db'}")
    try:
        with engine.connect() as conn:
            return conn.execute(query).scalar()
    finally:
        engine.dispose()


def found(data: Path, query: str) -> list[str]:
    client = create_app(data, testing=True).test_client()
    answer = client.get("/api/search", query_string={"q": query}).get_json()
    return [hit["url"] for hit in answer["results"]]


def indexers() -> list[multiprocessing.Process]:
    """The index writer processes of this process still running."""
    return [p for p in multiprocessing.active_children() if p.name == "webcrawler-indexer"]


def crawl(settings: Settings, root: str, action: AddToIndex, seen: list | None = None) -> int:
    """Crawl `root`'s site with `action` attached; the pages visited."""
    crawler = Crawler(roots=[root], limits=Limits(pages=20, seconds=60), settings=settings)
    action.attach(crawler)
    if seen is not None:
        crawler.on("page-visited", lambda page: seen.append(running_loop()))
    summary = crawler.run()
    assert summary.callback_errors == 0 and summary.stop_reason == "queue-empty"
    return summary.pages


def test_the_loop_runs_on_the_data_directory_and_records_each_answer_once(web, fast, tmp_path):
    data, loops = tmp_path / "data", []
    action = AddToIndex(data)
    assert crawl(fast, web.url(HOME, "/"), action, loops) == 6  # home, a, b, a2, other, copy
    loop = loops[0]
    assert isinstance(loop.store, CrawlStore)  # not the toolkit's own in-memory store
    assert loop.store.database_url() == action.db_url  # ... but the data directory's
    assert all(seen is loop for seen in loops)
    got = rows(data)
    fetched = {path for path, row in got.items() if row[0] == "fetched"}
    assert fetched == {"/", "/a", "/b", "/a2", "/other", "/keep-copy"}
    assert all(got[path][3] == 1 for path in fetched)  # each recorded once
    assert got["/gone"][:2] == ("failed", "http-error")
    assert got["/moved"][:3] == ("redirected", None, web.url(HOME, "/a2"))
    home = select(servers.c.docs_failed).where(servers.c.host == HOME)
    assert scalar(data, home) == 1  # the 404, counted once
    assert scalar(data, select(func.count()).select_from(crawls)) == 1  # one run, the loop's
    assert scalar(data, select(crawls.c.mode)) == "toolkit"
    assert scalar(data, select(crawls.c.documents)) == 6
    assert found(data, "walrus") == [web.url(HOME, "/a")]
    assert found(data, "dugong") == [web.url(HOME, "/a2")]
    assert indexers() == []  # the loop closed the sink, and the crawl did not close it again
    assert action.close().startswith(f"5 pages added to the index in {data}")  # one copy


def test_pages_the_action_does_not_take_are_stored_but_not_indexed(web, fast, tmp_path):
    """`when` chooses; a page left out is no original of a later copy."""
    data = tmp_path / "data"
    action = AddToIndex(data, when=lambda page: page.url.endswith(("/a", "/keep-copy")))
    crawl(fast, web.url(HOME, "/"), action)
    got = rows(data)
    assert got["/other"][:2] == ("fetched", "not-chosen")
    assert got["/b"][:2] == ("fetched", "not-chosen")
    assert got["/keep-copy"][:2] == ("fetched", None)  # same content as /other: indexed
    assert found(data, "manatee") == [web.url(HOME, "/keep-copy")]
    assert found(data, "narwhal") == []
    assert action.added == 2 and action.skipped == 4


def test_a_second_crawl_of_the_same_roots_visits_every_page_again(web, fast, tmp_path):
    data = tmp_path / "data"
    first = crawl(fast, web.url(HOME, "/"), AddToIndex(data))
    second = AddToIndex(data)
    assert crawl(fast, web.url(HOME, "/"), second) == first
    got = rows(data)
    assert {path: row[3] for path, row in got.items() if row[0] == "fetched"} == {
        "/": 2, "/a": 2, "/b": 2, "/a2": 2, "/other": 2, "/keep-copy": 2}
    assert got["/a"][:2] == ("fetched", None)  # not a duplicate of itself
    assert second.added == 5
    assert found(data, "walrus") == [web.url(HOME, "/a")]  # indexed once
    assert scalar(data, select(func.count()).select_from(crawls)) == 2


def test_the_data_directory_s_old_frontier_is_not_the_crawl_s_work(web, fast, tmp_path):
    """A batch crawl stopped after one page left pages queued on its server and on a third
    server it never asked: the toolkit crawl of the home site asks neither for anything (not
    even robots.txt), and leaves them queued."""
    data = tmp_path / "data"
    run_index(dataclasses.replace(fast, data_dir=data, seeds=(web.url(OTHER, "/"),), max_docs=1),
              progress=False)
    queued = select(func.count()).select_from(documents).where(documents.c.state == "queued")
    assert scalar(data, queued) >= 6  # five of its pages, the third server's (and a sitemap)
    left = scalar(data, queued)
    web.log.settle()
    before = len(web.log.for_server(web.name(OTHER)))
    crawl(fast, web.url(HOME, "/"), AddToIndex(data))
    web.log.settle()
    assert len(web.log.for_server(web.name(OTHER))) == before
    assert web.log.for_server(web.name(THIRD)) == []
    assert scalar(data, queued) == left
    assert rows(data)["/a"][:2] == ("fetched", None)


class Holder(Crawler):
    """Keeps its action as an attribute and hands it each page, and one page of its own."""

    def visit(self, page: ToolkitPage) -> None:
        self.index(page)
        if page.depth == 0:
            self.index(ToolkitPage(f"http://{HOME}/by-hand", html="<title>made</title>",
                                   text="okapi words", title="made"))


def test_pages_handed_over_by_hand_in_a_crawl_and_outside_one(web, fast, tmp_path):
    """An action kept on the crawler is found too; a page it is given that the crawl is not
    visiting goes in through the crawl's store, and outside a crawl through its own."""
    data = tmp_path / "data"
    with AddToIndex(data) as action:
        action(ToolkitPage(f"http://{HOME}/before", html="<title>before</title>",
                           text="wombat words", title="before"))  # its own store, opened
        crawler = Holder(roots=[web.url(HOME, "/")], limits=Limits(pages=20, seconds=60),
                         settings=fast, index=action)
        loops: list = []
        crawler.on("page-visited", lambda page: loops.append(running_loop()))
        assert crawler.run().callback_errors == 0
        assert loops[0].store.database_url() == action.db_url
        action(ToolkitPage(f"http://{HOME}/after", html="<title>after</title>",
                           text="quokka words", title="after"))  # its own store again
    got = rows(data)
    assert {got[path][:2] for path in ("/before", "/by-hand", "/after", "/a")} == {
        ("fetched", None)}
    assert found(data, "wombat") == [f"http://{HOME}/before"]
    assert found(data, "okapi") == [f"http://{HOME}/by-hand"]
    assert found(data, "quokka") == [f"http://{HOME}/after"]
    assert action.added == 8  # 5 crawled (a copy left out), 3 by hand
    engine = connect(f"sqlite:///{data / 'webcrawler.db'}")
    try:
        with engine.connect() as conn:
            runs = conn.execute(select(crawls.c.documents).order_by(crawls.c.id)).scalars().all()
    finally:
        engine.dispose()
    assert runs[0] == runs[-1] == 1  # each by-hand run counts its own page, not the crawl's


def test_an_action_the_crawl_cannot_find_commits_with_the_crawl_s_loop(web, fast, tmp_path):
    """An AddToIndex only a listener's closure holds (neither attached, a listener, nor kept
    on the crawler) keeps its pages in a store of its own, committed when the crawl's loop
    commits: when the run ends its rows are in the database before the action is closed, and
    sent to its index writer (searchable once the writer commits: at the latest at close)."""
    data = tmp_path / "data"
    action = AddToIndex(data)
    crawler = Crawler(roots=[web.url(HOME, "/")], limits=Limits(pages=20, seconds=60),
                      settings=fast)
    crawler.on("page-visited", lambda page: action(page))
    summary = crawler.run()
    assert summary.callback_errors == 0 and summary.pages == 6
    got = rows(data)  # another connection: only what was committed
    assert {path for path, row in got.items() if row[0] == "fetched"} == {
        "/", "/a", "/b", "/a2", "/other", "/keep-copy"}
    assert scalar(data, select(crawls.c.mode)) == "toolkit"  # the action's own run
    assert action.close().startswith(f"5 pages added to the index in {data}")  # a copy out
    assert found(data, "walrus") == [web.url(HOME, "/a")]
    assert found(data, "dugong") == [web.url(HOME, "/a2")]


def test_two_data_directories_in_one_crawl_are_a_clear_error(web, fast, tmp_path):
    crawler = Crawler(roots=[web.url(HOME, "/")], settings=fast)
    first, second = AddToIndex(tmp_path / "one").attach(crawler), AddToIndex(tmp_path / "two")
    second.attach(crawler)
    with pytest.raises(ToolkitError) as error:
        crawler.run()
    assert "\n" not in str(error.value)
    assert str(tmp_path / "one") in str(error.value) and str(tmp_path / "two") in str(error.value)
    assert not (tmp_path / "one").exists() and not (tmp_path / "two").exists()  # nothing opened
    assert first.close() == f"no pages added to the index in {tmp_path / 'one'}"


def test_the_sink_is_closed_once_even_when_the_crawl_never_starts(fast, tmp_path):
    """A root that is no crawlable URL stops the run before its loop runs: the data
    directory the action offered is released all the same, its index writer stopped."""
    data = tmp_path / "data"
    crawler = Crawler(roots=["http://127.0.16.21:99999/"], settings=fast)
    action = AddToIndex(data).attach(crawler)
    with pytest.raises(ToolkitError):
        crawler.run()
    assert indexers() == []
    assert action.close() == f"0 pages added to the index in {data}"
    offered = AddToIndex(data).offer_store()  # the database is free: a writer may open it
    offered.close()
    offered.close()  # once: the second does nothing
    assert offered.sink.closed


def test_a_closed_action_offers_no_store(web, fast, tmp_path):
    """Attached, the action closes when its crawl ends: a second run of that crawler takes
    the pages to the closed action (each one a callback error, as before) and leaves the
    data directory alone."""
    data = tmp_path / "data"
    crawler = Crawler(roots=[web.url(HOME, "/")], limits=Limits(pages=20, seconds=60),
                      settings=fast)
    AddToIndex(data).attach(crawler)
    assert crawler.run().callback_errors == 0
    again = crawler.run()
    assert again.pages == 6 and again.callback_errors == 6
    assert {row[3] for row in rows(data).values() if row[0] == "fetched"} == {1}
