"""SSRF: real-time search, from the command line and from the web, never leaves the crawl's scope.

A "public" web on 127.0.14.1 links (and redirects) to an "internal" service on
127.0.14.2 spelled every way an IP literal can be spelled, with anchor text that
matches the query, so a real-time search would love to follow. The crawl's
include rule names the public web only. The internal server counts requests:
there must be none, and nothing of it may become searchable.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from tests.support.waiting import wait_until
from webcrawler.demoweb.server import LoopbackWeb, Page, Site, html
from webcrawler.index import open_searcher
from webcrawler.query_server import ServerThread, create_app, realtime

PUBLIC, INTERNAL, OTHER = "127.0.14.1", "127.0.14.2", "127.0.14.3"
QUERY = "zebra secrets"


def spellings(port: int) -> list[str]:
    """127.0.14.2:port, written in every way the WHATWG URL parser reads as that address."""
    hosts = ["2130710018", "0177.0.016.02", "0x7f.0.0xe.0x2", "0x7f000e02", "127.3586",
             "127.0.3586", "127.00.016.002", "127.0.14.2.", "[::ffff:127.0.14.2]",
             "[::ffff:7f00:e02]", "public@127.0.14.2", f"127.0.14.1:{port}@127.0.14.2",
             "%31%32%37.0.14.2", "\uff11\uff12\uff17.0.14.2"]
    return [f"http://{host}:{port}/secret" for host in hosts]


def public_routes(internal_port: int) -> dict[str, Page]:
    links = [(url, f"zebra secrets {i}") for i, url in enumerate(spellings(internal_port))]
    links += [("/go", "zebra secrets redirected"), ("/a.html", "zebra notes")]
    redirect = Page(b"", status=302, headers=(("Location", spellings(internal_port)[0]),))
    return {"/": html("Zebra home", "zebra secrets are kept elsewhere", links),
            "/a.html": html("Zebra notes", "zebra stripes"), "/go": redirect}


@pytest.fixture(scope="module")
def web() -> Iterator[LoopbackWeb]:
    internal = Site(INTERNAL, {"/secret": html("Internal zebra secrets", "zebra secrets internal"),
                               "/robots.txt": Page("", content_type="text/plain")})
    routes: dict[str, Page] = {}
    with LoopbackWeb([Site(PUBLIC, routes, robots_txt=""), internal,
                      Site(OTHER, {"/": html("Other zebra secrets", "zebra")})]) as served:
        routes.update(public_routes(int(served.name(INTERNAL).rsplit(":", 1)[1])))
        yield served


def webcrawler(*args: str, timeout: float = 90.0) -> str:
    """Run the command; its stdout, then its log (stderr)."""
    done = subprocess.run([sys.executable, "-m", "webcrawler.cli", *args], capture_output=True,
                          text=True, timeout=timeout, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout + done.stderr


@pytest.fixture(scope="module")
def crawled(web: LoopbackWeb, tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = tmp_path_factory.mktemp("ssrf") / "data"
    public = web.origin(PUBLIC).replace(".", r"\.")
    summary = webcrawler("index", "--seed", web.url(PUBLIC), "--include", f"^{public}/",
                         "--delay", "0", "--agents", "2", "--no-progress", "--data-dir", str(data))
    assert "stored with the crawl" not in summary and "include" in summary
    assert internal_hits(web) == []  # the crawl itself stays in its scope
    return data


def internal_hits(web: LoopbackWeb) -> list[str]:
    web.log.settle()
    return [h.path for h in web.log.snapshot() if h.server in (web.name(INTERNAL), web.name(OTHER))]


def assert_nothing_internal_searchable(data: Path) -> None:
    with open_searcher(data / "index") as searcher:
        urls = [hit.url for hit in searcher.search("zebra", per_page=100).hits]
    assert urls and all(url.startswith("http://127.0.14.1:") for url in urls), urls


def test_webcrawler_search_keeps_the_stored_scope(web: LoopbackWeb, crawled: Path) -> None:
    starts = [f"--from={url}" for url in spellings(int(web.name(INTERNAL).rsplit(":", 1)[1]))]
    out = webcrawler("-v", "search", QUERY, *starts, "--from", web.url(OTHER), "--json", "--delay", "0",
                     "--agents", "2", "--seconds", "10", "--want", "50", "--data-dir", str(crawled))
    assert "scope (stored with the crawl)" in out  # the log says which scope is in force
    assert internal_hits(web) == []
    assert_nothing_internal_searchable(crawled)


def test_realtime_jobs_from_the_web_stay_in_scope(web: LoopbackWeb, crawled: Path) -> None:
    app = create_app(crawled, realtime_delay=0.0, realtime_agents=2, realtime_seconds=10.0,
                     allow_from_url=True)
    starts = [None, web.url(OTHER), *spellings(int(web.name(INTERNAL).rsplit(":", 1)[1]))[:4]]
    try:
        with ServerThread(app, host="127.0.14.9") as server, requests.Session() as http:
            origin = server.url.rstrip("/")
            for start in starts:
                body = {"q": QUERY, "want": 50} | ({"from": start} if start else {})
                answer = http.post(origin + "/api/realtime", json=body, timeout=10,
                                   headers={"Origin": origin})
                assert answer.status_code == 202, answer.text
                wait_done(http, origin + answer.json()["status_url"])
    finally:
        app.extensions["webcrawler.realtime"].close()
        app.extensions["webcrawler.sources"].close()
    assert internal_hits(web) == []
    assert_nothing_internal_searchable(crawled)


def wait_done(http: requests.Session, url: str, timeout: float = 60.0) -> dict:
    def finished() -> dict | None:
        view = http.get(url, timeout=10).json()
        return view if view["state"] != "running" else None

    view = wait_until(finished, timeout, "the real-time job finishing", interval=0.2)
    assert view["state"] == "done", view
    return view


def test_deny_private_guards_a_crawl_without_include_rules(web: LoopbackWeb,
                                                          tmp_path: Path) -> None:
    """No include rule at all: --deny-private still keeps to the seeds' host."""
    data = str(tmp_path / "open")
    out = webcrawler("index", "--seed", web.url(PUBLIC), "--deny-private", "--delay", "0",
                     "--agents", "2", "--no-progress", "--data-dir", data)
    assert "private-address" in out
    assert internal_hits(web) == []
    out = webcrawler("search", QUERY, "--deny-private", "--json", "--delay", "0",
                     "--seconds", "5", "--data-dir", data)
    assert internal_hits(web) == []


def test_a_web_job_refuses_private_addresses_and_never_reads_its_query_as_options(
        web: LoopbackWeb, crawled: Path) -> None:
    config = {key.removeprefix("realtime_"): value for key, value in realtime.OPTIONS.items()}
    jobs = realtime.Jobs(crawled, None, {**config, "delay": 0.0, "seconds": 5.0})
    query = f"-foo zebra --from={spellings(int(web.name(INTERNAL).rsplit(':', 1)[1]))[0]}"
    command = jobs._command(realtime.Job("x", query, 5.0, 50), None)
    assert "--deny-private" in command and command[-2:] == ["--", query]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads(done.stdout.splitlines()[-1])
    assert summary["type"] == "summary" and summary["query"] == query
    assert internal_hits(web) == []
    allowed = realtime.Jobs(crawled, None, {**config, "allow_private_fetch": True})
    assert "--allow-private" in allowed._command(realtime.Job("y", "zebra", 5.0, 5), None)
