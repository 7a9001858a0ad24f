"""The search page as a newcomer meets it (issue 38), in a real headless Chromium at 1280
and 390 px: grouped results read in score order; a clicked facet shows as a filter with
a visible control that removes it; a filter alone lists its documents; "Did you mean"
says its results are already included; completion completes the last word in the
context of the earlier ones. WEBCRAWLER_SCREENSHOTS=docs keeps the screenshots of the
facets and of the completions (docs/search-facets.png, docs/search-suggestions.png).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect, sync_playwright

from tests.query_server.test_search_browser import CHROMIUM, CHROMIUM_ARGS
from tests.query_server.test_search_keyboard import keep
from webcrawler.index import IndexedDocument
from webcrawler.query_server import ServerThread, create_app

WIDTHS = [1280, 390]


def corpus() -> list[IndexedDocument]:
    """Six strong json pages on one site, three weaker ones (two PDFs) on another, and
    eight builtins pages whose frequent "delattr" never meets "json"."""
    docs = [IndexedDocument(n, f"http://127.0.3.1/json{n}.html", f"json - JSON encoder and decoder {n}",
                            "json " * (12 - n) + "This module turns objects into text and back again: "
                            "dumps and loads, with an encoder and a decoder you can extend.",
                            "127.0.3.1") for n in range(1, 7)]
    docs.append(IndexedDocument(7, "http://127.0.3.2/notes.html", "Notes on data formats",
                                "data formats " * 30 + "json once among many other words", "127.0.3.2"))
    docs += [IndexedDocument(n, f"http://127.0.3.2/schema{n}.pdf", f"JSON Schema reference, part {n}",
                             "A reference to json schema: how to describe the shape of your documents and "
                             "check them before you store them, with dumps of every example.", "127.0.3.2",
                             kind="pdf")
             for n in (8, 9)]
    docs += [IndexedDocument(n, f"http://127.0.3.3/builtins{n}.html", f"Built-in functions {n}",
                             "delattr getattr setattr hasattr builtins of the interpreter", "127.0.3.3")
             for n in range(10, 18)]
    return docs


@pytest.fixture
def search_url(make_data_dir: Callable[[list[IndexedDocument]], Path]) -> Iterator[str]:
    app = create_app(make_data_dir(corpus()))
    with ServerThread(app, host="127.0.0.1", port=0, threads=4) as server:
        yield server.url
    app.extensions["webcrawler.sources"].close()


@pytest.fixture(params=WIDTHS, ids=[f"{w}px" for w in WIDTHS])
def page(request: pytest.FixtureRequest) -> Iterator[Page]:
    assert Path(CHROMIUM).exists(), "install Debian's chromium: apt-get install -y chromium"
    width = request.param
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            tab = browser.new_page(viewport={"width": width, "height": 900 if width > 400 else 844})
            problems: list[str] = []
            tab.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
            tab.on("pageerror", lambda e: problems.append(str(e)))
            yield tab
            assert problems == []
            assert tab.evaluate("document.documentElement.scrollWidth") <= width  # nothing sideways
        finally:
            browser.close()


def scores(page: Page) -> list[int]:
    return [int(s) for s in page.locator("ol.results .score").all_inner_texts()]


def test_grouped_results_read_in_score_order(page: Page, search_url: str) -> None:
    page.goto(search_url + "/search?q=json")
    shown = scores(page)
    assert len(shown) == 9 and shown[0] == 1000
    assert shown == sorted(shown, reverse=True), shown  # was 1000, ..., 0060, 0714, ...
    assert page.locator("ol.results .url").all_inner_texts().count("http://127.0.3.1/json6.html") == 1


def test_a_clicked_facet_can_be_removed(page: Page, search_url: str) -> None:
    page.goto(search_url + "/search?q=json")
    assert page.locator(".active-filters").count() == 0
    page.locator("nav.facets a", has_text="pdf").click()
    page.wait_for_url("**/search?q=json+type*pdf*")
    assert len(scores(page)) == 2
    remove = page.get_by_role("link", name="Remove the filter type:pdf")
    expect(remove).to_be_visible()
    box = remove.bounding_box()
    assert box is not None and box["x"] + box["width"] <= page.viewport_size["width"]  # type: ignore[index]
    assert box["width"] >= 20 and box["height"] >= 20  # big enough to tap
    if page.viewport_size["width"] > 400:  # type: ignore[index]
        keep(page, "search-facets.png")
    remove.click()
    page.wait_for_url("**/search?q=json")
    assert page.locator(".active-filters").count() == 0 and len(scores(page)) == 9


def test_a_filter_alone_lists_its_documents(page: Page, search_url: str) -> None:
    page.goto(search_url + "/search?q=type%3Apdf")
    assert page.locator(".error").count() == 0  # was "Type one or more words to search for."
    assert sorted(page.locator("ol.results .url").all_inner_texts()) == [
        "PDF http://127.0.3.2/schema8.pdf", "PDF http://127.0.3.2/schema9.pdf"]
    remove = page.get_by_role("link", name="Remove the filter type:pdf")
    assert remove.get_attribute("href") == "/"  # nothing left: the front page
    remove.click()
    page.wait_for_url(lambda url: url.rstrip("/") == search_url.rstrip("/"))


def test_did_you_mean_says_its_results_are_included(page: Page, search_url: str) -> None:
    page.goto(search_url + "/search?q=jsno+dumps")
    assert page.locator(".did-you-mean a").inner_text() == "json dumps"
    assert "already included below" in page.locator(".did-you-mean").inner_text()
    assert len(scores(page)) == 9  # every json page is here already, not only "jsno"'s


def test_completion_in_the_context_of_the_earlier_words(page: Page, search_url: str) -> None:
    page.goto(search_url)
    page.locator("#q").click()
    page.keyboard.type("d")
    options = page.locator("#q-suggestions [role=option]")
    expect(options.first).to_have_text("delattr")  # alone, the most frequent d-word
    page.keyboard.press("Backspace")
    page.keyboard.type("json d")
    expect(options.first).to_have_text("json dumps")
    assert "json delattr" not in options.all_inner_texts()
    if page.viewport_size["width"] > 400:  # type: ignore[index]
        keep(page, "search-suggestions.png")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    page.wait_for_url("**/search?q=json+dumps*")
    assert len(scores(page)) == 9
