"""A definition's patterns: bounded in time (a catastrophic regex cannot hold a crawl or its
Stop), case-insensitive unless asked, and an empty result says so."""

from __future__ import annotations

from collections.abc import Callable

from tests.support.waiting import wait_until
from tests.workbench.conftest import Workbench
from tests.workbench.test_api import events_of, manual
from webcrawler.demoweb.server import LoopbackWeb, Page, Site

CATASTROPHIC = {"regexp": "(a+)+$"}


def a_pages(count: int) -> dict[str, Page]:
    """Pages of 5,000 `a`s and a `b`: `(a+)+$` backtracks on them for longer than anyone waits."""
    links = "".join(f'<a href="/p{i}">p{i}</a>' for i in range(count))
    body = "a" * 5000 + "b"
    return {"/": Page(f"<html><title>start</title><body>{body} {links}</body></html>"),
            **{f"/p{i}": Page(f"<html><title>p{i}</title><body>{body}</body></html>")
               for i in range(count)}}


def test_a_catastrophic_regex_cannot_hold_the_crawl(workbench: Workbench) -> None:
    with LoopbackWeb([Site("127.0.8.3", a_pages(2))]) as web:
        definition = {"roots": [web.url("127.0.8.3", "/")], "limits": {"seconds": 60},
                      "process": {"content": CATASTROPHIC},
                      "action": {"type": "extract", "pattern": CATASTROPHIC}}
        _, started = workbench.call("POST", "/api/crawls", definition)
        view = workbench.wait(started["id"])
    assert view["state"] == "done" and view["summary"]["pages"] == 3
    finished = events_of(workbench, started["events_url"])[-1]
    assert finished["errors"][0].startswith("6 pattern matches took longer than 0.25 s")
    assert finished["processed"] == 0 and view["processed"] == 0  # an empty result, and it says so


def test_stop_ends_a_crawl_stuck_in_a_catastrophic_regex_cleanly(
        make_workbench: Callable[..., Workbench]) -> None:
    bench = make_workbench("127.0.0.1", "--max-crawls", "1")
    with LoopbackWeb([Site("127.0.8.4", a_pages(60))]) as web:
        definition = {"roots": [web.url("127.0.8.4", "/")], "limits": {"seconds": 120},
                      "process": {"content": CATASTROPHIC}}
        _, started = bench.call("POST", "/api/crawls", definition)
        wait_until(lambda: bench.call("GET", started["status_url"])[1]["counters"].get("visited", 0) >= 2,
                   60, "the crawl is stuck in its first page's pattern")
        bench.call("DELETE", started["status_url"])
        view = bench.wait(started["id"])
    # the runner itself stopped (its summary is there), not the kill STOP_GRACE seconds later
    assert view["state"] == "stopped" and view["summary"]["stop_reason"] == "aborted"
    assert bench.descendants() == []


def test_patterns_ignore_case_unless_asked(workbench: Workbench, docs_web: LoopbackWeb) -> None:
    visited = {}
    for name, title in (("any case", "*manual*"), ("case", {"wildcard": "*manual*", "case": True}),
                        ("regexp", {"regexp": "CONTENTS$"})):
        _, started = workbench.call("POST", "/api/crawls", manual(docs_web, process={"title": title}))
        view = workbench.wait(started["id"])
        events = events_of(workbench, started["events_url"])
        visited[name] = ({e["title"] for e in events if e["t"] == "visited" and e["matched"]},
                         view["processed"])
    assert visited == {"any case": ({"Manual contents"}, 1), "case": (set(), 0),
                       "regexp": ({"Manual contents"}, 1)}
