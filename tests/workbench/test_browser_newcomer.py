"""The workbench as a newcomer meets it, in a real headless Chromium at 1280 and 390 px
(issue 38): a refused root says why and how to allow it, "collect links" says how many
targets were not checked, the page fits 390 px, the 404 page is styled, and the graph
stays readable at 2,000 nodes.

Set WEBCRAWLER_SCREENSHOTS to a folder to keep screenshots (docs/workbench.md)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from tests.query_server.test_search_browser import CHROMIUM, CHROMIUM_ARGS
from tests.workbench.conftest import CHAPTERS, Workbench
from webcrawler.demoweb.server import LoopbackWeb, Site, html
from webcrawler.demoweb.server import Page as Page_

WIDTHS = [1280, 390]
PRIVATE = "127.0.8.7"  # not among the hosts the tests' workbench allows
BLOCKED = "/vendor/cytoscape.min.js"  # the graph library, kept from the page where a test says so


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    assert Path(CHROMIUM).exists(), "install Debian's chromium: apt-get install -y chromium"
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(params=WIDTHS, ids=[f"{w}px" for w in WIDTHS])
def page(request: pytest.FixtureRequest, browser: Browser, workbench: Workbench) -> Iterator[Page]:
    tab = browser.new_page(viewport={"width": request.param, "height": 900}, accept_downloads=True)
    problems: list[str] = []
    tab.on("console", lambda m: problems.append(m.text) if m.type == "error" and not m.location.get(
        "url", "").endswith(BLOCKED) else None)
    tab.on("pageerror", lambda e: problems.append(str(e)))
    tab.goto(workbench.url)
    yield tab
    tab.close()
    assert problems == []  # nothing blocked by the CSP, no script error


def shoot(tab: Page, name: str) -> None:
    folder = os.environ.get("WEBCRAWLER_SCREENSHOTS")
    if folder:
        tab.screenshot(path=str(Path(folder) / name), full_page=True)


def run_until_over(tab: Page, roots: str, timeout: float = 60.0) -> str:
    tab.fill("textarea[name=roots]", roots)
    tab.click("#run")
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        state = tab.inner_text("#c-state")
        if state in ("done", "stopped", "failed"):
            return state
        tab.wait_for_timeout(100)
    raise AssertionError(f"the crawl did not end within {timeout} s")


def test_a_refused_root_says_why_and_how_to_allow_it(page: Page) -> None:
    with LoopbackWeb([Site(PRIVATE, {"/": html("Home", "home")})]) as web:
        assert run_until_over(page, web.url(PRIVATE, "/")) == "done"
    message = page.inner_text("#message")
    assert "private-address" in message and f"--allow-private-host {PRIVATE}" in message
    assert "page predicate" not in message
    listed = page.locator("#crawls li").first
    listed.wait_for()
    assert "private-address" in listed.inner_text()


def test_collect_links_says_how_many_targets_were_not_checked(page: Page) -> None:
    big = Page_("<html><body>" + "x" * 1_100_000 + "</body></html>")  # over the 1 MiB cap, answers 200
    links = [("/fine.html", "fine"), ("/missing.html", "missing"), ("/big.html", "big"),
             ("http://127.0.8.3:9/elsewhere.html", "another server")]
    pages = {"/": html("Links", "links", links), "/fine.html": html("Fine", "fine"), "/big.html": big}
    with LoopbackWeb([Site("127.0.8.2", pages)]) as web:
        page.select_option("select[name=action]", "links")
        page.select_option("select[name=scope]", "server")
        assert run_until_over(page, web.url("127.0.8.2", "/")) == "done"
    message = page.inner_text("#message")
    assert "1 broken, 2 not checked (1 not fetched, 1 too-large)" in message, message
    shoot(page, f"workbench-links-{page.viewport_size['width']}px.png")  # type: ignore[index]


def test_without_the_graph_library_the_outline_and_counters_still_work(
        page: Page, docs_web: LoopbackWeb) -> None:
    page.route("**" + BLOCKED, lambda route: route.abort())  # as if npm never fetched it
    page.reload()
    assert page.evaluate("typeof cytoscape") == "undefined"
    page.select_option("select[name=scope]", "subtree")
    assert run_until_over(page, docs_web.url("127.0.8.1", "/docs/")) == "done"
    assert int(page.inner_text("#c-visited")) == CHAPTERS + 1  # the contents and the chapters
    assert page.locator("#outline li.visited").count() == CHAPTERS + 1
    assert int(page.inner_text("#c-nodes")) == CHAPTERS + 1
    expect(page.locator("#crawls li").first).to_contain_text("download document.html")
