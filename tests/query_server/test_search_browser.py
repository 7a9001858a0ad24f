"""A real headless Chromium searches, reads the ranked results and follows one.

The results point at a page served on 127.0.3.1 by LoopbackWeb, so following
a result works offline. Debian's /usr/bin/chromium is driven by Playwright;
Playwright never downloads a browser here. Set WEBCRAWLER_SCREENSHOT to a
path to keep a screenshot of the results page.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

from webcrawler.demoweb.server import LoopbackWeb, Site, html
from webcrawler.index import IndexedDocument
from webcrawler.query_server import ServerThread, create_app

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

PAGES = {
    "/guide.html": (
        "Guide to Molecular Biology Databases",
        "molecular biology databases for the human genome project, molecular biology",
    ),
    "/links.html": ("Biology Links", "links to molecular biology and genome resources"),
    "/genome.html": ("GenomeNet WWW server", "the human genome project and molecular data"),
    "/oxford.html": (
        "Oxford University Molecular Biology Data Centre Home Page",
        "molecular biology data centre",
    ),
}


@pytest.fixture
def web() -> Iterator[LoopbackWeb]:
    routes = {path: html(title, body) for path, (title, body) in PAGES.items()}
    with LoopbackWeb([Site("127.0.3.1", routes)]) as web:
        yield web


@pytest.fixture
def search_url(
    make_data_dir: Callable[[list[IndexedDocument]], Path], web: LoopbackWeb
) -> Iterator[str]:
    docs = [
        IndexedDocument(n, web.url("127.0.3.1", path), title, body, web.name("127.0.3.1"))
        for n, (path, (title, body)) in enumerate(PAGES.items(), start=1)
    ]
    app = create_app(make_data_dir(docs))
    with ServerThread(app, host="127.0.0.1", port=0, threads=4) as server:
        yield server.url
    app.extensions["webcrawler.sources"].close()


def test_search_in_a_real_browser_and_follow_a_result(
    search_url: str, web: LoopbackWeb, tmp_path: Path
) -> None:
    assert Path(CHROMIUM).exists(), "install Debian's chromium: apt-get install -y chromium"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
        )
        try:
            page = browser.new_page(viewport={"width": 1100, "height": 760})
            problems: list[str] = []
            page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: problems.append(str(e)))
            page.goto(search_url)
            assert page.title() == "WebCrawler"
            page.fill("input[name=q]", "molecular biology")
            page.click("button[type=submit]")
            page.wait_for_url("**/search?q=molecular+biology*")
            scores = page.locator("ol.results .score").all_inner_texts()
            assert scores[0] == "1000" and len(scores) == 4
            assert all(len(s) == 4 for s in scores) and scores == sorted(scores, reverse=True)
            first = page.locator("ol.results .title").first
            assert first.inner_text() == "Guide to Molecular Biology Databases"
            assert page.locator(".snippet b").count() > 0
            shot = tmp_path / "results.png"
            page.screenshot(path=str(shot), full_page=True)
            if os.environ.get("WEBCRAWLER_SCREENSHOT"):
                shutil.copy(shot, os.environ["WEBCRAWLER_SCREENSHOT"])
            assert problems == []  # e.g. no style blocked by the CSP
            first.click()
            page.wait_for_url(web.url("127.0.3.1", "/guide.html"))
            assert page.locator("h1").inner_text() == "Guide to Molecular Biology Databases"
        finally:
            browser.close()
    assert "/guide.html" in web.log.paths()
