"""The workbench's memory, disk and processes stay bounded, whatever sites and crashes do.

- events: a crawl keeps at most --keep-events (in its folder, none in memory), the rest counted;
- crawl folders: only the newest --keep-crawls finished ones stay;
- a full disk: starting a crawl answers 507 and leaves no folder; state files are whole;
- kill -9 of the workbench: its crawl stops by itself, and the next workbench lists it
  as interrupted.
"""

from __future__ import annotations

import errno
import os
import shutil
import signal
from collections.abc import Callable, Iterator
from pathlib import Path

import psutil
import pytest

from tests.support.tmpfs import small_tmpfs
from tests.support.waiting import wait_until
from tests.workbench.conftest import Workbench, docs_pages, start_workbench, stop_workbench
from tests.workbench.test_api import events_of
from webcrawler.demoweb.server import LoopbackWeb, Page, Site
from webcrawler.workbench.crawls import write_atomic

LINKS = 3000


def many_links(path: str) -> Page | None:
    """Every page links to LINKS others: the site, not the workbench, chooses the event count."""
    if not path.startswith("/p/") and path != "/":
        return None
    links = "".join(f'<a href="/p/{path.count("/")}-{i}">{i}</a>' for i in range(LINKS))
    return Page(f"<html><head><title>{path}</title></head><body>{links}</body></html>")


def test_a_crawl_keeps_a_bounded_number_of_events(make_workbench: Callable[..., Workbench]) -> None:
    bench = make_workbench("127.0.0.1", "--keep-events", "500")
    with LoopbackWeb([Site("127.0.8.1", many_links)]) as web:
        _, started = bench.call("POST", "/api/crawls", {"roots": [web.url("127.0.8.1", "/")],
                                                        "limits": {"pages": 2, "seconds": 60}})
        view = bench.wait(started["id"])
    assert view["state"] == "done" and view["summary"]["pages"] == 2
    assert view["events"] == 501 and view["events_dropped"] > LINKS  # 500, and the finished one
    events = events_of(bench, started["events_url"])
    assert len(events) == 501 and events[-1]["t"] == "finished"
    assert (bench.data_dir / "workbench" / started["id"] / "events.jsonl").stat().st_size < 200_000


def test_only_the_newest_crawl_folders_are_kept(make_workbench: Callable[..., Workbench]) -> None:
    bench = make_workbench("127.0.0.1", "--keep-crawls", "2")
    ids = []
    with LoopbackWeb([Site("127.0.8.1", docs_pages())]) as web:
        for _ in range(4):
            _, started = bench.call("POST", "/api/crawls", {"roots": [web.url("127.0.8.1", "/blog/")],
                                                            "limits": {"seconds": 20}})
            bench.wait(started["id"])
            ids.append(started["id"])
    folders = {p.name for p in (bench.data_dir / "workbench").iterdir()}
    assert folders == set(ids[1:])  # the oldest was removed when the fourth started
    assert [c["id"] for c in bench.call("GET", "/api/crawls")[1]["crawls"]] == ids[:0:-1]


def test_a_crawl_whose_workbench_died_stops_and_is_listed_as_interrupted(
        make_workbench: Callable[..., Workbench]) -> None:
    bench = make_workbench("127.0.0.1")
    with LoopbackWeb([Site("127.0.8.2", docs_pages(delay=0.5))]) as web:
        _, started = bench.call("POST", "/api/crawls", {"roots": [web.url("127.0.8.2", "/docs/")],
                                                        "limits": {"seconds": 120}})
        wait_until(lambda: bench.call("GET", started["status_url"])[1]["counters"].get("visited", 0) >= 1,
                   30, "the crawl did not get going")
        crawl_processes = [psutil.Process(pid) for pid in bench.descendants()]
        assert len(crawl_processes) >= 2
        os.kill(bench.process.pid, signal.SIGKILL)
        bench.process.wait(10)
        wait_until(lambda: not [p for p in crawl_processes if p.is_running()
                                and p.status() != psutil.STATUS_ZOMBIE],
                   30, "the orphaned crawl kept running")
    again = start_workbench(bench.data_dir)
    try:
        crawls = again.call("GET", "/api/crawls")[1]["crawls"]
        assert [(c["id"], c["state"]) for c in crawls] == [(started["id"], "interrupted")]
        assert again.call("GET", started["status_url"])[1]["error"]
    finally:
        stop_workbench(again)


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 4 MB tmpfs, so a full disk is real."""
    with small_tmpfs(tmp_path / "disk", "4m") as disk:
        yield disk


def fill(disk: Path) -> Path:
    filler = disk / "filler"
    with filler.open("wb", buffering=0) as out:
        try:
            while True:
                out.write(b"\0" * 4096)
                out.flush()
        except OSError as error:
            assert error.errno == errno.ENOSPC
    return filler


def test_a_full_disk_answers_507_and_leaves_no_folder(
        small_disk: Path, docs_web: LoopbackWeb) -> None:
    bench = start_workbench(small_disk / "data")
    try:
        definition = {"roots": [docs_web.url("127.0.8.1", "/blog/")], "limits": {"seconds": 20}}
        _, first = bench.call("POST", "/api/crawls", definition)
        bench.wait(first["id"])
        status_file = small_disk / "data" / "workbench" / first["id"] / "status.json"
        before = status_file.read_bytes()
        filler = fill(small_disk)
        status, answer = bench.call("POST", "/api/crawls", definition)
        assert status == 507 and "disk is full" in answer["error"]
        assert [p.name for p in (small_disk / "data" / "workbench").iterdir()] == [first["id"]]
        with pytest.raises(OSError):
            write_atomic(status_file, "x" * 100_000)
        assert status_file.read_bytes() == before  # whole, never truncated
        assert not [p for p in status_file.parent.iterdir() if p.name.endswith(".part")]
        filler.unlink()
        status, started = bench.call("POST", "/api/crawls", definition)
        assert status == 202 and bench.wait(started["id"])["state"] == "done"
    finally:
        stop_workbench(bench)
        shutil.rmtree(small_disk / "data", ignore_errors=True)


def test_a_crawl_whose_status_was_lost_is_still_listed(docs_web: LoopbackWeb, tmp_path: Path) -> None:
    """What an older workbench left on a full disk: an empty status.json. The crawl stays listed
    (interrupted, with its definition) instead of vanishing."""
    bench = start_workbench(tmp_path / "data")
    try:
        definition = {"name": "lost", "roots": [docs_web.url("127.0.8.1", "/blog/")],
                      "limits": {"seconds": 20}}
        _, started = bench.call("POST", "/api/crawls", definition)
        bench.wait(started["id"])
    finally:
        stop_workbench(bench)
    (tmp_path / "data" / "workbench" / started["id"] / "status.json").write_bytes(b"")
    again = start_workbench(tmp_path / "data")
    try:
        crawls = again.call("GET", "/api/crawls")[1]["crawls"]
        assert [(c["id"], c["state"], c["definition"]["name"], c["error"]) for c in crawls] == \
            [(started["id"], "interrupted", "lost", "its status was lost")]
        assert len(events_of(again, started["events_url"])) > 3  # its events are still there
    finally:
        stop_workbench(again)
