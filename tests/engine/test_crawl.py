"""Real crawls of small loopback webs: order, politeness, robots, limits, failures."""

from __future__ import annotations

import pytest

from webcrawler.config.agent_config import agent_config
from webcrawler.database.states import State
from webcrawler.demoweb.server import LoopbackWeb, Page, Site, html

from .conftest import crawl, document_states, site_pages


def non_robots(hits):
    return [h for h in hits if h.path != "/robots.txt"]


def test_server_first_order_and_robots_first(small_web, settings):
    crawl(settings, [small_web.url("127.0.4.1", "/")])
    hits = small_web.log.snapshot()
    servers = {h.server for h in hits}
    assert len(servers) == 5
    for name in servers:
        mine = small_web.log.for_server(name)
        assert mine[0].path == "/robots.txt", f"{name} was not asked for robots.txt first"
        assert sum(1 for h in mine if h.path == "/robots.txt") == 1
    # Every server's first document is answered before any server's second document starts.
    docs = non_robots(hits)
    first_finished = max(next(h for h in docs if h.server == s).finished for s in servers)
    seconds = [h for s in servers for h in [d for d in docs if d.server == s][1:]]
    assert seconds, "the crawl should fetch second documents"
    assert first_finished <= min(h.started for h in seconds)
    # Every page once, none twice (each site's /p5 links to a missing /p6).
    paths = [(h.server, h.path) for h in docs]
    assert len(paths) == len(set(paths)) == 1 + 4 * 7
    states = document_states(settings)
    assert states[small_web.url("127.0.4.11", "/p6")] == (State.FAILED, "http-error")


@pytest.mark.wallclock
def test_politeness_one_request_per_server_and_delay(settings):
    sites = [Site(f"127.0.4.{20 + i}", site_pages(f"s{i}", 4)) for i in range(2)]
    with LoopbackWeb(sites) as web:
        crawl(settings, [web.url(f"127.0.4.{20 + i}", "/") for i in range(2)], delay=0.3)
        for name in web:
            hits = web.log.for_server(name)
            assert len(hits) == 1 + 6  # robots.txt, /, /p1-/p4 and the missing /p5
            for before, after in zip(hits, hits[1:], strict=False):
                assert after.started >= before.finished, "two requests in flight on one server"
                # from the request's start: the server stamps `finished` when the crawl in
                # this process lets it have the GIL, which can be 10 ms after the answer left
                assert after.started - before.started >= 0.3, "delay not respected"


ROBOTS = "User-agent: *\nDisallow: /private\n\nUser-agent: WebCrawler\nDisallow: /p3\n"


def test_robots_rules_exclude_and_are_recorded(settings):
    pages = site_pages("r", 4, extra_links=[("/private/x", "secret")])
    pages["/private/x"] = html("secret")
    with LoopbackWeb([Site("127.0.4.30", pages, robots_txt=ROBOTS)]) as web:
        crawl(settings, [web.url("127.0.4.30", "/")])
        fetched = set(web.log.paths())
        states = document_states(settings)
    assert "/p3" not in fetched  # our group names us: only its rules apply
    assert "/private/x" in fetched  # ... so the * group's rules do not
    assert states[web.url("127.0.4.30", "/p3")] == (State.EXCLUDED, "robots")
    assert states[web.url("127.0.4.30", "/p4")][0] == State.FETCHED


def test_robots_status_rules(settings):
    sites = [
        Site("127.0.4.31", site_pages("gone", 2)),  # robots.txt 404: allow all
        Site("127.0.4.32", {**site_pages("down", 2),
                             "/robots.txt": Page("busy", status=503, content_type="text/plain")}),
    ]
    with LoopbackWeb(sites) as web:
        crawl(settings, [web.url("127.0.4.31", "/"), web.url("127.0.4.32", "/")], retries=1,
              retry_backoff=0.1)
        assert len(web.log.for_server(web.name("127.0.4.31"))) == 1 + 4
        # 5xx: disallow all for now: only robots.txt is asked (once more soon: a 503 may pass);
        # when nothing else is left, the documents are this crawl's failures with its reason
        # (a resumed crawl asks again)
        assert web.log.paths(web.name("127.0.4.32")) == ["/robots.txt"] * 2
        states = document_states(settings)
    assert states[web.url("127.0.4.32", "/")] == (State.FAILED, "http-error")


