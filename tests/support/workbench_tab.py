"""Driving the Workbench's page in a real headless Chromium: what the browser tests share
(tests/workbench/test_browser.py, test_browser_newcomer.py)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from playwright.sync_api import Browser, Page, sync_playwright

from tests.query_server.test_search_browser import CHROMIUM, CHROMIUM_ARGS
from webcrawler.demoweb.server import html

ENDED = ("done", "stopped", "failed")  # the crawl states after which nothing changes


@contextmanager
def chromium() -> Iterator[Browser]:
    """Debian's Chromium, headless, closed on the way out."""
    assert Path(CHROMIUM).exists(), "install Debian's chromium: apt-get install -y chromium"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


def shoot(tab: Page, name: str) -> None:
    folder = os.environ.get("WEBCRAWLER_SCREENSHOTS")
    if folder:
        tab.screenshot(path=str(Path(folder) / name), full_page=True)


def number(tab: Page, counter: str) -> int:
    return int(float(tab.inner_text(f"#c-{counter}")))


def wait_for_state(tab: Page, until: Callable[[str], bool], timeout: float = 60.0,
                   each: Callable[[], object] | None = None) -> str:
    """The crawl's state once `until` holds, read every 0.1 s (`each` called before each read);
    AssertionError after `timeout` seconds."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if each is not None:
            each()
        state = tab.inner_text("#c-state")
        if until(state):
            return state
        tab.wait_for_timeout(100)
    raise AssertionError(f"the crawl did not end within {timeout} s")


def watch(tab: Page, until: Callable[[str], bool], timeout: float = 60.0,
          screenshot: str = "") -> list[int]:
    """The node count, sampled every 0.1 s until the state satisfies `until` (bounded)."""
    counts: list[int] = []
    shot = [screenshot]

    def sample() -> None:
        counts.append(number(tab, "nodes"))
        if shot[0] and counts[-1] >= 6:  # mid-crawl
            shoot(tab, shot[0])
            shot[0] = ""

    wait_for_state(tab, until, timeout, each=sample)
    return counts


def run_until_over(tab: Page, roots: str, timeout: float = 60.0) -> str:
    """Run a crawl of `roots` from the form; its state once it is over."""
    tab.fill("textarea[name=roots]", roots)
    tab.click("#run")
    return wait_for_state(tab, ENDED.__contains__, timeout)


def tree_site(pages: int) -> dict:
    """A ten-way tree of `pages` pages, each also linking back to its parent: a graph that grows
    wide fast (the newcomer's browser test and bench/workbench_graph.py)."""
    routes = {}
    for i in range(pages):
        links = [(f"/p{c}", f"page {c}") for c in range(10 * i + 1, min(10 * i + 11, pages))]
        if i:
            parent = (i - 1) // 10
            links.append(("/" if parent == 0 else f"/p{parent}", "up"))
        routes["/" if i == 0 else f"/p{i}"] = html(f"Page {i}", f"text of page {i}", links)
    return routes
