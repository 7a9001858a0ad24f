"""A real workbench process on loopback, and a small documentation web for it to crawl."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil
import pytest

from webcrawler.demoweb.server import LoopbackWeb, Page, Site, html
from webcrawler.web import processes

ROOT = Path(__file__).resolve().parents[2]  # the clone: importable from any working directory
CHAPTERS = 6
# The loopback webs these tests crawl: a workbench refuses private addresses unless its
# operator names them, as these tests do (tests/workbench/test_safety.py checks the refusal).
TEST_WEBS = ("127.0.8.1", "127.0.8.2", "127.0.8.3", "127.0.8.4", "127.0.8.5")
ALLOW_TEST_WEBS = tuple(flag for host in TEST_WEBS for flag in ("--allow-private-host", host))


def docs_pages(delay: float = 0.0) -> dict[str, Page]:
    """A manual: /docs/ lists chapters 1..6 (each links to the next), plus /blog/ pages off-manual."""
    pages = {"/": html("Home", "home", [("/docs/", "Manual"), ("/blog/", "Blog")]),
             "/docs/": html("Manual contents", "contents",
                            [(f"/docs/ch{i}.html", f"Chapter {i}") for i in range(1, CHAPTERS + 1)]),
             "/blog/": html("Blog", "news", [("/blog/a.html", "A"), ("/blog/b.html", "B")]),
             "/blog/a.html": html("Blog A", "a"), "/blog/b.html": html("Blog B", "b")}
    for i in range(1, CHAPTERS + 1):
        nxt = [(f"/docs/ch{i + 1}.html", "next")] if i < CHAPTERS else []
        pages[f"/docs/ch{i}.html"] = html(f"Chapter {i}", f"text of chapter {i} marker-{i}", nxt)
    if delay:
        pages = {k: Page(v.body, delay=delay) for k, v in pages.items()}
    return pages


@pytest.fixture(scope="module")
def docs_web() -> Iterator[LoopbackWeb]:
    with LoopbackWeb([Site("127.0.8.1", docs_pages())]) as web:
        yield web


@dataclass
class Workbench:
    url: str
    process: subprocess.Popen[str]
    data_dir: Path

    def call(self, method: str, path: str, body: Any = None,
             headers: dict[str, str] | None = None) -> tuple[int, Any]:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.url.rstrip("/") + path, data=data, method=method,
                                         headers={"Content-Type": "application/json", **(headers or {})})
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                raw = answer.read()
                status = answer.status
        except urllib.error.HTTPError as error:
            raw, status = error.read(), error.code
            error.close()
        try:
            return status, json.loads(raw)
        except ValueError:
            return status, raw

    def wait(self, crawl_id: str, timeout: float = 60.0) -> dict[str, Any]:
        """Poll the crawl until it ended (bounded): its view."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            _, view = self.call("GET", f"/api/crawls/{crawl_id}")
            if view["state"] not in ("running", "stopping"):
                return view
            time.sleep(0.1)
        raise AssertionError(f"crawl {crawl_id} still running after {timeout} s")

    def descendants(self) -> list[int]:
        return [p.pid for p in psutil.Process(self.process.pid).children(recursive=True)]


def start_workbench(data_dir: Path | None, host: str = "127.0.0.1", *flags: str,
                    allow: tuple[str, ...] = ALLOW_TEST_WEBS, cwd: Path | None = None) -> Workbench:
    """`webcrawler workbench` as a real process on a free port; the URL from its first line.
    `data_dir` None: the default data directory (./webcrawler-data in `cwd`)."""
    where = ["--data-dir", str(data_dir)] if data_dir is not None else []
    command = [sys.executable, "-m", "webcrawler.cli", "workbench", *where,
               "--host", host, "--port", "0", "--delay", "0", "--agents", "2", *allow, *flags]
    if cwd is None:
        process = processes.start(command, subprocess.DEVNULL)  # type: ignore[arg-type]
    else:
        env = {k: v for k, v in os.environ.items() if k not in ("WEBCRAWLER_DATA", "WEBCRAWLER_DATA_DIR")}
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                   start_new_session=True, cwd=cwd, env=env)
    assert process.stdout is not None
    line = process.stdout.readline().strip()
    if not line.startswith("Workbench at "):
        processes.end_group(process, 5)
        raise AssertionError(f"the workbench did not start: {line!r}")
    return Workbench(line.removeprefix("Workbench at "), process,
                     (cwd or Path.cwd()) / (data_dir or "webcrawler-data"))


def stop_workbench(bench: Workbench) -> None:
    bench.process.terminate()
    try:
        bench.process.wait(20)
    finally:
        processes.end_group(bench.process, 5)
        if bench.process.stdout is not None:
            bench.process.stdout.close()


@pytest.fixture
def make_workbench(tmp_path: Path) -> Iterator[Callable[..., Workbench]]:
    started: list[Workbench] = []

    def make(host: str = "127.0.0.1", *flags: str, name: str = "wb",
             allow: tuple[str, ...] = ALLOW_TEST_WEBS) -> Workbench:
        bench = start_workbench(tmp_path / name, host, *flags, allow=allow)
        started.append(bench)
        return bench

    yield make
    for bench in started:
        stop_workbench(bench)


@pytest.fixture(scope="module")
def workbench(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workbench]:
    """One workbench for a module's tests (each test looks only at its own crawls)."""
    bench = start_workbench(tmp_path_factory.mktemp("workbench"))
    yield bench
    stop_workbench(bench)
