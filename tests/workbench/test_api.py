"""The workbench's JSON API on a real `webcrawler workbench` process, crawling a loopback manual."""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Callable

import psutil

from tests.workbench.conftest import CHAPTERS, Workbench, docs_pages
from webcrawler.demoweb.server import LoopbackWeb, Site
from webcrawler.settings import Settings
from webcrawler.workbench.crawls import Crawls


def manual(web: LoopbackWeb, **more: object) -> dict:
    return {"name": "The manual", "roots": [web.url("127.0.8.1", "/docs/")], "scope": "subtree",
            "limits": {"seconds": 30}, **more}


def events_of(bench: Workbench, path: str) -> list[dict]:
    """The whole event stream of a crawl (it ends with the crawl): the data lines, decoded."""
    with urllib.request.urlopen(bench.url.rstrip("/") + path, timeout=60) as stream:
        assert stream.headers["Content-Type"].startswith("text/event-stream")
        text = stream.read().decode()
    messages = text.split("\n\n")
    assert messages[-2].startswith("event: end")
    return [json.loads(line[6:]) for block in messages[:-2] for line in block.splitlines()
            if line.startswith("data: ")]


def test_a_crawl_runs_streams_its_events_and_its_result_is_the_manual_in_order(
        workbench: Workbench, docs_web: LoopbackWeb) -> None:
    status, started = workbench.call("POST", "/api/crawls", manual(docs_web))
    assert status == 202, started
    view = workbench.wait(started["id"])
    assert view["state"] == "done" and view["summary"]["stop_reason"] == "queue-empty"
    assert view["summary"]["pages"] == CHAPTERS + 1 and view["result"] == "document.html"
    assert workbench.descendants() == []  # the crawl's processes ended with it
    events = events_of(workbench, started["events_url"])
    visited = [e["url"] for e in events if e["t"] == "visited"]
    assert visited == [docs_web.url("127.0.8.1", p) for p in
                       ["/docs/", *(f"/docs/ch{i}.html" for i in range(1, CHAPTERS + 1))]]
    assert events[-1]["t"] == "finished" and events[-1]["result"] == "document.html"
    assert any(e["t"] == "edge" for e in events)  # chapter i links to i+1, already queued
    # ... resumed from an event id, the stream starts after it
    assert events_of(workbench, started["events_url"] + "?after=5") == events[5:]
    status, document = workbench.call("GET", started["result_url"])
    text = document.decode()
    positions = [text.index(f"marker-{i}") for i in range(1, CHAPTERS + 1)]
    assert status == 200 and positions == sorted(positions)
    assert "Blog" not in text  # outside the subtree
    status, listing = workbench.call("GET", "/api/crawls")
    mine = [c for c in listing["crawls"] if c["id"] == started["id"]]
    assert [c["definition"]["name"] for c in mine] == ["The manual"]
    # what a restarted workbench lists: the finished crawl, its definition and its result
    kept = [c for c in Crawls(workbench.data_dir / "workbench", Settings(), None, 1).all()
            if c.id == started["id"]]
    assert [(c.state, c.view()["definition"], c.result_path()) for c in kept] == \
        [("done", view["definition"],
          workbench.data_dir / "workbench" / started["id"] / "document.html")]


def test_follow_rules_and_the_page_predicate_narrow_the_crawl(
        workbench: Workbench, docs_web: LoopbackWeb) -> None:
    narrowed = manual(docs_web, follow={"url": {"regexp": r"ch[1-3]\.html$"}},
                      process={"title": "Chapter*"})
    _, started = workbench.call("POST", "/api/crawls", narrowed)
    view = workbench.wait(started["id"])
    assert view["summary"]["pages"] == 4  # contents + chapters 1-3
    events = events_of(workbench, started["events_url"])
    matched = {e["title"]: e["matched"] for e in events if e["t"] == "visited"}
    assert matched == {"Manual contents": False, "Chapter 1": True, "Chapter 2": True,
                       "Chapter 3": True}
    assert {e["why"] for e in events if e["t"] == "skipped"} == {"should-visit"}
    text = workbench.call("GET", started["result_url"])[1].decode()
    assert "marker-3" in text and "marker-4" not in text and "Manual contents" not in text


def test_bad_requests_get_4xx_with_a_message_never_a_5xx(workbench: Workbench) -> None:
    before = workbench.call("GET", "/api/crawls")[1]
    assert workbench.call("POST", "/api/crawls", {"roots": ["javascript:alert(1)"]}) == \
        (400, {"error": "roots[0] is not an http(s) URL: 'javascript:alert(1)'"})
    assert workbench.call("POST", "/api/crawls", {"roots": ["http://127.0.8.1/"],
                                                  "limits": {"pages": 5000}}) == \
        (400, {"error": "limits.pages must be at most 1000 on this workbench"})
    assert workbench.call("POST", "/api/crawls", [1, 2])[0] == 400
    assert workbench.call("GET", "/api/crawls/AAAAAAAAAAAAAAAA") == (404, {"error": "No such crawl."})
    assert workbench.call("GET", "/api/crawls/x/result")[0] == 404
    assert workbench.call("DELETE", "/api/crawls/AAAAAAAAAAAAAAAA")[0] == 404
    assert workbench.call("GET", "/api/crawls", headers={"Host": "evil.example"})[0] == 421
    other_site = {"Origin": "http://evil.example"}
    assert workbench.call("POST", "/api/crawls", {"roots": ["http://127.0.8.1/"]}, other_site)[0] == 403
    request = urllib.request.Request(workbench.url + "api/crawls", data=b"roots=x", method="POST",
                                     headers={"Content-Type": "application/x-www-form-urlencoded"})
    try:
        urllib.request.urlopen(request, timeout=10)
    except urllib.error.HTTPError as error:
        assert error.code == 415
        error.close()
    assert workbench.call("GET", "/api/crawls")[1] == before  # nothing was started


def test_stop_ends_every_process_of_the_crawl_and_keeps_what_it_found(
        make_workbench: Callable[..., Workbench]) -> None:
    bench = make_workbench("127.0.0.1", "--max-crawls", "1")
    with LoopbackWeb([Site("127.0.8.2", docs_pages(delay=0.4))]) as slow:
        definition = {"roots": [slow.url("127.0.8.2", "/docs/")], "scope": "subtree",
                      "limits": {"seconds": 60}}
        _, started = bench.call("POST", "/api/crawls", definition)
        end = time.monotonic() + 30
        while bench.call("GET", started["status_url"])[1]["counters"].get("visited", 0) < 2:
            assert time.monotonic() < end, "the crawl did not get going"
            time.sleep(0.1)
        assert bench.call("POST", "/api/crawls", definition) == \
            (429, {"error": "Too many crawls are running: wait for one to end, or stop one."})
        crawl_processes = bench.descendants()
        assert len(crawl_processes) >= 3  # the runner and its agents
        status, view = bench.call("DELETE", started["status_url"])
        assert status == 200 and view["state"] in ("stopping", "stopped")
        view = bench.wait(started["id"])
    assert view["state"] == "stopped" and view["summary"]["stop_reason"] == "aborted"
    assert 2 <= view["summary"]["pages"] < CHAPTERS + 1
    assert bench.call("GET", started["result_url"])[0] == 200  # what it had, concatenated
    assert not [p for p in crawl_processes if psutil.pid_exists(p)
                and psutil.Process(p).status() != psutil.STATUS_ZOMBIE]
    assert bench.descendants() == []
