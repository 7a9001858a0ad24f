"""The search page in a real headless Chromium, with the keyboard alone and at phone width.

`/` focuses the box; typing offers completions from /api/suggest in an ARIA combobox;
arrow keys move through them, Enter searches for the one chosen, Escape closes the
list; on the results, arrow keys move from result to result and back to the box. At
390 px wide nothing scrolls sideways, even with a very long URL among the results.
Set WEBCRAWLER_SCREENSHOTS to a directory to keep the screenshots (docs/ holds them).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect, sync_playwright

from tests.query_server.test_search_browser import CHROMIUM, CHROMIUM_ARGS
from webcrawler.index import IndexedDocument
from webcrawler.query_server import ServerThread, create_app

LONG_URL = "http://127.0.3.1/" + "very-long-path-segment-without-any-break/" * 6 + "genome.html"
DOCS = [
    ("http://127.0.3.1/guide.html", "Guide to Molecular Biology Databases",
     "molecular biology databases for the human genome project, molecular biology"),
    ("http://127.0.3.1/links.html", "Biology Links", "links to molecular biology and genome resources"),
    (LONG_URL, "GenomeNet WWW server", "the human genome project and molecular data"),
    ("http://127.0.3.2/oxford.html", "Oxford University Molecular Biology Data Centre",
     "molecular biology data centre"),
    ("http://127.0.3.2/untitled", "", f"genome mirrors: {LONG_URL} and {LONG_URL}"),
]


@pytest.fixture
def search_url(make_data_dir: Callable[[list[IndexedDocument]], Path]) -> Iterator[str]:
    docs = [IndexedDocument(n, url, title, body, url.split("/")[2])
            for n, (url, title, body) in enumerate(DOCS, start=1)]
    app = create_app(make_data_dir(docs))
    with ServerThread(app, host="127.0.0.1", port=0, threads=4) as server:
        yield server.url
    app.extensions["webcrawler.sources"].close()


@pytest.fixture
def browser_page() -> Iterator[tuple[Page, list[str]]]:
    assert Path(CHROMIUM).exists(), "install Debian's chromium: apt-get install -y chromium"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1100, "height": 760})
            problems: list[str] = []
            page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: problems.append(str(e)))
            yield page, problems
        finally:
            browser.close()


def focused(page: Page) -> str:
    """What has the focus: the box ("q"), or a result link's text."""
    return page.evaluate("document.activeElement.id || document.activeElement.textContent")


def keep(page: Page, name: str) -> None:
    directory = os.environ.get("WEBCRAWLER_SCREENSHOTS")
    if directory:
        page.screenshot(path=str(Path(directory) / name), full_page=True)


def test_completions_with_the_keyboard_alone(browser_page: tuple[Page, list[str]], search_url: str) -> None:
    page, problems = browser_page
    page.goto(search_url)
    page.locator("h1").click()  # the box loses the autofocus
    assert focused(page) != "q"
    page.keyboard.press("/")
    assert focused(page) == "q" and page.input_value("#q") == ""  # "/" was not typed
    page.keyboard.type("human gen")
    options = page.locator("#q-suggestions [role=option]")
    expect(options.first).to_have_text("human genome")  # waits for the answer to the last key
    assert page.get_attribute("#q", "aria-expanded") == "true"
    page.keyboard.press("ArrowDown")
    assert page.get_attribute("#q", "aria-activedescendant") == options.first.get_attribute("id")
    assert options.first.get_attribute("aria-selected") == "true"
    page.keyboard.press("ArrowUp")  # wraps to the last
    assert options.last.get_attribute("aria-selected") == "true"
    page.keyboard.press("Escape")
    assert page.locator("#q-suggestions").is_hidden()
    assert page.get_attribute("#q", "aria-expanded") == "false"
    page.keyboard.press("ArrowDown")  # opens the list again, on its first completion
    page.keyboard.press("Enter")
    page.wait_for_url("**/search?q=human+genome*")
    assert page.locator("ol.results li").count() > 0
    assert page.input_value("#q") == "human genome" and problems == []


def test_arrow_keys_move_through_the_results(browser_page: tuple[Page, list[str]], search_url: str) -> None:
    page, problems = browser_page
    page.goto(search_url + "/search?q=molecular+biology")
    titles = page.locator("ol.results a.title").all_inner_texts()
    assert len(titles) == 4  # the untitled page does not hold these words
    page.locator("h1.sr").evaluate("e => document.activeElement.blur()")
    page.keyboard.press("ArrowDown")
    assert focused(page) == titles[0]
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    assert focused(page) == titles[2]
    page.keyboard.press("ArrowUp")
    assert focused(page) == titles[1]
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowUp")
    assert focused(page) == "q"  # up from the first result: back to the box
    page.keyboard.press("ArrowDown")  # no completions asked for: down goes to the results
    assert focused(page) == titles[0]
    page.keyboard.press("/")
    assert focused(page) == "q"
    page.keyboard.press("Enter")
    page.wait_for_url("**/search?q=molecular+biology*")
    assert problems == []


def test_did_you_mean_in_the_browser(browser_page: tuple[Page, list[str]], search_url: str) -> None:
    page, problems = browser_page
    page.goto(search_url + "/search?q=molecluar+biology")
    link = page.locator(".did-you-mean a")
    assert link.inner_text() == "molecular biology"
    keep(page, "search-did-you-mean.png")
    link.click()
    page.wait_for_url("**/search?q=molecular+biology")
    assert page.locator(".did-you-mean").count() == 0 and problems == []


@pytest.mark.parametrize("path", ["/", "/search?q=genome+project&expand=1", "/realtime", "/stats",
                                  "/search?q=http://127.0.3.1/" + "longpathsegmentwithnobreak/" * 5,
                                  "/search?q=" + "x" * 40])
def test_no_sideways_scroll_at_390_px(browser_page: tuple[Page, list[str]], search_url: str,
                                      path: str) -> None:
    page, problems = browser_page
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(search_url + path)
    if "project" in path:  # a long URL as a result's URL, and in a snippet
        assert LONG_URL in page.locator("ol.results .url").all_inner_texts()
        assert "-break/very-long-path-segment-without-any-break/" in page.locator(
            "ol.results .snippet").last.inner_text()
        keep(page, "search-390px.png")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert problems == []


def test_desktop_screenshot(browser_page: tuple[Page, list[str]], search_url: str, tmp_path: Path) -> None:
    page, problems = browser_page
    page.goto(search_url + "/search?q=molecular+biology+genome&expand=1")
    assert page.locator("ol.results li").count() == 5
    shot = tmp_path / "search-desktop.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 0 and problems == []
    if os.environ.get("WEBCRAWLER_SCREENSHOTS"):
        shutil.copy(shot, Path(os.environ["WEBCRAWLER_SCREENSHOTS"]) / shot.name)
