"""The workbench in a real headless Chromium: define a crawl, watch it grow, narrow it, download
the concatenated manual, stop a crawl.

The manual is served on 127.0.8.5 with each page a little slow (0.25 s), so the
graph's node count is seen rising while the crawl runs. Set
WEBCRAWLER_SCREENSHOTS to a folder to keep screenshots (docs/workbench.md).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.support.workbench_tab import chromium, number, shoot, watch
from tests.workbench.conftest import CHAPTERS, Workbench, docs_pages
from webcrawler.demoweb.server import LoopbackWeb, Site
from webcrawler.workbench.page import GRAPH_LIBRARY

# Without cytoscape.js (no npm at `make`), the page has no graph: its node counts are not
# checked, everything else is (the outline, counters, results).
GRAPH = GRAPH_LIBRARY.is_file()


@pytest.fixture(scope="module")
def slow_web() -> Iterator[LoopbackWeb]:
    with LoopbackWeb([Site("127.0.8.5", docs_pages(delay=0.25))]) as web:
        yield web


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


@pytest.fixture
def page(browser: Browser, workbench: Workbench) -> Iterator[Page]:
    tab = browser.new_page(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    problems: list[str] = []
    tab.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    tab.on("pageerror", lambda e: problems.append(str(e)))
    tab.goto(workbench.url)
    yield tab
    tab.close()
    assert problems == []  # nothing blocked by the CSP, no script error


def test_define_watch_narrow_and_download_in_a_real_browser(
        page: Page, slow_web: LoopbackWeb, tmp_path: Path) -> None:
    site = slow_web.url("127.0.8.5", "/")
    page.fill("textarea[name=roots]", site)
    page.fill("input[name=name]", "Whole site")
    page.click("#run")
    counts = watch(page, lambda state: state == "done", screenshot="workbench-crawl.png")
    rising = sorted(set(counts))
    if GRAPH:
        assert counts == sorted(counts) and len(rising) >= 4, counts  # the graph grew as it ran
        assert number(page, "nodes") == CHAPTERS + 5
    assert number(page, "visited") == CHAPTERS + 5  # home, contents, 6 chapters, blog and its 2
    assert page.locator("#outline li").count() == CHAPTERS + 5
    assert page.locator("#outline > ul > li > details > ul > li").count() == 2  # /docs/, /blog/
    shoot(page, "workbench-done.png")

    # narrow: follow only the manual, and concatenate only its chapters
    page.fill("input[name=follow_url]", "*/docs/*")
    page.fill("input[name=process_title]", "Chapter*")
    page.fill("input[name=name]", "The manual")
    page.click("#run")
    watch(page, lambda state: state == "done")
    assert number(page, "visited") == CHAPTERS + 2  # home, contents, chapters
    if GRAPH:
        assert number(page, "nodes") == CHAPTERS + 3  # and /blog/, not followed
        assert page.locator("#outline li.skipped").count() == 1
    listed = page.locator("#crawls li").first
    expect(listed).to_contain_text("done: The manual (concatenate) download document.html")
    with page.expect_download() as download:
        listed.locator("a.result").click()
    saved = tmp_path / "manual.html"
    download.value.save_as(saved)
    text = saved.read_text()
    positions = [text.index(f"marker-{i}") for i in range(1, CHAPTERS + 1)]
    assert positions == sorted(positions)
    assert "Manual contents" not in text and "Blog" not in text


def test_stop_a_running_crawl_in_a_real_browser(page: Page, slow_web: LoopbackWeb) -> None:
    page.fill("textarea[name=roots]", slow_web.url("127.0.8.5", "/"))
    page.click("#run")
    watch(page, lambda state: number(page, "visited") >= 2)
    page.click("#stop")
    watch(page, lambda state: state == "stopped")
    assert number(page, "visited") < CHAPTERS + 5
    expect(page.locator("#crawls li").first).to_contain_text("stopped: ")
