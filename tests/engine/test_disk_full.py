"""A disk that really fills (a small tmpfs) stops the crawl with one line; nothing is lost.

The data directory lives on a tmpfs mounted for the test, small enough that
the crawl runs out of space part-way. The crawl must say so in one line and
exit non-zero, leave a database that passes SQLite's integrity check, and
resume to the end once the tmpfs is grown ("space returns"), with every page
fetched and indexed.
"""

from __future__ import annotations

import json
import random
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.tmpfs import small_tmpfs
from webcrawler.database.schema import INDEXED
from webcrawler.demoweb.server import LoopbackWeb, Site, html

PAGES = 120


def _pages() -> dict:
    rng = random.Random(7)
    words = [f"w{i:05d}" for i in range(6000)]
    pages = {"/": html("home", "home", [(f"/p{i}", f"page {i}") for i in range(PAGES)])}
    for i in range(PAGES):
        text = " ".join(rng.choice(words) for _ in range(800))
        pages[f"/p{i}"] = html(f"page {i}", text, [("/", "home")])
    return pages


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 1 MB tmpfs: the test fills a real file system."""
    with small_tmpfs(tmp_path / "disk", "1m") as disk:
        yield disk


def _index(data_dir: Path, *args: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "webcrawler.cli", "index", "--data-dir", str(data_dir),
               "--agents", "3", "--delay", "0", "--commit-every", "10", "--no-progress", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=240)


def _stats(data_dir: Path) -> dict:
    done = subprocess.run([sys.executable, "-m", "webcrawler.cli", "stats", "--json",
                           "--data-dir", str(data_dir)], capture_output=True, text=True,
                          timeout=60, check=True)
    return json.loads(done.stdout)


def test_a_full_disk_stops_the_crawl_in_one_line_and_it_resumes_when_space_returns(small_disk):
    data_dir = small_disk / "data"
    with LoopbackWeb([Site("127.0.4.91", _pages())]) as web:
        full = _index(data_dir, "--seed", web.url("127.0.4.91", "/"),  # scoped: no warning
                      "--include", r"^http://127\.0\.4\.91[:/]")  # that it is the whole web
        assert full.returncode == 1, full.stderr
        lines = [line for line in full.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("Error: disk full:"), full.stderr
        assert str(data_dir) in lines[0]
        with sqlite3.connect(data_dir / "webcrawler.db") as db:
            assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
            fetched_before = db.execute(
                "SELECT count(*) FROM documents WHERE state = 'fetched'").fetchone()[0]
        assert fetched_before < PAGES + 1  # it really ran out part-way

        subprocess.run(["mount", "-o", "remount,size=128m", str(small_disk)], check=True)
        resumed = _index(data_dir)
        assert resumed.returncode == 0, resumed.stderr
        assert "nothing left to fetch" in resumed.stdout

    stats = _stats(data_dir)
    assert stats["documents"] == {"fetched": PAGES + 1}
    assert stats["index_documents"] == PAGES + 1
    with sqlite3.connect(data_dir / "webcrawler.db") as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        waiting = db.execute(f"SELECT count(*) FROM index_outbox WHERE batch != {INDEXED}")
        assert waiting.fetchone() == (0,)  # every document's text indexed (and kept, for --reindex)
