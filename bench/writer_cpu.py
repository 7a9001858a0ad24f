"""Index throughput, before and after: documents per CPU second of two checkouts' writers.

    python -m bench.writer_cpu --before /path/to/old/checkout [--docs 4000] [--batch 1000] [--rounds 3]
    python -m bench.writer_cpu --before ... --long --docs 1200 --batch 600

`--long`: pages of LONG_WORDS words instead (Zipf over a 20,000-word vocabulary, little else,
as the held-out web's: about 274 KB a page as the writer's pool estimates it (56 bytes a
word, postings.WORD_BYTES), so a commit of more than about 950 spills to disk at POOL_MB 256.

Both writers index the same documents, made once here and handed to each writer as a
pickle - bench/million.py's generated pages with their long-tail words, and the plain
generated pages of bench/query_latency.py - in the same batches, a commit each, the merges
the commits trigger included. Each checkout runs in
its own process with its own virtual environment (CHECKOUT/.venv) and its own
`webcrawler` package, one after the other, `--rounds` times in turn (the machine is
shared: a round of each, alternated, then the medians). CPU seconds are the writing
process's own (`time.process_time`), language detection included, page generation not.
"""

from __future__ import annotations

import argparse
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from bench import million, query_latency
from bench.common import ROOT, commit, publish, table
from webcrawler.index import IndexedDocument

LONG_WORDS = 5000
VOCABULARY = 20_000
GOAL = 1000  # documents a CPU second (issue 36)

WRITE = """
import pickle, sys, tempfile, time
from pathlib import Path
from webcrawler.index import open_writer
from webcrawler.text.language import detect
docs = pickle.loads(Path(sys.argv[1]).read_bytes())
batch = int(sys.argv[2])
detect("load the model", "the language model loads once per process " * 3)
with tempfile.TemporaryDirectory() as tmp:
    started = time.process_time()
    with open_writer(Path(tmp) / "index") as writer:
        for first in range(0, len(docs), batch):
            writer.add(docs[first:first + batch])
            writer.commit()
    print(time.process_time() - started)
"""


def cpu_seconds(checkout: Path, pages: Path, batch: int) -> float:
    """The CPU seconds `checkout`'s writer takes to index the pickled `pages`."""
    python = checkout / ".venv" / "bin" / "python"
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    out = subprocess.run([str(python), "-c", WRITE, str(pages), str(batch)], cwd=checkout, env=env,
                         capture_output=True, text=True, timeout=3600, check=True)
    return float(out.stdout.split()[-1])


def long_document(number: int) -> IndexedDocument:
    """A page of LONG_WORDS Zipf-distributed words, the same for the same number."""
    weights = 1.0 / np.arange(1, VOCABULARY + 1)
    words = np.random.default_rng([number, 5000]).choice(VOCABULARY, LONG_WORDS, p=weights / weights.sum())
    return IndexedDocument(doc_id=number + 1, url=f"http://127.0.52.1/{number}.html",
                           title=f"page {number} w{number % VOCABULARY}x",
                           text=" ".join(f"w{w}x" for w in words.tolist()), host="127.0.52.1")


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, help="the checkout to compare with")
    parser.add_argument("--after", type=Path, default=ROOT, help="default: this checkout")
    parser.add_argument("--docs", type=int, default=4000)
    parser.add_argument("--batch", type=int, default=1000, help="documents per commit")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", type=Path, default=None, help="also write the result here")
    parser.add_argument("--long", action="store_true", help=f"pages of {LONG_WORDS:,} words only")
    args = parser.parse_args(argv)
    kinds = {"with the long tail": million.document, "plain": query_latency.document}
    if args.long:
        kinds = {f"{LONG_WORDS:,} words": long_document}
    seconds: dict[tuple[str, str], list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for kind, make in kinds.items():
            pages = Path(tmp) / "pages.pickle"
            pages.write_bytes(pickle.dumps([make(n) for n in range(args.docs)]))
            for number in range(args.rounds):
                for name, checkout in (("before", args.before), ("after", args.after)):
                    took = cpu_seconds(checkout.resolve(), pages, args.batch)
                    seconds.setdefault((kind, name), []).append(took)
                    print(f"{kind}, round {number + 1}, {name}: {took:.1f} CPU s", file=sys.stderr)
    rate = {key: args.docs / statistics.median(values) for key, values in seconds.items()}
    labels = {"before": commit(args.before), "after": commit()}
    rows = [[kind, name, f"`{labels[name]}`", ", ".join(f"{s:.1f}" for s in seconds[kind, name]),
             rate[kind, name]] for kind, name in seconds]
    pages = (f"{LONG_WORDS:,} words: `long_document`'s pages (a commit of more than about 950 "
             "outgrows the writer's pool and spills)" if args.long else
             "With the long tail: bench/million.py's pages (24 rare words each, most of a commit's "
             "terms then hold one posting); plain: genweb's 20,000-word vocabulary")
    body = (f"{args.docs:,} generated pages, commits of {args.batch:,}, each writer in its own "
            f"process, {args.rounds} rounds alternated; documents per CPU second from the median "
            f"round. {pages}.\n\n"
            + table(["pages", "writer", "commit", "CPU s per round", "documents per CPU second"], rows))
    if args.long:
        kind = next(iter(kinds))
        return publish(f"Index throughput before and after, pages of {LONG_WORDS:,} words", body, args.json,
                       headline=f"{rate[kind, 'after']:,.0f} documents per CPU second, "
                                f"{rate[kind, 'before']:,.0f} before "
                                f"({rate[kind, 'after'] / rate[kind, 'before']:.2f}x)",
                       goal="documents per CPU second, before and after (issue 36)", met=None)
    tail, plain = "with the long tail", "plain"
    return publish("Index throughput before and after", body, args.json,
                   headline=f"{rate[tail, 'after']:,.0f} documents per CPU second, "
                            f"{rate[tail, 'before']:,.0f} before "
                            f"({rate[tail, 'after'] / rate[tail, 'before']:.2f}x; plain pages "
                            f"{rate[plain, 'after'] / rate[plain, 'before']:.2f}x)",
                   goal=f"at least {GOAL:,} documents a CPU second with the long tail (the million "
                        "benchmark's pages; issue 36)", met=rate[tail, "after"] >= GOAL)


if __name__ == "__main__":
    main()
