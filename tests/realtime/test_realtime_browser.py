"""A real headless Chromium starts a real-time search from the form and sees results arrive.

Playwright drives Debian's /usr/bin/chromium (it never downloads a browser). The
page polls the job's JSON; results from the index show while the job runs, and the
documents it retrieves join them live.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright

from tests.query_server.test_search_browser import CHROMIUM, CHROMIUM_ARGS
from tests.realtime.test_realtime_api import make_app
from webcrawler.query_server import ServerThread


@pytest.fixture
def server_url(indexed: Path) -> Iterator[str]:
    for app in make_app(indexed, realtime_delay=0.2, realtime_agents=2):
        with ServerThread(app, host="127.0.0.1", port=0, threads=4) as server:
            yield server.url


def test_results_appear_live_in_the_browser(server_url: str) -> None:
    assert Path(CHROMIUM).exists(), "install Debian's chromium: apt-get install -y chromium"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS,
                                             headless=True)
        try:
            page = browser.new_page()
            problems: list[str] = []
            page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: problems.append(str(e)))
            page.goto(server_url + "/realtime")
            page.fill("#realtime-form input[name=q]", "sailing boats")
            page.fill("#realtime-form input[name=want]", "3")
            page.click("#realtime-form button[type=submit]")
            # the index's answers show (the job may already have found enough: a fast machine)...
            page.locator("#results li").first.wait_for(timeout=30_000)
            assert page.locator("#status").inner_text().startswith(("running", "done"))
            assert "/realtime/" in page.url
            # ...then documents found just now join them, and the job ends
            page.locator("#results .where.new").first.wait_for(timeout=40_000)
            expect(page.locator("#status")).to_contain_text("done", timeout=40_000)
            assert page.locator("#results .where.new").count() >= 3
            scores = [int(s) for s in page.locator("#results .score").all_inner_texts()]
            assert all(0 < s <= 1000 for s in scores)
            assert page.locator("#cancel").is_hidden()
            assert problems == []  # e.g. nothing blocked by the Content-Security-Policy
        finally:
            browser.close()


def test_the_cancel_button_passes_the_same_origin_check(server_url: str) -> None:
    """The page's DELETE carries the browser's own Origin: the guard lets it through."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS,
                                             headless=True)
        try:
            page = browser.new_page()
            page.goto(server_url + "/realtime")
            page.fill("#realtime-form input[name=q]", "chess opening")
            page.fill("#realtime-form input[name=want]", "100")
            page.click("#realtime-form button[type=submit]")
            page.locator("#cancel").wait_for(state="visible", timeout=30_000)
            page.click("#cancel")
            expect(page.locator("#status")).to_contain_text("cancelled", timeout=40_000)
        finally:
            browser.close()


@pytest.mark.parametrize("width", [1280, 390])
def test_results_stay_in_score_order_and_the_placeholder_comes_from_the_index(
        server_url: str, width: int) -> None:
    """Documents found during the job land among the index's answers by score, not below
    lower-scored ones; the page's reload lists them the same way; the empty box suggests
    words of the index (it said "molecular biology" whatever the index held)."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS,
                                             headless=True)
        try:
            page = browser.new_page(viewport={"width": width, "height": 900})
            problems: list[str] = []
            page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: problems.append(str(e)))
            page.goto(server_url + "/realtime")
            box = page.locator("#realtime-form input[name=q]")
            placeholder = box.get_attribute("placeholder") or ""
            assert placeholder.startswith("e.g. ") and "molecular" not in placeholder
            for word in placeholder.removeprefix("e.g. ").split(", "):  # each finds documents
                answer = page.request.get(server_url + "/api/search", params={"q": word}).json()
                assert answer["total"] > 0, word
            box.fill("sailing boats")
            page.fill("#realtime-form input[name=want]", "6")
            page.click("#realtime-form button[type=submit]")
            expect(page.locator("#status")).to_contain_text("done", timeout=60_000)
            assert page.locator("#results .where.new").count() >= 1
            live = [int(s) for s in page.locator("#results .score").all_inner_texts()]
            assert live == sorted(live, reverse=True), live
            page.reload()
            again = [int(s) for s in page.locator("#results .score").all_inner_texts()]
            assert again == live
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            assert problems == []
        finally:
            browser.close()
