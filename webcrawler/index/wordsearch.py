"""Word-only queries, term at a time: the exact top N and the exact match count in one pass.

Most queries are a few words, OR-ed and summed (`weighting.py`). Whoosh runs them
document at a time through a tree of matchers, several Python calls per matching
document, and its block-max skipping rarely skips here: a common word's best
block (a short page that repeats it) outscores the tenth best document of the
query. This module reads each word's posting list a block at a time and adds
the word's scores into one dict per query (a few steps per posting), so the
count of matching documents is the dict's size. Scores are the same formula as
`PeculiarityScorer._score`, in the same floating-point steps, and ties break as
Whoosh's collector breaks them (lower document number first).

Queries with phrases, site: or exclusions, other weighting models and segments
not written by the W3 codec go Whoosh's way (`rank_words` returns None).
"""

from __future__ import annotations

import heapq
import math
import weakref

from whoosh.reading import SegmentReader, TermNotFound
from whoosh.searching import Searcher as WhooshSearcher

from webcrawler.index.merging import extent, is_w3, posting_blocks
from webcrawler.index.query import ParsedQuery
from webcrawler.index.schema import CONTENT
from webcrawler.index.weighting import _BYTE_LENGTH, Peculiarity, segment_lengths

Ranked = tuple[list[tuple[float, int]], int]

_DECODED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def rank_words(
    searcher: WhooshSearcher, parsed: ParsedQuery, model: object, limit: int
) -> Ranked | None:
    """([(score, docnum), ...] best first, at most `limit`; the number of matching
    documents), or None when this query or index needs Whoosh's general path."""
    if parsed.phrases or parsed.site or parsed.excluded or not isinstance(model, Peculiarity):
        return None
    if model.mode != "log":
        return None
    words = list(dict.fromkeys([*parsed.words, *parsed.expansions]))
    parameters = {w: model.parameters(searcher, CONTENT, w.encode("utf-8")) for w in words}
    scores: dict[int, float] = {}
    for sub, offset in searcher.leaf_searchers():
        reader = sub.reader()
        if not isinstance(reader, SegmentReader) or not is_w3(reader):
            return None
        lengths = _lengths(reader)
        if lengths is None:
            return None
        deleted = set(reader._perdoc.deleted_docs()) if reader.has_deletions() else None
        for word in words:
            try:
                info = reader._terms.term_info(CONTENT, word.encode("utf-8"))
            except TermNotFound:
                continue
            _add_term(scores, reader, info, parameters[word], lengths, offset, deleted)
    best = heapq.nsmallest(limit, scores.items(), key=lambda item: (-item[1], item[0]))
    return [(score, docnum) for docnum, score in best], len(scores)


def _add_term(scores, reader, info, parameters, lengths, offset, deleted) -> None:  # type: ignore[no-untyped-def]
    factor, p_ref, _cf, mu = parameters
    log1p = math.log1p
    get = scores.get
    if info.is_inlined():
        ids, weights, _values = info.inlined_postings()
        blocks = [(list(ids), weights, None)]
    else:
        start, length = extent(info)
        blocks = posting_blocks(reader._terms._postfile.get(start, length))
    for ids, weights, _values in blocks:
        for docnum, weight in zip(ids, weights, strict=False):
            if deleted is not None and docnum in deleted:
                continue
            score = factor * log1p(weight / (lengths[docnum] + mu) / p_ref)
            key = docnum + offset
            scores[key] = get(key, 0.0) + score


def _lengths(reader: SegmentReader) -> list[int] | None:
    found = _DECODED.get(reader)
    if found is None:
        raw = segment_lengths(reader, CONTENT)
        if raw is None:
            return None
        found = _DECODED[reader] = [_BYTE_LENGTH[b] for b in raw]
    return found

