"""Misspelled versions of judged queries: one typo per query, the same every run.

The typo falls on one word of four or more letters (chosen at random among them), and
is one of the four edits people make, chosen at random too: a letter replaced by
another, two neighbouring letters swapped, a letter left out, a letter typed extra.
The random generator is seeded, so the misspelled set is fixed. A query with no word
of four letters or more has no misspelled version (typo tolerance leaves such short
words alone; see webcrawler/index/words/spelling.py).

`table` measures MRR@10 on the clean and the misspelled queries, with typo tolerance and
without, and how often "did you mean" names the clean query (`python -m bench.quality`
prints it below the ranking table).
"""

from __future__ import annotations

import random
import re
import statistics
import string
from pathlib import Path

from webcrawler.index import QueryError, open_searcher

SEED = 2026
EDITS = ("substitution", "transposition", "deletion", "insertion")

_WORD = re.compile(r"[^\W\d_]{4,}")  # letters only, four or more


def misspell(query: str, rng: random.Random) -> str | None:
    """`query` with one typo in one of its longer words, or None when it has none."""
    spans = [m.span() for m in _WORD.finditer(query)]
    if not spans:
        return None
    start, end = rng.choice(spans)
    word = query[start:end]
    for _attempt in range(10):
        typo = edit(word, rng.choice(EDITS), rng)
        if typo.lower() != word.lower():
            return query[:start] + typo + query[end:]
    return None


def edit(word: str, kind: str, rng: random.Random) -> str:
    """`word` with one edit of `kind` (one of EDITS) at a random place."""
    letters = string.ascii_lowercase
    i = rng.randrange(len(word))
    if kind == "substitution":
        return word[:i] + rng.choice(letters) + word[i + 1 :]
    if kind == "transposition":
        i = min(i, len(word) - 2)
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    if kind == "deletion":
        return word[:i] + word[i + 1 :]
    return word[:i] + rng.choice(letters) + word[i:]


def misspelled_queries(queries: list[tuple[str, str, set[str]]]) -> list[tuple[str, str, str, set[str]]]:
    """(site, clean query, misspelled query, relevant) for each query that can have a typo."""
    rng = random.Random(SEED)
    out = []
    for site, query, links in queries:
        typo = misspell(query, rng)
        if typo is not None:
            out.append((site, query, typo, links))
    return out


def _run(searcher, query: str, links: set[str]) -> tuple[float, str | None]:  # type: ignore[no-untyped-def]
    """(reciprocal rank of the first relevant result in the top 10, the suggestion)."""
    try:
        results = searcher.search(query, per_page=10)
    except QueryError:
        return 0.0, None
    rank = next((h.rank for h in results.hits if h.url in links), None)
    return (1.0 / rank if rank else 0.0), results.suggestion


def _same(a: str | None, b: str) -> bool:
    return a is not None and a.lower().split() == b.lower().split()


def table(index_dir: Path, queries: list[tuple[str, str, set[str]]]) -> tuple[list[str], float]:
    """The clean-against-misspelled table in markdown lines, and the ratio of misspelled to
    clean MRR@10 of our ranking with typo tolerance (the goal: at least 0.85)."""
    pairs = misspelled_queries(queries)
    rows = [("peculiarity, typed words only (before)", {"spelling": False}),
            ("peculiarity + typo tolerance (after)", {}),
            ("Whoosh BM25F, typed words only", {"ranking": "bm25f", "spelling": False}),
            ("Whoosh BM25F + typo tolerance", {"ranking": "bm25f"})]
    lines = [f"{len(pairs)} of the {len(queries)} judged queries with one typo each "
             f"(bench/typos.py, seed {SEED}):", "",
             "| ranking | MRR@10 clean | MRR@10 misspelled | misspelled / clean | "
             "did you mean right | suggestions on clean queries |", "|---|---|---|---|---|---|"]
    after = 0.0
    for name, options in rows:
        with open_searcher(index_dir, **options) as searcher:
            clean = [_run(searcher, q, links) for _s, q, _t, links in pairs]
            typo = [_run(searcher, t, links) for _s, _q, t, links in pairs]
        mrr_clean = statistics.mean(r for r, _ in clean)
        mrr_typo = statistics.mean(r for r, _ in typo)
        right = sum(_same(s, q) for (_s, q, _t, _l), (_r, s) in zip(pairs, typo, strict=True))
        false = sum(s is not None for _r, s in clean)
        ratio = mrr_typo / mrr_clean if mrr_clean else 0.0
        if name.startswith("peculiarity +"):
            after = ratio
        lines.append(f"| {name} | {mrr_clean:.3f} | {mrr_typo:.3f} | {ratio:.2f} | "
                     f"{right / len(pairs):.0%} | {false / len(pairs):.0%} |")
    return lines, after
