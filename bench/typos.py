"""Misspelled versions of judged queries: one typo per query, the same every run.

The typo falls on one word of four or more letters (chosen at random among them), and
is one of the four edits people make, chosen at random too: a letter replaced by
another, two neighbouring letters swapped, a letter left out, a letter typed extra.
The random generator is seeded, so the misspelled set is fixed. A query with no word
of four letters or more has no misspelled version (typo tolerance leaves such short
words alone; see webcrawler/index/spelling.py).
"""

from __future__ import annotations

import random
import re
import string

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
