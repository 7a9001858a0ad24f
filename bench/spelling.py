"""Near spellings from the index's vocabulary: Whoosh's own corrector against symspellpy.

Both answer "which word of the index did the user mean?" for misspelled words of the
judged queries of bench/quality.py (one edit each, bench/typos.py, the distance allowed
by webcrawler/index/words/spelling.py's rule). Measured: how often the first answer is the word
before its typo, and how long one lookup takes; for symspellpy also the time and memory
its lookup table takes to build (Whoosh needs none: it walks a Levenshtein automaton over
the terms of every segment at each lookup).

    python -m bench.spelling [--words 400] [--json bench/results/spelling.json]

Needs the documentation packages (`bash /work/shared/testweb/testweb.sh install`).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from bench import quality, typos
from bench.common import median, publish, table
from webcrawler.index.format.opening import open_index
from webcrawler.index.words.spelling import Speller, max_distance
from webcrawler.index.words.vocabulary import read_vocabulary


def misspelled_words(vocabulary: set[str], queries: list[tuple[str, str, set[str]]],
                     count: int) -> list[tuple[str, str]]:
    """(typo, the word meant) for words of four letters or more of the judged queries that
    the index holds, one edit each, the typo not itself a word of the index."""
    rng = random.Random(typos.SEED)
    words = sorted({w for _s, q, _l in queries for w in q.lower().split()
                    if w.isalpha() and len(w) >= 4 and w in vocabulary})
    pairs = []
    for word in rng.sample(words, min(count, len(words))):
        typo = typos.edit(word, rng.choice(typos.EDITS), rng)
        if typo != word and typo not in vocabulary and max_distance(typo):
            pairs.append((typo, word))
    return pairs


def measure(lookup, pairs: list[tuple[str, str]]) -> tuple[float, float, float]:  # type: ignore[no-untyped-def]
    """(share right, median us, p99 us) of `lookup(typo) -> best word or None`."""
    right, times = 0, []
    for typo, meant in pairs:
        started = time.perf_counter()
        found = lookup(typo)
        times.append((time.perf_counter() - started) * 1e6)
        right += found == meant
    times.sort()
    return right / len(pairs), median(times), times[min(len(times) - 1, int(len(times) * 0.99))]


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--words", type=int, default=400, help="misspelled words looked up")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    docs = [d for i, (site, p) in enumerate(quality.pages(), 1) if (d := quality.parse_page(i, site, p))]
    queries = quality.sample_queries({d.url for d in docs})
    with tempfile.TemporaryDirectory() as tmp:
        quality.build(Path(tmp) / "index", docs)
        ix = open_index(Path(tmp) / "index", create=False)
        vocabulary = read_vocabulary(ix)
        pairs = misspelled_words(set(vocabulary.words), queries, args.words)
        tracemalloc.start()
        started = time.perf_counter()
        speller = Speller(vocabulary)
        built, (_now, peak) = time.perf_counter() - started, tracemalloc.get_traced_memory()
        tracemalloc.stop()
        rows = [("symspellpy (webcrawler/index/words/spelling.py)",
                 *measure(lambda t: next(iter(speller.near(t)), None), pairs))]
        with ix.searcher() as searcher:
            for prefix in (0, 1):
                corrector = searcher.corrector("content")

                def whoosh(typo: str, corrector=corrector, prefix=prefix) -> str | None:  # type: ignore[no-untyped-def]
                    found = corrector.suggest(typo, limit=1, maxdist=max_distance(typo), prefix=prefix)
                    return found[0] if found else None

                rows.append((f"Whoosh corrector, prefix {prefix}", *measure(whoosh, pairs)))
        ix.close()
    body = (f"{len(docs):,} documents, a vocabulary of {len(vocabulary.words):,} words; "
            f"{len(pairs)} misspelled words of the judged queries (one edit each). symspellpy's "
            f"table took {built:.2f} s (traced by tracemalloc, which slows it) and "
            f"{peak / 2**20:.0f} MiB to build.\n\n"
            + table(["library", "first answer right", "median us a lookup", "p99 us"],
                    [(name, f"{right:.0%}", f"{p50:,.0f}", f"{p99:,.0f}") for name, right, p50, p99 in rows]))
    ours, whoosh0 = rows[0], rows[1]
    return publish("Near spellings: symspellpy against Whoosh's corrector", body, args.json,
                   headline=f"symspellpy {ours[1]:.0%} right, {ours[2] / 1000:,.2f} ms a lookup; "
                            f"Whoosh's corrector {whoosh0[1]:.0%}, {whoosh0[2] / 1000:,.0f} ms",
                   goal="measure both, pick one")


if __name__ == "__main__":
    main(sys.argv[1:])
