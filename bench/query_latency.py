"""Query latency over HTTP on an index of 50,000 documents, with and without a writer.

    python -m bench.query_latency [--quick] [--docs 50000] [--rounds 3] [--queries 150]

The index is built directly with `webcrawler.index.open_writer` from
generated-web pages (webcrawler/testing/genweb.py: Zipf text around 2.5 KB a
page), in batches of 2,500 with a commit after each; it is kept in
/tmp/bench-cache between runs. `webcrawler serve` (waitress, 8 threads)
answers /api/search; one client sends the queries one after another and
times each answer. Alternating rounds: no writer, then a writer process that
adds 200 new documents and commits, over and over (a crawl writing at the
same time). Queries: single words of frequent, middling and rare rank, and
two-word queries.
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import re
import socket
import statistics
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

from bench.common import publish, table
from webcrawler.index import IndexedDocument, open_writer
from webcrawler.testing.genweb import GenWeb, vocabulary

CACHE = Path("/tmp/bench-cache")
WEBCRAWLER = Path(sys.executable).with_name("webcrawler")
WEB = GenWeb(servers=1000, pages_per_server=1000, page_bytes=2500)
TAG = re.compile(r"<[^>]+>")
BATCH = 2500


def document(number: int) -> IndexedDocument:
    server, page = number % WEB.servers, number // WEB.servers
    text = TAG.sub(" ", WEB.html(server, page).decode())
    return IndexedDocument(doc_id=number + 1, url=WEB.url(server, page), title=WEB.title(server, page),
                           text=text, host=f"{WEB.address(server)}:{WEB.port}")


def build(docs: int, minutes: float) -> tuple[Path, int, float]:
    """The cached index of `docs` documents: resumed where an earlier build stopped, and
    stopped after `minutes` (then it holds fewer). Returns (data dir, documents, build seconds)."""
    data = CACHE / f"query-{docs}"
    done = data / "built"
    if done.exists():
        count, seconds = done.read_text().split()
        return data, int(count), float(seconds)
    started = time.monotonic()
    with open_writer(data / "index") as writer:
        first = len(writer.doc_ids())
        spent = float((data / "spent").read_text()) if (data / "spent").exists() else 0.0
        while first < docs and time.monotonic() - started < minutes * 60:
            writer.add([document(n) for n in range(first, min(docs, first + BATCH))])
            writer.commit()
            first = min(docs, first + BATCH)
            (data / "spent").write_text(f"{spent + time.monotonic() - started:.1f}")
            print(f"indexed {first:,} of {docs:,}", file=sys.stderr, flush=True)
    seconds = spent + time.monotonic() - started
    if first >= docs:
        done.write_text(f"{first} {seconds:.1f}")
    return data, first, seconds


def write_forever(data: Path, first: int) -> None:
    """The concurrent writer: 200 new documents and a commit, until killed (at most 30 min)."""
    end = time.monotonic() + 1800
    number = first
    with open_writer(data / "index") as writer:
        while time.monotonic() < end:
            writer.add([document(n) for n in range(number, number + 200)])
            writer.commit()
            number += 200
            print(number - first, flush=True)


def queries(count: int) -> list[str]:
    words = vocabulary()
    rng = random.Random(1994)
    out = []
    for i in range(count):
        kind = i % 4
        if kind == 0:
            out.append(words[rng.randrange(0, 50)])  # frequent
        elif kind == 1:
            out.append(words[rng.randrange(200, 2000)])  # middling
        elif kind == 2:
            out.append(words[rng.randrange(5000, 20000)])  # rare
        else:
            out.append(f"{words[rng.randrange(20, 500)]} {words[rng.randrange(100, 3000)]}")
    return out


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


ERRORS: dict[str, int] = {}


def measure(port: int, qs: list[str], label: str = "warm-up") -> list[float]:
    """Milliseconds per answer; answers that are not 200 with results JSON are counted in ERRORS."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
    times = []
    try:
        for q in qs:
            started = time.perf_counter()
            conn.request("GET", "/api/search?" + urllib.parse.urlencode({"q": q}))
            response = conn.getresponse()
            body = response.read()
            times.append((time.perf_counter() - started) * 1000)
            if response.status != 200 or "total" not in json.loads(body):
                ERRORS[label] = ERRORS.get(label, 0) + 1
                print(f"bad answer to {q!r}: {response.status} {body[:100]!r}", file=sys.stderr)
    finally:
        conn.close()
    return times


def wait_for(port: int, timeout: float = 60) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("the query server did not start")


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5,000 documents, 1 round")
    parser.add_argument("--docs", type=int, default=50_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--queries", type=int, default=150)
    parser.add_argument("--build-minutes", type=float, default=60.0,
                        help="stop building after this long and measure the index as it is")
    parser.add_argument("--no-append", action="store_true")
    parser.add_argument("--writer", nargs=2, metavar=("DATA", "FIRST"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.writer:
        write_forever(Path(args.writer[0]), int(args.writer[1]))
        return ""
    if args.quick:
        args.docs, args.rounds = 5_000, 1
    data, indexed, build_seconds = build(args.docs, args.build_minutes)
    port = free_port()
    server = subprocess.Popen([str(WEBCRAWLER), "serve", "--data-dir", str(data), "--port", str(port),
                               "--threads", "8"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    qs = queries(args.queries)
    results: dict[str, list[float]] = {"no writer": [], "writer committing": []}
    written: list[float] = []
    try:
        wait_for(port)
        measure(port, qs[:4])  # warm up: open the searcher, fill the OS cache
        for number in range(args.rounds):
            results["no writer"] += measure(port, qs, "no writer")
            first = 10_000_000 + number * 1_000_000
            writer = subprocess.Popen([sys.executable, "-m", "bench.query_latency", "--writer", str(data),
                                       str(first)], stdout=subprocess.PIPE, text=True)
            assert writer.stdout is not None
            writer.stdout.readline()  # its first commit: from here on it is writing
            started = time.monotonic()
            results["writer committing"] += measure(port, qs, "writer committing")
            elapsed = time.monotonic() - started
            writer.terminate()
            out, _ = writer.communicate(timeout=60)
            counts = [int(x) for x in out.split()]
            written.append((counts[-1] if counts else 0) / elapsed)
            print(f"round {number + 1} done", file=sys.stderr, flush=True)
    finally:
        server.terminate()
        server.wait(30)
    rows = [[name, len(t), statistics.median(t), percentile(t, 99), max(t), ERRORS.get(name, 0)]
            for name, t in results.items()]
    short = f" (of the {args.docs:,} asked: the build was stopped)" if indexed < args.docs else ""
    body = (f"Index: {indexed:,} generated-web documents{short} built with open_writer in "
            f"{build_seconds:,.0f} s "
            f"(text around 2.5 KB a page, batches of {BATCH:,}, a commit after each), "
            "served by `webcrawler serve` (waitress, 8 threads); "
            f"{args.rounds} alternating rounds of {args.queries} queries from one client, one at a time. "
            f"The writer added about {statistics.median(written) if written else 0:.0f} documents/s "
            "(200 per commit) while measured.\n\n"
            + table(["condition", "queries", "p50 ms", "p99 ms", "max ms", "answers not 200"], rows))
    return publish(f"Query latency over HTTP, {indexed:,} documents", body, append=not args.no_append)


if __name__ == "__main__":
    main()
