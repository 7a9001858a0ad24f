"""The workbench as a newcomer meets it, in a real headless Chromium at 1280 and 390 px
(issue 38): a refused root says why and how to allow it, "collect links" says how many
targets were not checked, the page fits 390 px, the 404 page is styled, and the graph
stays readable at 2,000 nodes.

Set WEBCRAWLER_SCREENSHOTS to a folder to keep screenshots (docs/workbench.md)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.support.workbench_tab import chromium, run_until_over, shoot, tree_site
from tests.workbench.conftest import CHAPTERS, Workbench, start_workbench, stop_workbench
from webcrawler.demoweb.server import LoopbackWeb, Site, html
from webcrawler.demoweb.server import Page as Page_

WIDTHS = [1280, 390]
PRIVATE = "127.0.8.7"  # not among the hosts the tests' workbench allows
BLOCKED = "/vendor/cytoscape.min.js"  # the graph library, kept from the page where a test says so


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


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


@pytest.fixture(scope="module")
def tree_web() -> Iterator[LoopbackWeb]:
    with LoopbackWeb([Site("127.0.8.4", tree_site(2000))]) as web:
        yield web


@pytest.fixture(scope="module")
def big_workbench(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workbench]:
    bench = start_workbench(tmp_path_factory.mktemp("big"), "127.0.0.1", "--max-pages", "2000")
    yield bench
    stop_workbench(bench)


READ = """() => {
  const cy = window.workbenchGraph, box = document.getElementById('graph').getBoundingClientRect();
  const nodes = cy.nodes().map((n) => ({ p: n.renderedPosition(), w: n.renderedWidth() }));
  const xs = nodes.map((n) => n.p.x), ys = nodes.map((n) => n.p.y);
  const near = nodes.map((a, i) => {  // the nearest other node's centre, in screen pixels
    let best = Infinity;
    for (let j = 0; j < nodes.length; j++) if (j !== i) {
      best = Math.min(best, Math.hypot(a.p.x - nodes[j].p.x, a.p.y - nodes[j].p.y));
    }
    return best;
  }).sort((a, b) => a - b);
  return { n: nodes.length, boxW: box.width, boxH: box.height, zoom: cy.zoom(),
           spanX: Math.max(...xs) - Math.min(...xs), spanY: Math.max(...ys) - Math.min(...ys),
           smallest: Math.min(...nodes.map((n) => n.w)), medianGap: near[Math.floor(near.length / 2)] };
}"""


def graph_figures(tab: Page) -> dict:
    tab.click("#zoom-fit")
    return tab.evaluate(READ)


@pytest.mark.parametrize("nodes", [200, 2000])
def test_the_graph_stays_readable_as_it_grows(browser: Browser, big_workbench: Workbench,
                                              tree_web: LoopbackWeb, nodes: int) -> None:
    pages = nodes // 10  # each visited page of the tree queues ten more
    tab = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        tab.goto(big_workbench.url)
        tab.fill("input[name=pages]", str(pages))
        assert run_until_over(tab, tree_web.url("127.0.8.4", "/"), timeout=240) == "done"
        tab.wait_for_timeout(300)
        for width in WIDTHS:
            tab.set_viewport_size({"width": width, "height": 900})
            seen = graph_figures(tab)
            assert nodes <= seen["n"] <= nodes + 10, seen
            # the tree fills the graph's box in both directions (not one row of dots) ...
            assert seen["spanX"] >= 0.5 * seen["boxW"] and seen["spanY"] >= 0.5 * seen["boxH"], seen
            # ... with every node drawn at least 3.5 px wide, and most further apart than that
            assert seen["smallest"] >= 3.5 and seen["medianGap"] >= seen["smallest"], seen
            shoot(tab, f"workbench-{nodes}-{width}px.png")
            tab.click("#zoom-in")
            closer = tab.evaluate(READ)
            assert closer["zoom"] > 1.5 * seen["zoom"] and closer["medianGap"] > 1.4 * seen["medianGap"]
            assert tab.evaluate("document.documentElement.scrollWidth") <= width
    finally:
        tab.close()


def test_the_legend_shows_the_graphs_own_colours(page: Page) -> None:
    pairs = page.evaluate("""() => {
      const cy = window.workbenchGraph, out = {};
      for (const kind of ["visited", "queued", "skipped", "failed"]) {
        const node = cy.add({ group: "nodes", data: { id: "legend-" + kind }, classes: kind });
        const swatch = getComputedStyle(document.querySelector("#legend ." + kind + " i"));
        out[kind] = [swatch.backgroundColor, node.style("background-color")];
        node.remove();
      }
      return out;
    }""")
    assert set(pairs) == {"visited", "queued", "skipped", "failed"}
    for kind, (swatch, node) in pairs.items():
        assert swatch.replace(" ", "") == node.replace(" ", ""), kind
    assert page.locator("#legend").inner_text().split("\n")[0] == "visited"


def test_the_page_fits_the_screen_and_the_outline_shows_whole_titles(page: Page) -> None:
    title = "A chapter with a long and descriptive title that names everything it is about, " * 2
    pages = {"/": html("Contents", "c", [("/long.html", "the long one")]),
             "/long.html": html(title.strip(), "x")}
    with LoopbackWeb([Site("127.0.8.3", pages)]) as web:
        assert run_until_over(page, web.url("127.0.8.3", "/")) == "done"
    width = page.viewport_size["width"]  # type: ignore[index]
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    entry = page.locator("#outline li.visited summary", has_text="A chapter")
    assert title.strip() in entry.inner_text()
    assert entry.evaluate("(e) => e.scrollWidth <= e.clientWidth + 1")  # nothing cut off
    box = entry.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width


@pytest.mark.parametrize("width", WIDTHS, ids=[f"{w}px" for w in WIDTHS])
def test_the_404_page_is_the_workbenchs_own(browser: Browser, workbench: Workbench, width: int) -> None:
    page = browser.new_page(viewport={"width": width, "height": 900})  # its 404 is the point
    answer = page.goto(workbench.url.rstrip("/") + "/no-such-page")
    assert answer is not None and answer.status == 404
    assert page.locator("header a").inner_text() == "Crawler Workbench"
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(252, 252, 250)"
    assert "Georgia" in page.evaluate("getComputedStyle(document.querySelector('h1')).fontFamily")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.close()
