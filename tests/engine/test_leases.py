"""Politeness across processes: `webcrawler index` and a real-time search on one data directory
never have two requests in flight to one server, and leave the delay between them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from webcrawler.demoweb.server import LoopbackWeb, Page, Site, html
from webcrawler.engine.scheduling.leases import RETRY, ServerLeases

ADDRESS = "127.0.13.1"
DELAY = 0.25
PAGES = 24


def test_a_lease_is_one_holder_at_a_time_and_remembers_the_end(tmp_path: Path) -> None:
    one, other = ServerLeases(tmp_path), ServerLeases(tmp_path)  # two open files: two holders
    assert one.acquire("http://h:1", 0.0) is None
    assert other.acquire("http://h:1", 0.0) == RETRY
    assert other.acquire("http://h:2", 0.0) is None  # another server
    one.release("http://h:1")
    wait = other.acquire("http://h:1", 60.0)
    assert wait is not None and 59.0 < wait <= 60.0  # the end was written; the delay counts
    assert other.acquire("http://h:1", 0.0) is None
    other.release("http://h:1", requested=False)
    other.close()
    one.close()


def routes() -> dict[str, Page]:
    pages = {"/": html("Boats home", "sailing boats harbour",
                       [(f"/p{i}", f"sailing boats {i}") for i in range(PAGES)])}
    for i in range(PAGES):
        pages[f"/p{i}"] = Page(html(f"Sailing boats {i}", "sailing boats yacht").body, delay=0.02)
    return pages


def webcrawler(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "webcrawler.cli", *args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def finish(process: subprocess.Popen) -> None:
    _, err = process.communicate(timeout=120)
    assert process.returncode == 0, err[-2000:]


@pytest.mark.wallclock
def test_index_and_realtime_search_share_one_politeness(tmp_path: Path) -> None:
    data = str(tmp_path / "data")
    with LoopbackWeb([Site(ADDRESS, routes(), robots_txt="User-agent: *\nAllow: /\n")]) as web:
        home = web.url(ADDRESS, "/")
        finish(webcrawler("index", "--seed", home, "--max-docs", "2", "--delay", "0",
                          "--no-progress", "--data-dir", data))
        first = len(web.log.snapshot())
        crawl = webcrawler("index", "--delay", str(DELAY), "--agents", "3", "--no-progress",
                           "--data-dir", data)
        search = webcrawler("search", "sailing boats", "--from", home, "--delay", str(DELAY),
                            "--want", "100", "--max-fetches", "8", "--seconds", "20",
                            "--agents", "3", "--data-dir", data)
        finish(search)
        finish(crawl)
        web.log.settle()
        hits = sorted(web.log.snapshot()[first:], key=lambda h: h.started)
    assert len(hits) >= PAGES
    for before, after in zip(hits, hits[1:], strict=False):
        # start to start: a server thread may stamp `finished` late, when it gets the GIL
        assert after.started >= before.started + DELAY, (before, after)
