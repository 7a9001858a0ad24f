"""Search latency over HTTP on the test web: /api/search, facets and all, for the judged queries.

The index of the test web's documentation sites (bench/quality.py's) is served by
`webcrawler serve` (waitress, 8 threads) in its own process; one client sends the judged
queries, each as spelled and with one typo (bench/typos.py), one request at a time, after
a warm-up of 50 queries (the first builds the speller). Every answer carries the facets
over all matches and, for the misspelled ones, the "did you mean" suggestion. The goal:
p99 at most 20 ms.

    python -m bench.search_latency [--rounds 3] [--json bench/results/search_latency.json]

Needs the documentation packages (`bash /work/shared/testweb/testweb.sh install`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bench import quality, typos
from bench.common import publish, table
from bench.query_latency import percentile
from bench.suggest_latency import measure, served, test_web_documents

GOAL_P99_MS = 20.0


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="passes over the query stream")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    docs = test_web_documents()
    queries = quality.sample_queries({d.url for d in docs})
    clean = [query for _site, query, _links in queries]
    misspelled = [typo for _site, _query, typo, _links in typos.misspelled_queries(queries)]
    rows, worst = [], 0.0
    with served(docs) as port:
        measure(port, (clean + misspelled)[:50], "/api/search", "facets")
        for name, texts in (("as spelled", clean), ("one typo each", misspelled)):
            times, bad = [], 0
            for _ in range(args.rounds):
                got, failed = measure(port, texts, "/api/search", "facets", n=10)
                times += got
                bad += failed
            p50, p99 = percentile(times, 50), percentile(times, 99)
            worst = max(worst, p99) if not bad else float("inf")
            rows.append((name, len(times), f"{p50:.2f}", f"{p99:.2f}", f"{max(times):.1f}", bad))
    body = (f"{len(docs):,} documents of the test web's documentation sites served by "
            f"`webcrawler serve` (waitress, 8 threads); the {len(clean)} judged queries as spelled and "
            f"{len(misspelled)} with one typo each, {args.rounds} passes, one request of "
            "`/api/search?n=10` at a time (facets over every match in each answer; a query of stop "
            "words only is answered with its one-line error), after 50 warm-up requests.\n\n"
            + table(["queries", "requests", "p50 ms", "p99 ms", "max ms", "failed answers"], rows))
    return publish("Search latency over HTTP on the test web", body, args.json,
                   headline=f"p99 {rows[0][3]} ms as spelled, {rows[1][3]} ms with typos",
                   goal=f"p99 at most {GOAL_P99_MS:.0f} ms", met=worst <= GOAL_P99_MS)


if __name__ == "__main__":
    main(sys.argv[1:])
