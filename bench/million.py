"""A generated index of a million documents: build time, peak memory, query latency with facets.

    python -m bench.million [--docs 1000000] [--batch 5000] [--queries 300] [--json FILE]

The documents are generated-web pages (webcrawler/testing/genweb.py: Zipf vocabulary,
log-normal sizes around 2.5 KB with a long tail, 1,000 servers), written by the real
writer (`open_writer`, a commit every `--batch`, its tiered merges), the language of each
detected as the engine's writer does. Peak memory is the building process's anonymous
memory (RssAnon in /proc/self/status, sampled after every commit: the memory-mapped
segment files are not counted, the page cache holds them). Then `webcrawler serve`
answers /api/search, whose answers carry the site, type and language facets counted
over every match, one query at a time from one client (the query stream of
bench/query_latency.py): first alone, then while a writer process adds 200 documents
and commits, over and over. Goal: p50 <= 10 ms and p99 <= 20 ms. Nothing is kept: the
index is built in a temporary directory (`--keep DIR` keeps it there instead).
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.common import publish, table
from bench.query_latency import (
    WEBCRAWLER,
    document,
    free_port,
    measure,
    percentile,
    query_stream,
    wait_for,
)
from webcrawler.index import open_writer


def anonymous_kib(pid: str = "self") -> int:
    """A process's anonymous resident memory (RssAnon), in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("RssAnon:"):
            return int(line.split()[1])
    return 0


def build(index_dir: Path, docs: int, batch: int) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds, peak anonymous KiB) of writing `docs` documents."""
    started, cpu, peak = time.monotonic(), time.process_time(), anonymous_kib()
    with open_writer(index_dir) as writer:
        for first in range(0, docs, batch):
            writer.add([document(n) for n in range(first, min(docs, first + batch))])
            writer.commit()
            peak = max(peak, anonymous_kib())
            print(f"indexed {min(docs, first + batch):,} of {docs:,} "
                  f"({time.monotonic() - started:,.0f} s)", file=sys.stderr, flush=True)
    return time.monotonic() - started, time.process_time() - cpu, max(peak, anonymous_kib())


def latency(data: Path, docs: int, queries: int, writer_seconds: float) -> tuple[dict, int, float]:
    """({condition: [ms, ...]}, the server's anonymous KiB after, documents/s the writer added)."""
    port = free_port()
    log = (data / "serve.log").open("w")
    server = subprocess.Popen([str(WEBCRAWLER), "serve", "--data-dir", str(data), "--port", str(port),
                               "--threads", "8"], stdout=subprocess.DEVNULL, stderr=log)
    stream = query_stream()
    results: dict[str, list[float]] = {}
    try:
        wait_for(port, timeout=300)
        measure(port, ["warm", "up the", "searcher"])
        results["no writer"] = measure(port, itertools.islice(stream, queries), "no writer")
        writer = subprocess.Popen([sys.executable, "-m", "bench.query_latency", "--writer", str(data),
                                   str(docs + 1_000_000)], stdout=subprocess.PIPE, text=True)
        assert writer.stdout is not None
        before = int(writer.stdout.readline())
        started = time.monotonic()
        busy = itertools.takewhile(lambda _q: time.monotonic() < started + writer_seconds, stream)
        results["writer committing"] = measure(
            port, itertools.chain(itertools.islice(stream, queries), busy), "writer committing")
        elapsed = time.monotonic() - started
        writer.terminate()
        out, _ = writer.communicate(timeout=120)
        counts = [int(x) for x in out.split()]
        rate = ((counts[-1] if counts else before) - before) / elapsed
        memory = anonymous_kib(str(server.pid))
    finally:
        server.terminate()
        server.wait(60)
        log.close()
    return results, memory, rate


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=1_000_000)
    parser.add_argument("--batch", type=int, default=5_000, help="documents per commit")
    parser.add_argument("--queries", type=int, default=300, help="queries per condition (at least)")
    parser.add_argument("--writer-seconds", type=float, default=30.0)
    parser.add_argument("--keep", type=Path, default=None, help="build the index here and keep it")
    parser.add_argument("--json", type=Path, default=None, help="also write the result here")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        data = args.keep or Path(tmp)
        seconds, cpu, peak = build(data / "index", args.docs, args.batch)
        segments = len(list((data / "index").glob("*.seg")))
        size = sum(p.stat().st_size for p in (data / "index").iterdir())
        results, served, rate = latency(data, args.docs, args.queries, args.writer_seconds)
    rows = [[name, len(t), statistics.median(t), percentile(t, 99), max(t)] for name, t in results.items()]
    body = (f"Index: {args.docs:,} generated-web documents written by open_writer in {seconds:,.0f} s "
            f"({cpu:,.0f} CPU s, {args.docs / max(cpu, 1e-9):,.0f} documents per CPU second; "
            f"commits of {args.batch:,}), {segments} segments, {size / 2**30:.2f} GiB; the builder's "
            f"peak anonymous memory {peak / 1024:,.0f} MiB (RssAnon, mapped segments apart); the "
            f"server's after the queries {served / 1024:,.0f} MiB. `webcrawler serve` (waitress, 8 "
            f"threads), one client, one query at a time, answers with facets; the writer added "
            f"about {rate:,.0f} documents/s in commits of 200.\n\n"
            + table(["condition", "queries", "p50 ms", "p99 ms", "max ms"], rows))
    quiet, busy = results["no writer"], results["writer committing"]
    worst = max(percentile(quiet, 99), percentile(busy, 99))
    return publish(f"A million documents (run at {args.docs:,})", body, args.json,
                   headline=f"{args.docs:,} documents: built in {seconds:,.0f} s, peak "
                            f"{peak / 1024:,.0f} MiB anonymous; p50 {statistics.median(quiet):.1f} ms, "
                            f"p99 {percentile(quiet, 99):.1f} ms (writer committing: "
                            f"{statistics.median(busy):.1f} / {percentile(busy, 99):.1f} ms)",
                   goal="1,000,000 documents; p50 <= 10 ms, p99 <= 20 ms over HTTP with facets",
                   met=args.docs >= 1_000_000 and max(statistics.median(quiet),
                                                      statistics.median(busy)) <= 10 and worst <= 20)


if __name__ == "__main__":
    main()