def test_unindexable_types_are_not_requested_or_are_ignored(settings):
    png = b"\x89PNG\r\n\x1a\n" + b"\0" * 200
    pages = {
        "/": html("home", "links", [("/photo.png", "a photo"), ("/fake.html", "binary"),
                                    ("/page", "text")]),
        "/photo.png": Page(png, content_type="image/png"),
        "/fake.html": Page(png, content_type="text/html"),  # binary served as HTML
        "/page": html("a page", "plain words"),
    }
    with LoopbackWeb([Site("127.0.4.33", pages)]) as web:
        crawl(settings, [web.url("127.0.4.33", "/")])
        fetched = web.log.paths()
        states = document_states(settings)
    assert "/photo.png" not in fetched
    assert "/fake.html" in fetched
    assert states[web.url("127.0.4.33", "/fake.html")] == (State.EXCLUDED, "unindexable-type")
    assert states[web.url("127.0.4.33", "/page")][0] == State.FETCHED


def test_body_cap_records_too_large(settings):
    pages = {"/": html("home", "", [("/big", "big")]),
             "/big": Page("<html><body>" + "x" * 300_000 + "</body></html>")}
    with LoopbackWeb([Site("127.0.4.34", pages)]) as web:
        crawl(settings, [web.url("127.0.4.34", "/")], max_bytes=100_000)
        states = document_states(settings)
    assert states[web.url("127.0.4.34", "/big")] == (State.FAILED, "too-large")


@pytest.mark.wallclock
def test_hung_agent_is_replaced_and_the_crawl_goes_on(settings):
    pages = site_pages("slow", 3)
    pages["/p1"] = Page(iter([b"<html><title>slow</title>"] + [b" "] * 100), chunk_delay=0.5)
    with LoopbackWeb([Site("127.0.4.35", pages)]) as web:
        crawl(settings, [web.url("127.0.4.35", "/")], agent_deadline=1.5, total_timeout=30,
              read_timeout=30, retries=0)  # a hung page's retries: tests/engine/test_hung_retry.py
        states = document_states(settings)
    assert states[web.url("127.0.4.35", "/p1")] == (State.FAILED, "agent-hung")
    assert states[web.url("127.0.4.35", "/p3")][0] == State.FETCHED


@pytest.mark.wallclock
def test_max_docs_and_hours_stop_the_crawl(settings):
    def calendar(path: str):  # a calendar that never ends
        if not path.strip("/").isdigit() and path != "/":
            return None  # 404: a calendar has only days
        n = int(path.strip("/") or 0)
        return html(f"day {n}", "another day", [(f"/{n + 1}", "next day")])

    with LoopbackWeb([Site("127.0.4.36", calendar, robots_txt="")]) as web:
        summary = crawl(settings, [web.url("127.0.4.36", "/")], max_docs=5)
        assert "document limit" in summary
        assert len(non_robots(web.log.snapshot())) <= 5 + settings.agents
        summary = crawl(settings, [], hours=1.5 / 3600, delay=0.2)
        assert "time limit" in summary


def test_agent_killed_mid_fetch_is_replaced(settings):
    import os
    import signal
    import threading

    from webcrawler.database.schema import connect
    from webcrawler.engine.loop.index_hooks import index_loop
    from webcrawler.engine.loop.pool import AgentPool
    from webcrawler.engine.store.sql import CrawlStore

    asked = threading.Event()
    pages = site_pages("victim", 3)

    def routes(path: str):
        if path == "/p2":
            asked.set()
            return Page("<title>slow</title>", delay=3.0)
        return pages.get(path)

    pools: list[AgentPool] = []

    def pool_factory():
        s = settings
        pools.append(AgentPool(s.agents, agent_config(s), s.robots_token, deadline=s.deadline()))
        return pools[0]

    def killer():
        if asked.wait(20):
            for agent in pools[0].agents:
                if agent.job is not None and agent.job.url.endswith("/p2"):
                    os.kill(agent.process.pid, signal.SIGKILL)

    with LoopbackWeb([Site("127.0.4.37", routes)]) as web:
        engine = connect(settings.database_url)
        store = CrawlStore(engine)
        crawler = index_loop(settings, store, pool_factory=pool_factory)
        crawler.add_seeds([web.url("127.0.4.37", "/")])
        thread = threading.Thread(target=killer)
        thread.start()
        stats = crawler.run()
        thread.join()
        store.close()
        engine.dispose()
        states = document_states(settings)
    assert stats.failures["agent-died"] == 1
    assert states[web.url("127.0.4.37", "/p2")] == (State.FAILED, "agent-died")
    assert states[web.url("127.0.4.37", "/p3")][0] == State.FETCHED


