"""Word-only queries, term at a time: the exact top N and the exact match count in one pass.

Most queries are a few words, OR-ed and summed (`weighting.py`). Whoosh runs them
document at a time through a tree of matchers, several Python calls per matching
document, and its block-max skipping rarely skips here: a common word's best
block (a short page that repeats it) outscores the tenth best document of the
query. This module takes each word's whole posting list in a segment as numpy
arrays (`vectors.py`: read, not unpickled), scores it in one vector step, and
adds the scores into one array per segment, so a word in every one of 50,000
documents costs about a millisecond instead of tens. The count of matching
documents is the number of documents any word touched, less the deleted ones; a `type:` or `lang:` filter is a
mask over them, and the facets are counted from them (`facets.py`).

Only the facets need every match: in a segment where the query's lists are long,
`pruning.py` scores only the documents that can still reach the top N (per-window score
bounds, remembered per segment), after finding every match with a boolean scatter.

Scores follow `PeculiarityScorer.word_score` step by step in float64; numpy's log1p
may differ from the C library's in the last bit, so a score can differ from the
matcher path's by one part in 10^16 (ranks and the 1000-normalised scores do not).
Ties break as Whoosh's collector breaks them: lower document number first.

Queries with phrases, site: or exclusions, other weighting models and segments
not written by the W3 codec go Whoosh's way (`rank_words` returns None).
"""

from __future__ import annotations

import numpy as np
from whoosh.reading import SegmentReader
from whoosh.searching import Searcher as WhooshSearcher

from webcrawler.index.format import vectors
from webcrawler.index.format.blocks import is_w3
from webcrawler.index.format.fastpaths import note
from webcrawler.index.format.schema import CONTENT
from webcrawler.index.format.segments import deleted_docs
from webcrawler.index.search import boundfile, facets, prior, pruning
from webcrawler.index.search.pruning import Parameters
from webcrawler.index.search.weighting import Peculiarity, word_scores
from webcrawler.index.words.query import ParsedQuery

# ([(score, docnum), ...] best first, total, the matches' facet counts)
Ranked = tuple[list[tuple[float, int]], int, facets.Counts]


def rank_words(
    searcher: WhooshSearcher, parsed: ParsedQuery, model: object, limit: int
) -> Ranked | None:
    """([(score, docnum), ...] best first, at most `limit`; the number of matching
    documents; their facet counts), or None when this query or index needs Whoosh's
    general path."""
    if parsed.phrases or parsed.site or parsed.excluded or not isinstance(model, Peculiarity):
        return None
    if model.mode != "log":
        return None
    words = parsed.terms()
    parameters = [model.parameters(searcher, CONTENT, w.encode("utf-8")) for w in words]
    # the best so far, as top-level docnums, merged with each segment's in turn (the best
    # `limit` of the best so far and a segment's are the best of both: ties break by
    # docnum, which no two share)
    best_docnums, best_scores = np.zeros(0, np.int64), np.zeros(0)
    total = 0
    counts = facets.Tally()
    # the small segments first: scored whole in microseconds, their best set the
    # threshold the large ones prune with (the merged top is the same in any order)
    for sub, offset in sorted(searcher.leaf_searchers(), key=lambda leaf: leaf[0].doc_count_all()):
        reader = sub.reader()
        if not isinstance(reader, SegmentReader) or not is_w3(reader):
            note("wordsearch.whoosh")
            return None
        lengths = vectors.lengths(reader, CONTENT)
        if lengths is None:
            note("wordsearch.whoosh")
            return None
        note("wordsearch.arrays")
        floor = _kth(best_scores, limit)
        docnums, scores, matches = _rank_segment(reader, parsed, words, parameters, lengths,
                                                 limit, floor, counts)
        total += matches
        if len(scores) > limit and floor > 0:  # scored in full: most cannot beat the best so far
            note("wordsearch.floored")
            above = scores >= floor
            docnums, scores = docnums[above], scores[above]
        if len(scores):
            best_docnums, best_scores = _top(np.concatenate([best_docnums, docnums + offset]),
                                             np.concatenate([best_scores, scores]), limit)
    ranked = list(zip(best_scores.tolist(), best_docnums.tolist(), strict=True))
    return ranked, total, counts.counts()


def _kth(best_scores: np.ndarray, limit: int) -> float:
    """The `limit`-th best of the scores found so far (`best_scores`: the best `limit`, best
    first; 0 while fewer): what a document of a later segment must reach to be among the
    best, whatever its docnum."""
    return float(best_scores[limit - 1]) if len(best_scores) >= limit else 0.0


