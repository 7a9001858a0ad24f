"""Loopback webs and settings for toolkit crawls (real agents, real HTTP on 127.0.6.x)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from webcrawler.demoweb.server import LoopbackWeb, Site, html
from webcrawler.demoweb.toolkitweb import ToolkitWeb
from webcrawler.settings import Settings


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", agents=2, delay=0.0, connect_timeout=2.0,
                    read_timeout=2.0, total_timeout=5.0, progress_interval=60.0)


def tree_pages() -> dict:
    """/ -> /a, /b; /a -> /a/1, /a/2; /b -> /b/1, /b/2; each leaf links home."""
    pages = {"/": html("home", "root", [("/a", "A"), ("/b", "B")])}
    for branch in "ab":
        pages[f"/{branch}"] = html(branch, branch, [(f"/{branch}/1", "one"), (f"/{branch}/2", "two")])
        for leaf in "12":
            pages[f"/{branch}/{leaf}"] = html(f"{branch}{leaf}", "leaf", [("/", "home")])
    return pages


@pytest.fixture
def tree_web():
    with LoopbackWeb([Site("127.0.6.1", tree_pages())]) as web:
        yield web


def documents(web: LoopbackWeb) -> list[str]:
    """The paths the server was asked for, robots.txt left out, in arrival order."""
    web.log.settle()
    return [p for p in web.log.paths() if p != "/robots.txt"]


@pytest.fixture(scope="module")
def web():
    """The small university web the actions and the examples run on (demoweb/toolkitweb.py)."""
    with ToolkitWeb() as served:
        yield served


def read_rows(path: Path, header: bool = True) -> list:
    """A CSV an action or an example wrote: dicts by header, or plain rows."""
    with path.open(encoding="utf-8", newline="") as lines:
        return list(csv.DictReader(lines) if header else csv.reader(lines))