@pytest.mark.wallclock
def test_crawl_delay_larger_than_ours_is_honoured(settings):
    robots = "User-agent: *\nCrawl-delay: 0.4\n"
    with LoopbackWeb([Site("127.0.4.41", site_pages("cd", 3), robots_txt=robots)]) as web:
        crawl(settings, [web.url("127.0.4.41", "/")], delay=0.0)
        hits = web.log.snapshot()
    # start to start: a late `finished` stamp (the server waits for this process's GIL) made
    # an answer-to-request gap read 0.389 s
    gaps = [b.started - a.started for a, b in zip(hits, hits[1:], strict=False)]
    assert len(hits) == 2 + 5 and min(gaps) >= 0.4  # robots.txt, /sitemap.xml, 5 pages


def test_scope_limits_depth_per_server_cap_and_patterns(settings):
    pages = site_pages("scope", 8, extra_links=[("/skip/me", "skip"), ("/" + "x" * 300, "long")])
    with LoopbackWeb([Site("127.0.4.42", pages)]) as web:
        crawl(settings, [web.url("127.0.4.42", "/")], exclude=("/skip/",), max_url_length=200,
              max_depth=1)
        fetched = set(web.log.paths())
    assert "/skip/me" not in fetched and not any(len(p) > 200 for p in fetched)
    assert {"/", "/p1", "/p8"} <= fetched and "/p9" not in fetched  # /p9 is two links deep

    with LoopbackWeb([Site("127.0.4.43", site_pages("cap", 8))]) as web:
        crawl(settings, [web.url("127.0.4.43", "/")], data_dir=settings.data_dir / "cap",
              max_docs_per_server=3)
        assert len([p for p in web.log.paths() if p != "/robots.txt"]) == 3


def test_agents_are_recycled_and_memory_hogs_replaced(settings):
    from webcrawler.database.schema import connect
    from webcrawler.engine.loop.index_hooks import index_loop
    from webcrawler.engine.loop.pool import AgentPool
    from webcrawler.engine.store.sql import CrawlStore

    pools: list[AgentPool] = []

    def run(data_dir, **pool_options):
        engine = connect(f"sqlite:///{data_dir}/db.sqlite")
        store = CrawlStore(engine)
        s = settings

        def factory():
            pools.append(AgentPool(2, agent_config(s), s.robots_token, deadline=s.deadline(),
                                   **pool_options))
            return pools[-1]

        crawler = index_loop(settings, store, pool_factory=factory)
        crawler.add_seeds([web.url("127.0.4.44", "/")])
        stats = crawler.run()
        store.close()
        engine.dispose()
        return stats

    pages = site_pages("recycle", 6)
    pages["/p6"] = Page("<title>slow</title>", delay=1.5)
    with LoopbackWeb([Site("127.0.4.44", pages)]) as web:
        recycled = run(settings.data_dir, max_urls=2)
        assert recycled.retrieved == 7 and pools[-1].replaced.get("recycled", 0) >= 3
        hog = run(settings.data_dir / "hog", memory_mb=1)  # every agent is "too big"
    assert hog.failures["agent-memory"] >= 1
    assert pools[-1].replaced.get("memory", 0) >= 1


def test_agents_start_only_as_the_work_needs_them(settings):
    """Issue 36: one agent starts with the pool, another only when every started one is busy
    (each agent started costs the crawl its fork, its start and its exit)."""
    import time

    from webcrawler.engine.loop.pool import AgentPool
    from webcrawler.protocol.messages import Document, Retrieve

    pages = {"/a": Page("<title>a</title>", delay=1.0), "/b": Page("<title>b</title>", delay=1.0)}
    with LoopbackWeb([Site("127.0.4.46", pages, robots_txt="")]) as web:
        pool = AgentPool(3, agent_config(settings), settings.robots_token, deadline=settings.deadline())
        answers = []
        try:
            assert (len(pool.agents), pool.free(), pool.busy()) == (1, 3, 0)
            pool.submit(Retrieve(1, web.url("127.0.4.46", "/a"), "document"))
            assert (len(pool.agents), pool.free(), pool.busy()) == (1, 2, 1)
            pool.submit(Retrieve(2, web.url("127.0.4.46", "/b"), "document"))
            assert (len(pool.agents), pool.free(), pool.busy()) == (2, 1, 2)
            end = time.monotonic() + 30
            while len(answers) < 2 and time.monotonic() < end:
                answers += pool.poll(1.0)
            assert (len(pool.agents), pool.free(), pool.busy()) == (2, 3, 0)
        finally:
            pool.shutdown()
    assert sorted(job.job_id for job, _ in answers) == [1, 2]
    assert all(isinstance(answer, Document) for _, answer in answers)