def _rank_segment(reader: SegmentReader, parsed: ParsedQuery, words: list[str], parameters: list,
                  lengths: np.ndarray, limit: int, floor: float,
                  counts: facets.Tally) -> tuple[np.ndarray, np.ndarray, int]:
    """(docnums, scores) of the segment's matches that can be among the best `limit` (all
    of them when every posting is scored), and how many documents match; their facets are
    added to `counts`. Pruned (`pruning.py`) when the query's lists are long enough and
    their window bounds are known (`floor`: the score earlier segments set); else
    every posting is scored, which keeps the bounds."""
    # document numbers as intp: numpy converts int32 indices on every gather and scatter
    postings = [(ids.astype(np.intp), weights)
                for ids, weights in (vectors.postings(reader, CONTENT, word) for word in words)]
    priors = prior.factors(reader)
    pruned = None
    large = sum(len(ids) for ids, _weights in postings) >= pruning.MIN_PRUNED
    missing = pruning.missing(reader, words, postings) if large else []
    if large and not missing:
        bounds = pruning.window_bounds(reader, words, postings, parameters, lengths, priors)
        if pruning.hopeless(postings, bounds, floor):
            note("pruning.hopeless")
        else:
            matched = _matches(reader, postings, len(lengths), parsed.filters)
            pruned = pruning.top_candidates(postings, parameters, lengths, priors, bounds,
                                            matched, limit, floor)
    if pruned is None:
        docnums, scores = _score_segment(reader, postings, parameters, lengths, priors,
                                         {i: words[i] for i in missing})
        if parsed.filters:
            passed = facets.passing(reader, docnums, parsed.filters)
            docnums, scores = docnums[passed], scores[passed]
        matched = docnums
    else:
        note("wordsearch.pruned")
        docnums, scores = pruned
    held = [word for word, (ids, _weights) in zip(words, postings, strict=True) if len(ids)]
    if len(held) == 1 and not parsed.filters and len(matched) >= boundfile.LONG:
        facets.count_remembered(reader, ("word", CONTENT, held[0]), matched, counts)  # one word's
    else:
        facets.count(reader, matched, counts)
    return docnums, scores, len(matched)


def _matches(reader: SegmentReader, postings: list[vectors.Postings], size: int,
             filters: dict[str, str]) -> np.ndarray:
    """The segment's live documents (sorted) that hold any of the words and pass the filters."""
    lists = [ids for ids, _weights in postings if len(ids)]
    if len(lists) == 1:
        docnums = lists[0]
    else:
        touched = np.zeros(size, dtype=bool)
        for ids in lists:
            touched[ids] = True
        docnums = np.flatnonzero(touched)
    live = _live(reader, docnums)
    if live is not None:
        docnums = docnums[live]
    if filters:
        docnums = docnums[facets.passing(reader, docnums, filters)]
    return docnums


def _live(reader: SegmentReader, docnums: np.ndarray) -> np.ndarray | None:
    """Which of `docnums` are not deleted (a mask; None: the segment deletes none)."""
    if not reader.has_deletions():
        return None
    return ~np.isin(docnums, deleted_docs(reader))


def _score_segment(reader: SegmentReader, postings: list[vectors.Postings],
                   parameters: list[Parameters],
                   lengths: np.ndarray, priors: tuple[np.ndarray, float] | None,
                   unbounded: dict[int, str] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(docnums, scores) of the segment's live documents that hold any of the words
    (`postings`: their lists); each word's score times the document's prior (`prior.py`)
    as Whoosh's path multiplies it. The window bounds of the `unbounded` words (index in
    the query -> word: long lists pruning has none for) are kept from their scores."""
    summed: np.ndarray | None = None
    touched: np.ndarray | None = None
    single: tuple[np.ndarray, np.ndarray] | None = None
    for i, ((ids, weights), (factor, p_ref, _cf, mu)) in enumerate(zip(postings, parameters, strict=True)):
        if not len(ids):
            continue
        scores = word_scores(weights, lengths[ids], factor, p_ref, mu,
                             None if priors is None else priors[0][ids])
        if unbounded and i in unbounded:  # the list's first query in this segment
            pruning.remember(reader, unbounded[i], ids, scores, (factor, p_ref, _cf, mu),
                             boundfile.windows_of(lengths))
        if summed is None and single is None:
            single = (ids, scores)
            continue
        if summed is None:
            summed, touched = np.zeros(len(lengths)), np.zeros(len(lengths), dtype=bool)
            summed[single[0]] = single[1]  # type: ignore[index]
            touched[single[0]] = True  # type: ignore[index]
        summed[ids] += scores
        touched[ids] = True  # type: ignore[index]
    if summed is not None and touched is not None:  # set together
        docnums = np.flatnonzero(touched)
        single = (docnums, summed[docnums])
    if single is None:
        return np.zeros(0, np.int64), np.zeros(0)
    docnums, scores = single
    live = _live(reader, docnums)
    return (docnums, scores) if live is None else (docnums[live], scores[live])


def _top(docnums: np.ndarray, scores: np.ndarray, limit: int) -> tuple[np.ndarray, np.ndarray]:
    """The best `limit` (docnums as int64, scores), best first, ties by docnum."""
    if len(scores) > limit:
        cut = len(scores) - limit
        kth = np.partition(scores, cut)[cut]  # the limit-th best score: keep it and its ties
        keep = scores >= kth
        docnums, scores = docnums[keep], scores[keep]
    order = np.lexsort((docnums, -scores))[:limit]
    return docnums[order].astype(np.int64), scores[order]
