"""Workbench responsiveness at 2,000 nodes: the live graph in headless Chromium during a crawl.

    python -m bench.workbench_graph [--pages 2000] [--json FILE]

A loopback site of `--pages` pages (a ten-way tree, each page also linking
back to its parent) is crawled from the workbench page, served in-process
(4 agents, no politeness delay), while Playwright drives Debian's Chromium.
During the crawl, every 200 ms, the bench asks the page's main thread for
the node count and times the answer (how long a click would wait), and the
page records the gaps between its animation frames. Reported: the crawl, the
nodes and edges drawn, and the median / 95th percentile / largest of both.
With --json FILE the result is written for `make bench-report` (BENCHMARKS.md).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from bench.common import publish, table
from tests.support.workbench_tab import tree_site
from webcrawler.demoweb.server import LoopbackWeb, Site
from webcrawler.query_server import ServerThread
from webcrawler.workbench.app import create_app

TITLE = "Workbench responsiveness (issue 14): the live graph at 2,000 nodes"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
FRAMES = """() => { window.__gaps = []; let last = performance.now();
  const f = (t) => { window.__gaps.push(t - last); last = t; requestAnimationFrame(f); };
  requestAnimationFrame(f); }"""


def measure(pages: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as data, \
            LoopbackWeb([Site("127.0.8.9", tree_site(pages))]) as web:
        app = create_app(Path(data), max_pages=pages, agents=4, delay=0.0,
                         private_hosts=("127.0.8.9",))
        try:
            with ServerThread(app, host="127.0.0.1", port=0, threads=8) as server:
                return drive(server.url, web.url("127.0.8.9", "/"), pages)
        finally:
            app.extensions["webcrawler.workbench"].close()


def drive(url: str, root: str, pages: int) -> dict[str, object]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            tab = browser.new_page(viewport={"width": 1400, "height": 1000})
            tab.goto(url)
            tab.fill("textarea[name=roots]", root)
            tab.fill("input[name=pages]", str(pages))
            tab.evaluate(FRAMES)
            started = time.monotonic()
            tab.click("#run")
            waits = []
            while time.monotonic() - started < 600:
                asked = time.monotonic()
                tab.evaluate("() => document.getElementById('c-nodes').textContent")
                waits.append((time.monotonic() - asked) * 1000)
                if tab.inner_text("#c-state") not in ("starting", "running"):
                    break
                time.sleep(0.2)
            seconds = time.monotonic() - started
            gaps = tab.evaluate("() => window.__gaps")
            counts = tab.evaluate("() => [document.getElementById('c-nodes').textContent, "
                                  "document.querySelectorAll('#outline li').length, window.workbenchTimes]")
        finally:
            browser.close()
    return {"seconds": seconds, "nodes": int(counts[0]), "outline": counts[1], "spent": counts[2],
            "waits": waits,
            "gaps": gaps[1:]}


def report(result: dict) -> str:
    def row(name: str, values: list[float]) -> list[object]:
        ordered = sorted(values)
        p95 = ordered[int(0.95 * (len(ordered) - 1))]
        return [name, len(values), f"{statistics.median(ordered):.0f}", f"{p95:.0f}", f"{ordered[-1]:.0f}"]

    spent = result["spent"]
    body = (f"Crawl of {result['nodes']:,} pages from the page: {result['seconds']:.1f} s; "
            f"{result['nodes']:,} graph nodes and {result['outline']:,} outline entries at the end. "
            f"The page spent {spent['apply'] / 1000:.1f} s applying events and "
            f"{spent['layout'] / 1000:.1f} s in {spent['layouts']} layouts.\n\n")
    return body + table(["measure (ms)", "samples", "median", "95th pct", "largest"],
                        [row("main-thread answer to the bench (a click's wait)", result["waits"]),
                         row("gap between animation frames", result["gaps"])])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", type=int, default=2000)
    parser.add_argument("--json", type=Path, default=None, help="also write the result here (bench/results/)")
    args = parser.parse_args()
    result = measure(args.pages)
    waits = sorted(result["waits"])
    p95 = waits[int(0.95 * (len(waits) - 1))] if waits else float("nan")
    publish(TITLE, report(result), args.json,
            headline=f"{result['nodes']:,} nodes: a click waits {statistics.median(waits):.0f} ms "
                     f"(median), {p95:.0f} ms (95th pct)",
            goal="the page stays responsive with the live graph at 2,000 nodes")


if __name__ == "__main__":
    main()
