"""Toolkit overhead: a personal crawl with trivial callbacks against `webcrawler index`.

    python -m bench.toolkit_overhead [--sites 8] [--pages 60] [--rounds 2] [--json FILE]

Both crawl the same generated loopback web (a hub linking to `--sites`
sites of `--pages` pages, each page linking to five others of its site),
served from this process, with the same engine settings (4 agents, no
politeness delay, robots.txt on). `webcrawler index` stores and indexes every
page; the toolkit crawl classifies each page (StandardClassifier), offers
every link to a `should_visit` that says yes, and a `visit` that does
nothing. Pages/s is pages over wall time from start to summary. Rounds
alternate, so load on the shared machine hits both alike; medians are
reported. With --json FILE the result is written for `make bench-report` (BENCHMARKS.md).
"""

from __future__ import annotations

import argparse
import dataclasses
import tempfile
import time
from pathlib import Path

from bench.common import median, publish, table
from webcrawler.commands.index import run_index
from webcrawler.demoweb.server import LoopbackWeb, Site, html
from webcrawler.settings import Settings
from webcrawler.toolkit import Crawler, Link, Page

TITLE = "Toolkit overhead (issue 13): a toolkit crawl against `webcrawler index`"


def site_pages(number: int, pages: int) -> dict:
    words = " ".join(f"word{(number * 7 + i) % 97} text" for i in range(60))
    out = {}
    for i in range(pages):
        links = [(f"/p{(i * 3 + k) % pages}", f"page {k}") for k in range(1, 6)]
        out["/" if i == 0 else f"/p{i}"] = html(f"site {number} page {i}", words, links)
    return out


def web(sites: int, pages: int) -> LoopbackWeb:
    hub: dict = {}
    listed = [Site("127.0.7.1", hub)] + [Site(f"127.0.7.{10 + n}", site_pages(n, pages))
                                         for n in range(sites)]
    served = LoopbackWeb(listed)
    hub["/"] = html("hub", "the root", [(served.url(f"127.0.7.{10 + n}", "/"), f"site {n}")
                                        for n in range(sites)])
    return served


class Trivial(Crawler):
    def should_visit(self, link: Link) -> bool:
        return True

    def visit(self, page: Page) -> None:
        pass


def index_round(settings: Settings, root: str) -> tuple[int, float]:
    started = time.monotonic()
    run_index(dataclasses.replace(settings, seeds=(root,)), progress=False)
    seconds = time.monotonic() - started
    return _retrieved(settings), seconds


def _retrieved(settings: Settings) -> int:
    from sqlalchemy import func, select

    from webcrawler.database.schema import connect, documents
    from webcrawler.database.states import State
    engine = connect(settings.database_url)
    try:
        with engine.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(documents)
                                    .where(documents.c.state == State.FETCHED)).scalar() or 0)
    finally:
        engine.dispose()


def toolkit_round(settings: Settings, root: str) -> tuple[int, float]:
    started = time.monotonic()
    summary = Trivial(roots=[root], settings=settings).run()
    return summary.pages, time.monotonic() - started


def measure(sites: int, pages: int, rounds: int) -> dict[str, list[tuple[int, float]]]:
    results: dict[str, list[tuple[int, float]]] = {"webcrawler index": [], "toolkit crawl": []}
    with web(sites, pages) as served, tempfile.TemporaryDirectory() as tmp:
        root = served.url("127.0.7.1", "/")
        for n in range(rounds):
            for name, runner in (("webcrawler index", index_round), ("toolkit crawl", toolkit_round)):
                settings = Settings(data_dir=Path(tmp) / f"{name[:7]}{n}", agents=4, delay=0.0,
                                    hours=0.2, progress_interval=60.0)
                results[name].append(runner(settings, root))
                print(f"round {n + 1}: {name}: {results[name][-1][0]} pages in "
                      f"{results[name][-1][1]:.2f} s", flush=True)
    return results


def report(results: dict[str, list[tuple[int, float]]]) -> tuple[str, float]:
    rates = {name: median([p / s for p, s in runs]) for name, runs in results.items()}
    rows = [[name, runs[0][0], " / ".join(f"{p / s:.1f}" for p, s in runs), f"{rates[name]:.1f}"]
            for name, runs in results.items()]
    ratio = rates["toolkit crawl"] / rates["webcrawler index"]
    body = table(["contender", "pages", "pages/s each round", "pages/s (median)"], rows)
    return body + f"\n\nToolkit / index: **{ratio:.0%}** (goal: at least 90%).\n", ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sites", type=int, default=8)
    parser.add_argument("--pages", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--json", type=Path, default=None, help="also write the result here (bench/results/)")
    args = parser.parse_args()
    body, ratio = report(measure(args.sites, args.pages, args.rounds))
    publish(TITLE, body, args.json, headline=f"toolkit / index: {ratio:.0%} of the pages/s",
            goal="at least 90%", met=ratio >= 0.9)


if __name__ == "__main__":
    main()
