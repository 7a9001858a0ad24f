"""Index throughput and query latency on the test web's documentation pages.

    python bench/index_speed.py                  # throughput + latency at 50,000 documents
    python bench/index_speed.py --docs 8000      # a smaller index, for a quick look
    python bench/index_speed.py --no-stock       # skip stock Whoosh's throughput

Throughput: the pages (read from /usr/share/doc as bench/quality.py does; parsing
is not timed) are indexed in crawl-sized batches, a commit each, as the engine's
index process does; stock Whoosh 2.7 (StandardAnalyzer, positions, the same
stored fields) indexes the same pages in the same run for comparison. Latency:
the pages are repeated under new ids up to `--docs`, then the judged set's one-
and two-word queries run in-process with the result cache off, on the index as
the crawl leaves it and again after `optimize()`. The machine is shared: compare
rows of one run, not runs.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.quality import pages, parse_page, sample_queries  # noqa: E402
from webcrawler.index import (  # noqa: E402
    IndexedDocument,
    QueryError,
    open_searcher,
    open_writer,
)


def build(index_dir: Path, docs: list[IndexedDocument], batch: int) -> str:
    """Index `docs` in batches, a commit each: docs per wall-clock and per CPU second."""
    started, cpu = time.perf_counter(), time.process_time()
    with open_writer(index_dir) as writer:
        for i in range(0, len(docs), batch):
            writer.add(docs[i : i + batch])
            writer.commit()
    return _rates(len(docs), started, cpu)


def _rates(n: int, started: float, cpu: float) -> str:
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    return f"{n / wall:.0f} docs/s ({n / cpu:.0f} per CPU second)"


def stock_whoosh(index_dir: Path, docs: list[IndexedDocument], batch: int) -> str:
    """Docs/s of stock Whoosh on the same documents and batches."""
    from whoosh import index
    from whoosh.fields import ID, STORED, TEXT, Schema

    schema = Schema(doc_id=ID(unique=True, stored=True), url=STORED, title=STORED,
                    text=STORED, content=TEXT(phrase=True))
    index_dir.mkdir(parents=True)
    ix = index.create_in(str(index_dir), schema)
    started, cpu = time.perf_counter(), time.process_time()
    for i in range(0, len(docs), batch):
        writer = ix.writer()
        for d in docs[i : i + batch]:
            writer.update_document(doc_id=str(d.doc_id), url=d.url, title=d.title,
                                   text=d.text[:6000], content=f"{d.title} {d.text}")
        writer.commit()
    return _rates(len(docs), started, cpu)


def latency(index_dir: Path, queries: list[str]) -> str:
    """p50 / p99 / max of the queries' wall-clock and CPU times, result cache off. On a
    shared machine the CPU time is what the query would take on an idle one."""
    walls, cpus = [], []
    with open_searcher(index_dir, cache_queries=0) as searcher:
        searcher.search("warm")
        for query in queries:
            started = time.process_time()
            try:
                walls.append(searcher.search(query).took_ms)
            except QueryError:
                continue
            cpus.append((time.process_time() - started) * 1000)
    return f"{len(walls)} queries: wall {_percentiles(walls)}; CPU {_percentiles(cpus)}"


def _percentiles(times: list[float]) -> str:
    times = sorted(times)
    p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
    return f"p50 {times[len(times) // 2]:.1f} ms, p99 {p99:.1f} ms, max {times[-1]:.1f} ms"


def size_mib(index_dir: Path) -> float:
    return sum(f.stat().st_size for f in index_dir.iterdir()) / 2**20


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--docs", type=int, default=50_000, help="documents for the latency index")
    ap.add_argument("--batch", type=int, default=200, help="documents per commit")
    ap.add_argument("--no-stock", action="store_true", help="skip stock Whoosh's throughput")
    ap.add_argument("--rounds", type=int, default=2, help="throughput rounds (alternating)")
    args = ap.parse_args()
    docs = [d for i, (site, p) in enumerate(pages(), 1) if (d := parse_page(i, site, p))]
    judged = sample_queries({d.url for d in docs})
    queries = [q for _s, q, _l in judged if 1 <= len(q.split()) <= 2]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for run in range(args.rounds):  # alternate, to share the machine's moods
            ours = build(Path(tmp) / f"ours{run}", docs, args.batch)
            rows.append((f"throughput, {len(docs)} pages, webcrawler index", ours))
            if not args.no_stock:
                stock = stock_whoosh(Path(tmp) / f"stock{run}", docs, args.batch)
                rows.append((f"throughput, {len(docs)} pages, stock Whoosh 2.7", stock))
        copies = [
            IndexedDocument(i + 1, d.url, d.title, d.text, d.host)
            for i, d in zip(range(args.docs), (docs[j % len(docs)] for j in range(args.docs)),
                            strict=False)
        ]
        scaled = Path(tmp) / "scaled"
        rate = build(scaled, copies, args.batch)
        rows.append((f"throughput, {args.docs} docs (merges included)", rate))
        segments = sum(1 for f in scaled.iterdir() if f.suffix == ".seg")
        rows.append((f"latency, as crawled ({segments} segments, {size_mib(scaled):.0f} MiB)",
                     latency(scaled, queries)))
        started = time.perf_counter()
        with open_writer(scaled) as writer:
            writer.optimize()
        took = time.perf_counter() - started
        rows.append((f"latency, after optimize() ({took:.0f} s, {size_mib(scaled):.0f} MiB)",
                     latency(scaled, queries)))
    print(f"command: python bench/index_speed.py {' '.join(sys.argv[1:])}".rstrip())
    print(f"batches of {args.batch} documents, a commit each\n")
    print("| measurement | result |\n|---|---|")
    for name, value in rows:
        print(f"| {name} | {value} |")


if __name__ == "__main__":
    main()
