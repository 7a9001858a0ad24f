"""kill -9 during `webcrawler index --incremental` loses no history that was committed, and
the same command resumes; --fetch-rate caps the requests."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from webcrawler.database.schema import check_database, sqlite_url
from webcrawler.demoweb.server import LoopbackWeb, Site, html

ADDRESS = "127.0.11.2"
RATE = 20.0


def pages() -> dict:
    routes = {"/": html("home", "home page", [(f"/p{i}", f"page {i}") for i in range(6)])}
    routes.update({f"/p{i}": html(f"page {i}", f"text of page number {i}") for i in range(6)})
    return routes


def start(data: Path, seed: str, hours: float) -> subprocess.Popen:
    env = {**os.environ, "WEBCRAWLER_COMMIT_SECONDS": "0.3"}
    return subprocess.Popen(
        [sys.executable, "-m", "webcrawler.cli", "index", "--incremental", "--recrawl", "uniform",
         "--hours", str(hours), "--delay", "0", "--agents", "2", "--fetch-rate", str(RATE),
         "--commit-every", "3", "--no-progress", "--data-dir", str(data), "--seed", seed,
         "--min-revisit", "0"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)


def history(data: Path) -> dict[str, tuple[int, int, int]]:
    """path -> (times fetched, times unmodified, times changed), as committed."""
    if not (data / "webcrawler.db").exists():
        return {}
    db = sqlite3.connect(f"file:{data / 'webcrawler.db'}?mode=ro", uri=True)
    try:
        return {path: (f, u, c) for path, f, u, c in db.execute(
            "SELECT path, times_fetched, times_unmodified, times_changed FROM documents")}
    except sqlite3.OperationalError:  # not created yet
        return {}
    finally:
        db.close()


def recrawls(found: dict[str, tuple[int, int, int]]) -> int:
    return sum(max(0, f - 1) for f, _, _ in found.values())


def test_kill_9_loses_no_committed_history_and_the_crawl_resumes(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with LoopbackWeb([Site(ADDRESS, pages())]) as web:
        seed = web.url(ADDRESS, "/")
        process = start(data, seed, 0.02)
        try:
            committed: dict[str, tuple[int, int, int]] = {}
            end = time.monotonic() + 40
            while recrawls(committed) < 15 and time.monotonic() < end:
                time.sleep(0.2)
                committed = history(data)
            assert recrawls(committed) >= 15, "the crawl did not recrawl"
        finally:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
        check_database(sqlite_url(data))
        after = history(data)
        assert set(committed) <= set(after)
        for path, (fetched, unmodified, changed) in committed.items():
            assert after[path][0] >= fetched and after[path][1] >= unmodified
            assert after[path][2] == changed == 0
        began = time.monotonic()
        before_hits = len(web.log.snapshot())
        resumed = start(data, seed, 0.001)
        out, err = resumed.communicate(timeout=120)
        took = time.monotonic() - began
        web.log.settle()
        requests = len(web.log.snapshot()) - before_hits
    assert resumed.returncode == 0, err.decode()[-2000:]
    assert "recrawl: due" in out.decode()  # the summary counts the recrawls
    assert recrawls(history(data)) > recrawls(after)
    assert requests <= RATE * took + 2  # --fetch-rate is a cap over all servers
