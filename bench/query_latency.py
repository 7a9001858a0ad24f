"""Query latency over HTTP on an index of 50,000 documents, with and without a writer.

    python -m bench.query_latency [--quick] [--docs 50000] [--rounds 3] [--queries 150] [--json FILE]

The index is built directly with `webcrawler.index.writing.writer.open_writer` from
generated-web pages (tests/support/genweb.py: Zipf text around 2.5 KB a
page), in batches of 2,500 with a commit after each; it is kept in
/tmp/bench-cache between runs, and each run measures a copy. `webcrawler serve` (waitress, 8 threads)
answers /api/search; one client sends the queries one after another and
times each answer. Alternating rounds: no writer, then a writer process that
adds 200 new documents and commits, over and over (a crawl writing at the
same time), for at least `--writer-seconds`. Queries: single words of
frequent, middling and rare rank, and two-word queries, from one stream, so a
query reaches the server's result cache only when the stream repeats it.
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import json
import random
import re
import shutil
import socket
import statistics
import subprocess
import sys
import time
import urllib.parse
from collections.abc import Iterable, Iterator
from pathlib import Path

from bench.common import publish, table
from tests.support.genweb import GenWeb, vocabulary
from webcrawler.engine.pipeline.index_sink import COMMIT_PACE, lower_priority
from webcrawler.index import IndexedDocument, open_writer
from webcrawler.index.format.analysis import STOP_WORDS

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


def write_forever(data: Path, first: int, as_crawl: bool = False) -> None:
    """The concurrent writer: 200 new documents and a commit, until killed (at most 30 min).
    `as_crawl`: as a crawl's index writer writes (engine/pipeline/index_sink.py): at its
    niceness, and a commit at most every COMMIT_PACE seconds (200 documents at a time)."""
    end = time.monotonic() + 1800
    number, committed = first, float("-inf")
    pace = COMMIT_PACE if as_crawl else 0.0
    if as_crawl:
        lower_priority()
    with open_writer(data / "index") as writer:
        while time.monotonic() < end:
            writer.add([document(n) for n in range(number, number + 200)])
            number += 200
            if time.monotonic() - committed >= pace:
                writer.commit()
                committed = time.monotonic()
                print(number - first, flush=True)


def query_stream() -> Iterator[str]:
    """One fixed stream of queries, kinds in turn: frequent, middling and rare single
    words, and two words. A query repeats an earlier one only by chance, as users' do."""
    words = vocabulary()
    rng = random.Random(1994)

    def pick(low: int, high: int) -> str:  # a stop word alone would be a 400
        while (word := words[rng.randrange(low, high)]) in STOP_WORDS:
            pass
        return word

    for i in itertools.count():
        kind = i % 4
        if kind == 0:
            yield pick(0, 50)  # frequent
        elif kind == 1:
            yield pick(200, 2000)  # middling
        elif kind == 2:
            yield pick(5000, 20000)  # rare
        else:
            yield f"{pick(20, 500)} {pick(100, 3000)}"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


ERRORS: dict[str, int] = {}


