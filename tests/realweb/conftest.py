"""Loopback webs that fail the way real ones do, and a crawl helper that keeps tests fast."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import select

from webcrawler.commands.index import run_index
from webcrawler.database.schema import connect, documents
from webcrawler.demoweb.server import Hit, html
from webcrawler.settings import Settings


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Fast: no politeness delay, retries after 0.2 s (Retry-After: 1 obeyed); timeouts a busy
    machine does not reach (the tests of timeouts set their own)."""
    return Settings(data_dir=tmp_path / "data", agents=4, delay=0.0, hours=0.05,
                    commit_every=20, progress_interval=60.0, connect_timeout=10.0,
                    read_timeout=10.0, total_timeout=30.0, retry_backoff=0.2, max_retry_after=5.0)


def crawl(settings: Settings, seeds: list[str], **changes: object) -> str:
    summary, rejected = run_index(dataclasses.replace(settings, seeds=tuple(seeds), **changes),
                                  progress=False)
    assert not rejected
    return summary


def pages(count: int, site: str = "") -> dict:
    """/ links to /p1../pN; each page links home. Sites of one web need their own `site`
    name: pages alike on two servers are duplicates, whose links are not followed."""
    routes = {"/": html(f"{site} home", "the home page", [(f"/p{i}", f"page {i}")
                                                          for i in range(1, count + 1)])}
    for i in range(1, count + 1):
        routes[f"/p{i}"] = html(f"{site} page {i}", f"text of page {i}", [("/", "home")])
    return routes


def with_credentials(tmp_path: Path, host: str, password: str, scheme: str = "") -> Path:
    """A new data directory whose webcrawler.toml gives `host` HTTP Basic credentials (over
    `scheme` when one is given: https by default)."""
    data = tmp_path / "data"
    data.mkdir(exist_ok=True)
    table = f'[[credentials]]\nhost = "{host}"\nusername = "crawler"\npassword = "{password}"\n'
    with (data / "webcrawler.toml").open("a") as file:
        file.write(table + (f'scheme = "{scheme}"\n' if scheme else ""))
    return data


def index_command(data: Path, seed: str, *args: str) -> subprocess.CompletedProcess:
    """`webcrawler -v index` in its own process, as an operator runs it (logs on stderr)."""
    return subprocess.run([sys.executable, "-m", "webcrawler.cli", "-vv", "index", "--seed", seed,
                           "--data-dir", str(data), "--delay", "0", *args],
                          capture_output=True, text=True, timeout=300)


def rows(settings: Settings) -> dict[str, dict]:
    """path -> the document's row (state, reason, tries, attempts decoded)."""
    engine = connect(settings.database_url)
    try:
        with engine.connect() as conn:
            found = conn.execute(select(documents)).mappings().all()
    finally:
        engine.dispose()
    return {r["path"]: {**r, "attempts": json.loads(r["attempts"]) if r["attempts"] else None}
            for r in found}


# Kept from when the server noted `finished` after its last write, which on a busy machine
# came a few milliseconds after the crawler had the whole answer and started its window
# (Hit.finished is now taken before that write: never after the crawler has the answer).
LOGGING_SLACK = 0.02  # seconds


def windows_kept(hits: list[Hit], seconds: float) -> list[str]:
    """The requests made within `seconds` after a 429 or 503 answer of the same server ended
    (none should be)."""
    bad = []
    for answer in (h for h in hits if h.status in (429, 503)):
        bad += [f"{h.path} {h.started - answer.finished:.3f} s after {answer.path}"
                for h in hits if h.server == answer.server
                and answer.finished < h.started < answer.finished + seconds - LOGGING_SLACK]
    return bad
