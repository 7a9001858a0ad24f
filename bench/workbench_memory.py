"""Workbench memory after a crawl of a site with 3,000 links a page: within 50 MB of idle?

    python -m bench.workbench_memory [--pages 100] [--links 3000] [--json FILE]

A real `webcrawler workbench` process (4 agents, no politeness delay) crawls
`--pages` pages of a loopback site whose every page links to `--links` new others: the
site, not the workbench, chooses how many events the crawl makes (300,000 here).
The workbench's own resident memory (not its crawl's processes) is read idle, every
0.2 s during the crawl, and after the crawl once its whole event stream has been read
as a browser would. The goal: after the crawl, within 50 MB of idle.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import psutil

from bench.common import publish, table
from webcrawler.demoweb.server import LoopbackWeb, Page, Site
from webcrawler.web import processes

TITLE = "Workbench memory (issue 23): after a crawl of 3,000 links a page"
ADDRESS = "127.0.8.10"
GOAL_MB = 50.0


def site(links: int):
    def answer(path: str) -> Page | None:
        if path != "/" and not path.startswith("/p/"):
            return None
        name = path.removeprefix("/p/").strip("/") or "r"
        anchors = "".join(f'<a href="/p/{name}.{i}">{i}</a>' for i in range(links))
        return Page(f"<html><head><title>{path}</title></head><body>{anchors}</body></html>")
    return answer


def call(url: str, body: dict | None = None) -> dict:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method="POST" if data else "GET",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as answer:
        return json.loads(answer.read())


def rss_mb(pid: int) -> float:
    return psutil.Process(pid).memory_info().rss / 1e6


def measure(pages: int, links: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as data, LoopbackWeb([Site(ADDRESS, site(links))]) as web:
        command = [sys.executable, "-m", "webcrawler.cli", "workbench", "--data-dir", data,
                   "--port", "0", "--delay", "0", "--agents", "4", "--max-pages", str(pages),
                   "--allow-private-host", ADDRESS]
        process = processes.start(command, subprocess.DEVNULL)  # type: ignore[arg-type]
        try:
            assert process.stdout is not None
            url = process.stdout.readline().strip().removeprefix("Workbench at ")
            call(url + "api/crawls")
            time.sleep(1.0)
            idle = rss_mb(process.pid)
            started = call(url + "api/crawls", {"roots": [web.url(ADDRESS, "/")],
                                                "limits": {"pages": pages, "seconds": 600}})
            peak, began = idle, time.monotonic()
            while (view := call(url + started["status_url"].lstrip("/")))["state"] in ("running",
                                                                                       "stopping"):
                peak = max(peak, rss_mb(process.pid))
                time.sleep(0.2)
            seconds = time.monotonic() - began
            with urllib.request.urlopen(url + started["events_url"].lstrip("/"), timeout=600) as s:
                streamed = sum(1 for line in s if line.startswith(b"id: "))
            after = rss_mb(process.pid)
        finally:
            processes.end_group(process, 10)
    return {"idle": idle, "peak": peak, "after": after, "seconds": seconds, "view": view,
            "streamed": streamed, "pages": pages, "links": links}


def report(result: dict) -> str:
    view = result["view"]
    made = view["events"] + view["events_dropped"]
    body = (f"A crawl of {view['summary']['pages']} pages, each linking to {result['links']:,} "
            f"others, in {result['seconds']:.1f} s: {made:,} events, of which {view['events']:,} "
            f"kept in the crawl's folder (none in memory) and {view['events_dropped']:,} counted; "
            f"the event stream read back {result['streamed']:,}.\n\n")
    return body + table(["workbench RSS (MB)", "idle", "peak during the crawl", "after the crawl",
                         "after - idle"],
                        [["", f"{result['idle']:.1f}", f"{result['peak']:.1f}",
                          f"{result['after']:.1f}", f"{result['after'] - result['idle']:+.1f}"]])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", type=int, default=100)
    parser.add_argument("--links", type=int, default=3000)
    parser.add_argument("--json", type=Path, default=None, help="also write the result here (bench/results/)")
    args = parser.parse_args()
    result = measure(args.pages, args.links)
    grew = result["after"] - result["idle"]
    publish(TITLE, report(result), args.json,
            headline=f"+{grew:.1f} MB after the crawl ({result['idle']:.0f} MB idle)",
            goal=f"within {GOAL_MB:.0f} MB of idle after the crawl", met=grew <= GOAL_MB)


if __name__ == "__main__":
    main()
