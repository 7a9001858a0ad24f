"""Index shards (issue 15): indexing documents/s with 1 and 2 shard writers, and query
latency on one index against the same documents in 2 shards.

    python -m bench.shards [--docs 6000] [--queries 400]

Documents: generated-web pages (`bench.query_latency.document`: Zipf text around
2.5 KB a page). They are written once to a SQLite outbox, as a crawl leaves them
(batches of 200, `index_outbox`), and copied for each run. Indexing: S `webcrawler
index-writer --shards S --until-empty` processes drain the copy at once; the figure
is documents over the wall time from start until the last writer ends, and the
writers' CPU seconds (S = 1 is the one-index layout, written by the same loop). Query
latency: in-process, result cache off, one stream of single and two-word queries
(`bench.query_latency.query_stream`), alternating between the one index and the
sharded one searched in parallel threads and in turn. The machine is shared: compare
rows of one run, not runs.
"""

from __future__ import annotations

import argparse
import itertools
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.common import median, publish, table
from bench.query_latency import WEBCRAWLER, document, percentile, query_stream
from webcrawler.database.schema import connect
from webcrawler.engine.pipeline.outbox import pack
from webcrawler.engine.store.sql import CrawlStore
from webcrawler.index import QueryError, open_searcher

BATCH = 200  # documents per outbox batch, as the crawl commits them


def fill_outbox(data: Path, docs: int) -> None:
    """A data directory whose outbox holds `docs` documents waiting for the index."""
    engine = connect(f"sqlite:///{data / 'webcrawler.db'}")
    store = CrawlStore(engine)
    try:
        for number in range(docs):
            doc = document(number)
            store.outbox_put(doc.doc_id, number // BATCH + 1, pack(doc))
            if number % BATCH == BATCH - 1:
                store.conn.commit()
        store.conn.commit()
    finally:
        store.close()
        engine.dispose()


def index_with(template: Path, work: Path, shards: int) -> tuple[Path, float, float]:
    """Drain a copy of `template` with `shards` writers: (data dir, wall s, writers' CPU s)."""
    data = work / f"shards-{shards}"
    shutil.copytree(template, data)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    writers = [subprocess.Popen([str(WEBCRAWLER), "index-writer", "--shard", str(k), "--shards",
                                 str(shards), "--until-empty", "--no-progress", "--data-dir", str(data)],
                                stdout=subprocess.PIPE, text=True) for k in range(shards)]
    for writer in writers:
        out, _ = writer.communicate(timeout=3600)
        if writer.returncode:
            raise SystemExit(f"index-writer failed: {out}")
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return data, wall, cpu


def latencies(indexes: dict[str, tuple[Path, dict]], queries: int) -> dict[str, list[float]]:
    """ms per query on each index, the same queries, alternating (result cache off)."""
    times: dict[str, list[float]] = {name: [] for name in indexes}
    searchers = {name: open_searcher(path, cache_queries=0, **options)
                 for name, (path, options) in indexes.items()}
    try:
        for query in itertools.islice(query_stream(), queries):
            for name, searcher in searchers.items():
                try:
                    times[name].append(searcher.search(query).took_ms)
                except QueryError:
                    pass
    finally:
        for searcher in searchers.values():
            searcher.close()
    return times


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=6000)
    parser.add_argument("--queries", type=int, default=400)
    parser.add_argument("--json", type=Path, default=None, help="also write the result here (bench/results/)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-shards-") as tmp:
        work = Path(tmp)
        template = work / "outbox"
        template.mkdir()
        fill_outbox(template, args.docs)
        rows, indexes = [], {}
        for shards in (1, 2):
            data, wall, cpu = index_with(template, work, shards)
            rows.append((shards, args.docs, wall, args.docs / wall, cpu, args.docs / cpu))
            if shards == 1:
                indexes["one index"] = (data / "index", {})
            else:
                indexes[f"{shards} shards, in parallel"] = (data / "index", {"parallel": True})
                indexes[f"{shards} shards, in turn"] = (data / "index", {"parallel": False})
        times = latencies(indexes, args.queries)
    body = (f"{args.docs:,} generated-web documents (about 2.5 KB of text each) from a SQLite "
            "outbox, drained by `webcrawler index-writer` processes:\n\n"
            + table(["writers (shards)", "documents", "wall s", "documents/s", "writers' CPU s",
                     "documents per CPU s"], rows)
            + f"\n\nQuery latency in-process, result cache off, {args.queries} queries (single and "
            "two words), alternating:\n\n"
            + table(["index", "queries", "p50 ms", "p99 ms", "mean ms"],
                    [(name, len(t), median(t), percentile(t, 99), sum(t) / max(len(t), 1))
                     for name, t in times.items()]))
    per_cpu = " / ".join(f"{row[5]:.0f}" for row in rows)
    return publish("Index shards (issue 15): 1 and 2 writers, query latency", body, args.json,
                   headline=f"{per_cpu} documents per CPU s (1 / 2 writers); query p50 "
                            + ", ".join(f"{name} {median(t):.1f}" for name, t in times.items()) + " ms",
                   goal="S writers index about S times one's documents/s on S free cores")


if __name__ == "__main__":
    main(sys.argv[1:])
