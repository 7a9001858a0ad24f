"""The store's hot path and a small crawl, on SQLite and on PostgreSQL.

    python -m bench.databases [--docs 3000] [--rounds 3] [--postgres] [--json FILE]

Two figures per database, medians over the rounds:

- store: documents/s through `CrawlStore` alone, each document as the crawl
  handles it (next document, record the fetch, 10 URLs found of which 5 new,
  10 links, its text for the index, a commit every 200): no HTTP, no index.
- crawl: pages/s of `run_index` (agents, parsing, store, index) over a loopback
  web of 4 sites of 60 pages, politeness off.

SQLite runs on a file in a temporary directory; `--postgres` adds a throwaway
PostgreSQL cluster (tests.support.postgres), fsync off as in the tests.
To compare SQLite before and after a change, run the same command with
PYTHONPATH pointing at the other tree (this module imports nothing newer than
the store for SQLite).
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import tempfile
import time
from pathlib import Path

from bench.common import publish
from webcrawler.commands.index import run_index
from webcrawler.database.schema import connect
from webcrawler.database.states import State
from webcrawler.demoweb.server import LoopbackWeb, Site, html
from webcrawler.engine.store.sql import CrawlStore, NewURL
from webcrawler.settings import Settings

SITES, PAGES = 4, 60


def store_rate(url: str, docs: int) -> float:
    """Documents per second through the store's per-document statements."""
    engine = connect(url)
    store = CrawlStore(engine)
    try:
        server = store.add_server("http://127.0.4.99:8080", now=1.0)
        store.add_urls(server, [NewURL("/0", 0)], now=1.0)
        start = time.perf_counter()
        for n in range(docs):
            entry = store.next_document(server)
            assert entry is not None
            store.record_fetch(entry, State.FETCHED, f"sum{n}", time.time(), status=200,
                               title=f"page {n}", length=1000)
            found = [NewURL(f"/{n * 5 + k}", entry.depth + 1) for k in range(10)]
            ids, _ = store.add_urls(server, found, now=time.time())
            store.add_links(entry.doc_id, [(i, "anchor text") for i in ids.values()])
            store.outbox_put(entry.doc_id, 1, b"x" * 800)
            if n % 200 == 199:
                store.commit()
        store.commit()
        return docs / (time.perf_counter() - start)
    finally:
        store.close()
        engine.dispose()


def crawl_rate(url: str, data_dir: Path) -> float:
    """Pages per second of a whole in-process crawl of the loopback web."""
    sites = [Site(f"127.0.4.{110 + s}", _site_pages(s)) for s in range(SITES)]
    with LoopbackWeb(sites) as web:
        seeds = tuple(web.url(f"127.0.4.{110 + s}", "/") for s in range(SITES))
        settings = Settings(data_dir=data_dir, db_url=url, agents=4, delay=0.0, hours=0.1,
                            progress_interval=60.0, seeds=seeds)
        start = time.perf_counter()
        summary, _ = run_index(dataclasses.replace(settings), progress=False)
        seconds = time.perf_counter() - start
    assert f"documents retrieved  {SITES * (PAGES + 1)}" in summary, summary
    return SITES * (PAGES + 1) / seconds


def _site_pages(site: int) -> dict:
    pages = {"/": html(f"site {site}", "home", [(f"/p{i}", f"page {i}") for i in range(PAGES)])}
    for i in range(PAGES):
        words = " ".join(f"word{(i * 7 + k) % 97}" for k in range(150))
        pages[f"/p{i}"] = html(f"site {site} page {i}", words,
                               [("/", "home"), (f"/p{(i + 1) % PAGES}", "next")])
    return pages


def measure(name: str, new_url, docs: int, rounds: int) -> list[str]:  # type: ignore[no-untyped-def]
    stores, crawls = [], []
    for _ in range(rounds):
        with tempfile.TemporaryDirectory(prefix="bench-db-") as tmp:
            stores.append(store_rate(new_url(Path(tmp)), docs))
        with tempfile.TemporaryDirectory(prefix="bench-db-") as tmp:
            crawls.append(crawl_rate(new_url(Path(tmp)), Path(tmp) / "data"))
    return [f"| {name} | {statistics.median(stores):,.0f} | "
            f"{', '.join(f'{r:,.0f}' for r in stores)} | {statistics.median(crawls):.1f} | "
            f"{', '.join(f'{r:.1f}' for r in crawls)} |"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--postgres", action="store_true", help="also on a throwaway PostgreSQL")
    parser.add_argument("--json", type=Path, default=None, help="also write the result here (bench/results/)")
    args = parser.parse_args()
    lines = ["| database | store documents/s (median) | each round | crawl pages/s (median) "
             "| each round |", "|---|---|---|---|---|"]
    lines += measure("SQLite", lambda tmp: f"sqlite:///{tmp / 'webcrawler.db'}", args.docs,
                     args.rounds)
    if args.postgres:
        from tests.support.postgres import Cluster, find_binaries

        bindir = find_binaries()
        if bindir is None:
            raise SystemExit("PostgreSQL is not installed (initdb, pg_ctl)")
        with Cluster(bindir, Path(tempfile.mkdtemp(prefix="bench-pg-"))) as cluster:
            lines += measure("PostgreSQL 15 (unix socket, fsync off)",
                             lambda _tmp: cluster.new_database(), args.docs, args.rounds)
    publish("Databases (issue 15): SQLite and PostgreSQL, the store's hot path and a small crawl",
            "\n".join(lines), args.json,
            headline="store documents/s, crawl pages/s: " + "; ".join(
                f"{cells[0].split(' (')[0]} {cells[1]}, {cells[3]}"
                for cells in (line.strip("| ").split(" | ") for line in lines[2:])),
            goal="PostgreSQL works; what one engine's store carries on each")


if __name__ == "__main__":
    main()
