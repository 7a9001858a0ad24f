"""Proximity: a page where the query's words stand close together ranks above a page
where they lie far apart.

For an unquoted query of two words or more, the best `DEPTH` documents of the ranked
list are scored again: for each pair of words next to each other in the query, a
document that has them within `WINDOW` positions of each other (in either order, in the
same part: title, URL, an anchor or the body) gains; its relevance is multiplied by

    1 + PROXIMITY_WEIGHT * (pairs found close together) / (pairs in the query)

and the list is sorted again. Only the top of the list is read (the positions of the
words in those documents, from their posting lists), so the word queries' fast path
stays as it is and a query unpickles the few blocks of each list that hold those
documents (`blocks.values_of`); a document below the top
keeps its score, which is lower than those above it were before they gained. A sharded
index re-scores the merged top, so it ranks as one index does. Never writes.
"""

from __future__ import annotations

from collections.abc import Sequence

from whoosh.reading import SegmentReader
from whoosh.searching import Searcher as WhooshSearcher

from webcrawler.index.format.blocks import is_w3, values_of
from webcrawler.index.format.schema import CONTENT
from webcrawler.index.search import boundfile
from webcrawler.index.words.query import ParsedQuery

PROXIMITY_WEIGHT = 0.1  # tuned with bench/quality.py (docs/index.md)
WINDOW = 3  # positions apart: "os path join" -> os, path, join within three words
DEPTH = 30  # documents re-scored per query


def pairs(parsed: ParsedQuery) -> list[tuple[str, str]]:
    """The pairs of distinct words next to each other in the query (none for one word)."""
    typed = list(dict.fromkeys(parsed.words))
    return list(zip(typed, typed[1:], strict=False))


def factors(searcher: WhooshSearcher, parsed: ParsedQuery, docnums: Sequence[int]) -> list[float]:
    """Each document's proximity factor (top-level document numbers of `searcher`)."""
    wanted = pairs(parsed)
    if not wanted or not docnums:
        return [1.0] * len(docnums)
    words = list(dict.fromkeys(w for pair in wanted for w in pair))
    found = positions(searcher, words, docnums)
    out = []
    for docnum in docnums:
        where = found.get(docnum, {})
        close = sum(_near(where.get(a, ()), where.get(b, ())) for a, b in wanted)
        out.append(1.0 + PROXIMITY_WEIGHT * close / len(wanted))
    return out


def positions(searcher: WhooshSearcher, words: list[str],
              docnums: Sequence[int]) -> dict[int, dict[str, list[int]]]:
    """docnum -> word -> its positions, for the given documents and words."""
    found: dict[int, dict[str, list[int]]] = {}
    leaves = searcher.leaf_searchers()
    for i, (sub, offset) in enumerate(leaves):
        end = leaves[i + 1][1] if i + 1 < len(leaves) else offset + sub.doc_count_all()
        local = sorted(d - offset for d in docnums if offset <= d < end)
        if not local:
            continue
        reader = sub.reader()
        if isinstance(reader, SegmentReader) and is_w3(reader):
            decode = reader.schema[CONTENT].format.decode_positions
            for word in words:
                table = boundfile.blocks(reader, word)  # long lists': written by the writer
                for docnum, value in values_of(reader, CONTENT, word, local, table):
                    found.setdefault(docnum + offset, {})[word] = decode(value)
            continue
        for word in words:
            if (CONTENT, word) not in reader:
                continue
            matcher = reader.postings(CONTENT, word)
            for docnum in local:
                if not matcher.is_active():
                    break
                if matcher.id() < docnum:
                    matcher.skip_to(docnum)
                if matcher.is_active() and matcher.id() == docnum:
                    found.setdefault(docnum + offset, {})[word] = matcher.value_as("positions")
    return found


def _near(a: Sequence[int], b: Sequence[int]) -> bool:
    """Whether some position of `a` is within WINDOW of some position of `b` (sorted lists)."""
    i = j = 0
    while i < len(a) and j < len(b):
        if abs(a[i] - b[j]) <= WINDOW:
            return True
        if a[i] < b[j]:
            i += 1
        else:
            j += 1
    return False


def rescore(items: list, factors_of: list[float]) -> list:
    """`items` ((score, ...) tuples) with their scores multiplied by `factors_of`, sorted
    best first (a stable sort: ties keep their order)."""
    scored = [(item[0] * f, *item[1:]) for item, f in zip(items, factors_of, strict=True)]
    return sorted(scored, key=lambda item: -item[0])
