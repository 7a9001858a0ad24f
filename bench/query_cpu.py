"""CPU time per query in-process, checkouts alternated: what a change costs a query.

    python -m bench.query_cpu --data DIR [--queries 300] [--rounds 2] [--checkout PATH ...]
    python -m bench.query_cpu --data DIR --same-answers --checkout A --checkout B

Over HTTP on a shared, loaded machine most of a query's wall time is waiting for a core;
the CPU a query costs is what a change moves. Each checkout (default: this one) runs in
its own process (`PYTHONPATH` = the checkout) the query stream of bench/query_latency.py
through the query server's /api/search (Flask's test client: routing, JSON, facets,
snippets; no sockets), `time.thread_time` around each request, after a warm-up; the
checkouts take turns, `--rounds` times each, on the same index (`DIR/index`, read only).
Reported: p50 and p99 of every query of every round, overall and per kind of query
(frequent, middling and rare single words, two words).

`--same-answers`: instead of timing, each checkout answers the stream once and the
answers are compared whole (total, suggestion, facets, each hit's rank, score, URL, title,
snippet, site: everything but `took_ms`); it exits 1 and names the first query whose
answers differ. A change to the query path that must not change what it answers is
checked so against the code before it, on the index it is measured on.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from bench.query_latency import percentile

KINDS = ["frequent word", "middling word", "rare word", "two words"]
WARM = ["warm", "up the", "searcher"]


def worker(data: Path, queries: int, answers: bool = False) -> list:
    """CPU ms of each query of the stream, in this process (the checkout on sys.path);
    with `answers`, each query's answer (its JSON, `took_ms` left out) instead."""
    import itertools
    import time
    import urllib.parse

    from bench.query_latency import query_stream
    from webcrawler.query_server import create_app

    client = create_app(data, testing=True).test_client()
    for query in WARM:
        client.get("/api/search?q=" + urllib.parse.quote(query))
    out = []
    for query in itertools.islice(query_stream(), queries):
        started = time.thread_time()
        answer = client.get("/api/search?q=" + urllib.parse.quote(query))
        spent = (time.thread_time() - started) * 1000
        if answer.status_code != 200:
            raise SystemExit(f"{query!r}: HTTP {answer.status_code}")
        out.append({k: v for k, v in answer.get_json().items() if k != "took_ms"} if answers else spent)
    return out


def measure(data: Path, checkouts: list[Path], queries: int, rounds: int) -> dict[str, list[float]]:
    """{checkout: [ms, ...]} over every round; the checkouts alternate, reversed every round."""
    found: dict[str, list[float]] = {str(c): [] for c in checkouts}
    for round_ in range(rounds):
        for checkout in checkouts if round_ % 2 == 0 else checkouts[::-1]:
            env = {**os.environ, "PYTHONPATH": str(checkout)}
            out = subprocess.run([sys.executable, __file__, "--worker", str(data), str(queries)],
                                 env=env, cwd=checkout, capture_output=True, text=True, check=True,
                                 timeout=1800)
            found[str(checkout)] += json.loads(out.stdout)
            print(f"round {round_ + 1}: {checkout} done", file=sys.stderr, flush=True)
    return found


def same_answers(data: Path, checkouts: list[Path], queries: int) -> str | None:
    """None when every checkout answers each query of the stream as the first does; else
    what differs first."""
    found = {}
    for checkout in checkouts:
        env = {**os.environ, "PYTHONPATH": str(checkout)}
        out = subprocess.run([sys.executable, __file__, "--worker", str(data), str(queries), "answers"],
                             env=env, cwd=checkout, capture_output=True, text=True, check=True, timeout=1800)
        found[checkout] = json.loads(out.stdout)
    first, *others = checkouts
    for other in others:
        for i, (a, b) in enumerate(zip(found[first], found[other], strict=True)):
            if a != b:
                return f"query {i} {a.get('query')!r}: {first} and {other} answer differently"
    return None


def report(found: dict[str, list[float]]) -> str:
    lines = ["| checkout | queries | p50 ms | p99 ms | " + " | ".join(f"{k} p50 / p99" for k in KINDS) + " |",
             "|---" * (4 + len(KINDS)) + "|"]
    for checkout, times in found.items():
        kinds = [[t for i, t in enumerate(times) if i % 4 == k] for k in range(len(KINDS))]
        cells = [f"{statistics.median(k):.2f} / {percentile(k, 99):.2f}" for k in kinds]
        lines.append(f"| {checkout} | {len(times)} | {statistics.median(times):.2f} | "
                     f"{percentile(times, 99):.2f} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="a data directory with an index/")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--checkout", type=Path, action="append", default=None,
                        help="a source tree to measure (repeat to compare; default: this one)")
    parser.add_argument("--same-answers", action="store_true",
                        help="compare the checkouts' answers to the stream instead of timing them")
    args = parser.parse_args(argv)
    checkouts = [c.resolve() for c in args.checkout or [Path(__file__).resolve().parent.parent]]
    if args.same_answers:
        differ = same_answers(args.data.resolve(), checkouts, args.queries)
        text = differ or f"the same answers to all {args.queries} queries: " + ", ".join(map(str, checkouts))
        print(text)
        if differ:
            raise SystemExit(1)
        return text
    text = report(measure(args.data.resolve(), checkouts, args.queries, args.rounds))
    print(text)
    return text


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        sys.path[0] = os.environ.get("PYTHONPATH", ".")  # the checkout measured, not bench/
        print(json.dumps(worker(Path(sys.argv[2]), int(sys.argv[3]), sys.argv[4:5] == ["answers"])))
    else:
        main()
