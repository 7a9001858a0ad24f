"""Autocomplete latency over HTTP: /api/suggest as a person types the judged queries.

The index of the test web's documentation sites (bench/quality.py's) is served by
`webcrawler serve` (waitress, 8 threads) in its own process; one client sends every
prefix of each judged query as it would be typed (a letter at a time, up to 24
characters), one request at a time, after a warm-up that builds the vocabulary. The
goal: p99 at most 10 ms.

    python -m bench.suggest_latency [--requests 3000] [--json bench/results/suggest_latency.json]

Needs the documentation packages (`bash /work/shared/testweb/testweb.sh install`).
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import random
import subprocess
import sys
import tempfile
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

from bench import quality
from bench.common import publish, table
from bench.query_latency import free_port, percentile, wait_for

WEBCRAWLER = Path(sys.executable).with_name("webcrawler")
TYPED = 24  # characters of a query typed at most


def prefixes(queries: list[tuple[str, str, set[str]]], count: int) -> list[str]:
    """Every prefix of the queries as typed, in typing order, query by query (seeded)."""
    typed = [q[:i] for _s, q, _l in queries for i in range(1, min(len(q), TYPED) + 1)]
    start = random.Random(quality.SEED).randrange(max(1, len(typed) - count))
    return typed[start : start + count]


def measure(port: int, texts: list[str], route: str = "/api/suggest", key: str = "suggestions",
            **params: object) -> tuple[list[float], int]:
    """(milliseconds per answer, answers that were neither `key` nor a one-line error) for
    `route?q=TEXT`."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    times, bad = [], 0
    params = params or {"n": 8}
    try:
        for text in texts:
            started = time.perf_counter()
            conn.request("GET", route + "?" + urllib.parse.urlencode({"q": text, **params}))
            response = conn.getresponse()
            body = response.read()
            times.append((time.perf_counter() - started) * 1000)
            if not _answered(response.status, json.loads(body), key):
                bad += 1
    finally:
        conn.close()
    return times, bad


def _answered(status: int, answer: dict, key: str) -> bool:
    """An answer with `key`, or the one-line error a query that cannot be answered gets
    (a query of stop words only, say)."""
    return (status == 200 and key in answer) or (400 <= status < 500 and "error" in answer)


def test_web_documents() -> list:
    """The test web's documentation pages as bench.quality parses them."""
    return [d for i, (site, p) in enumerate(quality.pages(), 1) if (d := quality.parse_page(i, site, p))]


@contextlib.contextmanager
def served(docs: list) -> Iterator[int]:
    """`docs` indexed in a temporary data directory and served by `webcrawler serve` (waitress,
    8 threads) in its own process: yields its port, stops it afterwards."""
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp)
        quality.build(data / "index", docs)
        port = free_port()
        log = (data / "serve.log").open("w")
        server = subprocess.Popen([str(WEBCRAWLER), "serve", "--data-dir", str(data), "--port", str(port),
                                   "--threads", "8"], stdout=subprocess.DEVNULL, stderr=log)
        try:
            wait_for(port)
            yield port
        finally:
            server.terminate()
            server.wait(30)
            log.close()


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    docs = test_web_documents()
    queries = quality.sample_queries({d.url for d in docs})
    texts = prefixes(queries, args.requests)
    with served(docs) as port:
        warm, _ = measure(port, texts[:50])
        times, bad = measure(port, texts)
    p50, p99 = percentile(times, 50), percentile(times, 99)
    body = (f"{len(docs):,} documents of the test web's documentation sites served by `webcrawler serve` "
            f"(waitress, 8 threads); {len(times):,} requests of `/api/suggest?n=8`, every prefix of the "
            f"judged queries as typed (up to {TYPED} characters), one at a time, after 50 warm-up requests "
            f"(the first, which builds the vocabulary, took {warm[0]:,.0f} ms).\n\n"
            + table(["requests", "p50 ms", "p99 ms", "max ms", "answers not 200"],
                    [(len(times), f"{p50:.2f}", f"{p99:.2f}", f"{max(times):.1f}", bad)]))
    return publish("Autocomplete latency over HTTP", body, args.json,
                   headline=f"p50 {p50:.2f} ms, p99 {p99:.2f} ms", goal="p99 at most 10 ms",
                   met=p99 <= 10 and bad == 0)


if __name__ == "__main__":
    main(sys.argv[1:])