def measure(port: int, qs: Iterable[str], label: str = "warm-up") -> list[float]:
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
    parser.add_argument("--writer-seconds", type=float, default=20.0,
                        help="measure at least this long in each round with the writer")
    parser.add_argument("--build-minutes", type=float, default=60.0,
                        help="stop building after this long and measure the index as it is")
    parser.add_argument("--json", type=Path, default=None, help="also write the result here (bench/results/)")
    parser.add_argument("--writer", nargs=2, metavar=("DATA", "FIRST"), help=argparse.SUPPRESS)
    parser.add_argument("--as-crawl", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.writer:
        write_forever(Path(args.writer[0]), int(args.writer[1]), args.as_crawl)
        return ""
    if args.quick:
        args.docs, args.rounds = 5_000, 1
    cached, indexed, build_seconds = build(args.docs, args.build_minutes)
    data = CACHE / "query-run"  # a copy: the writer rounds add to it
    shutil.rmtree(data, ignore_errors=True)
    shutil.copytree(cached, data)
    segments = len(list((data / "index").glob("*.seg")))
    port = free_port()
    server_log = (data / "serve.log").open("w")  # a file, not a pipe nobody reads (it would fill)
    server = subprocess.Popen([str(WEBCRAWLER), "serve", "--data-dir", str(data), "--port", str(port),
                               "--threads", "8"], stdout=subprocess.DEVNULL, stderr=server_log)
    stream = query_stream()
    results: dict[str, list[float]] = {"no writer": [], "writer committing": []}
    written: list[float] = []
    commits = 0
    try:
        wait_for(port)
        measure(port, ["warm", "up the", "searcher"])  # open the searcher, fill the OS cache
        for number in range(args.rounds):
            results["no writer"] += measure(port, itertools.islice(stream, args.queries), "no writer")
            first = 10_000_000 + number * 1_000_000
            writer = subprocess.Popen([sys.executable, "-m", "bench.query_latency", "--writer", str(data),
                                       str(first)], stdout=subprocess.PIPE, text=True)
            assert writer.stdout is not None
            before = int(writer.stdout.readline())  # its first commit: from here on it is writing
            started = time.monotonic()
            until = started + args.writer_seconds
            # At least `--queries`, and for at least `--writer-seconds`: several commits.
            busy = itertools.takewhile(lambda _q, until=until: time.monotonic() < until, stream)
            results["writer committing"] += measure(
                port, itertools.chain(itertools.islice(stream, args.queries), busy), "writer committing"
            )
            elapsed = time.monotonic() - started
            writer.terminate()
            out, _ = writer.communicate(timeout=60)
            counts = [int(x) for x in out.split()]
            commits += len(counts)
            written.append(((counts[-1] if counts else before) - before) / elapsed)
            print(f"round {number + 1} done", file=sys.stderr, flush=True)
    finally:
        server.terminate()
        server.wait(30)
        server_log.close()
        if ERRORS:
            print(f"answers not 200: see {data / 'serve.log'}", file=sys.stderr)
        else:
            shutil.rmtree(data, ignore_errors=True)
    rows = [[name, len(t), statistics.median(t), percentile(t, 99), max(t), ERRORS.get(name, 0)]
            for name, t in results.items()]
    short = f" (of the {args.docs:,} asked: the build was stopped)" if indexed < args.docs else ""
    body = (f"Index: {indexed:,} generated-web documents{short} built with open_writer in "
            f"{build_seconds:,.0f} s into {segments} segments "
            f"(text around 2.5 KB a page, batches of {BATCH:,}, a commit after each), "
            "served by `webcrawler serve` (waitress, 8 threads); "
            f"{args.rounds} alternating rounds from one client, one query at a time, each query "
            f"new to the server unless the stream repeats it: {args.queries} queries with no "
            f"writer, then at least {args.queries} and {args.writer_seconds:.0f} s while a writer "
            f"added about {statistics.median(written) if written else 0:.0f} documents/s "
            f"({commits} commits of 200 measured in all).\n\n"
            + table(["condition", "queries", "p50 ms", "p99 ms", "max ms", "answers not 200"], rows))
    quiet, busy = results["no writer"], results["writer committing"]
    p50, p99 = statistics.median(quiet), percentile(quiet, 99)
    return publish(f"Query latency over HTTP, {indexed:,} documents", body, args.json,
                   headline=f"{indexed:,} documents: p50 {p50:.1f} ms, p99 {p99:.1f} ms "
                            f"(writer committing: {statistics.median(busy):.1f} / "
                            f"{percentile(busy, 99):.1f} ms)",
                   goal="p50 <= 10 ms, p99 <= 50 ms at >= 50,000 documents",
                   met=indexed >= 50_000 and p50 <= 10 and p99 <= 50)


if __name__ == "__main__":
    main()
