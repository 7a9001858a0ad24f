"""Dynamic pruning for word queries: score only the documents that can reach the top N.

A word query's facets count every match, but only its best N documents need a score.
Each segment's document numbers are cut into windows (`boundfile.WINDOW`); for each long
posting list, the best score a word can add in each window (block-max bounds, by document
number rather than by Whoosh's blocks, so that the bounds of several words add up window
by window) is read from the file the writer wrote beside the segment (`boundfile.py`), or,
for a segment without one, worked out on first use and remembered for the segment
(`segcache.py`: the files never change; deleted documents only lower the true maxima). A query then adds
its words' bounds per window, scores the matches of the windows with the highest
bounds first, and takes the N-th best score so far (or an earlier segment's, when it is
higher) as a threshold: windows whose bound is below it cannot hold a top-N document and
are not scored. The cost follows the windows scored, not the longest posting list.

The bounds hold across commits: a word's bound is made with the statistics of the
commit that first needed it (p_ref, the average length MU), and w(t, d) = log(1 + tf /
(len + mu) / p_ref) grows at most linearly in 1 / p_ref and in 1 / mu, so a bound made
with (p0, mu0) times max(1, p0 / p) * max(1, mu0 / mu) bounds the score with (p, mu).

Scores are computed exactly as `wordsearch._score_segment` computes them (the same
float64 operations, words added in query order), so the top N and their scores are the
exhaustive ones, ties included (a window is skipped only when its bound is below the
threshold, with a margin for rounding).
"""

from __future__ import annotations

import numpy as np
from whoosh.reading import SegmentReader

from webcrawler.index.format import segcache, vectors
from webcrawler.index.format.schema import CONTENT
from webcrawler.index.search import boundfile
from webcrawler.index.search.boundfile import unit_scores, window_max, windows_of
from webcrawler.index.search.weighting import word_scores

MIN_PRUNED = 20_000  # postings of a query in a segment below which every match is scored
GIVE_UP = 0.1  # share of the postings: more documents left to score are scored every one
HOPELESS = 0.12  # share of the postings the even-spread estimate must pass (`hopeless`)
MARGIN = 1e-9  # relative: bounds are raised by this against rounding

Parameters = tuple[float, float, float, float]  # (factor, p_ref, cf, mu), as `Peculiarity` gives


def window_bounds(reader: SegmentReader, words: list[str], postings: list[vectors.Postings],
                  parameters: list[Parameters], lengths: np.ndarray,
                  priors: tuple[np.ndarray, float] | None) -> list[np.ndarray]:
    """For each word, the most it can add to a score in each window of the segment."""
    windows = windows_of(lengths)
    return [_bounds(reader, word, found, params, lengths, priors, windows) * (1.0 + MARGIN)
            if len(found[0]) else np.zeros(windows)
            for word, found, params in zip(words, postings, parameters, strict=True)]


def hopeless(postings: list[vectors.Postings], bounds: list[np.ndarray], threshold: float) -> bool:
    """Whether `top_candidates` would give up at `threshold` (an earlier segment's), told
    before any document is scored: the lists a document must be in, times the share of
    windows whose bound reaches the threshold (lists spread evenly over the documents),
    are more than `HOPELESS` of the postings. Only a cost is decided here: both ways rank
    alike."""
    if threshold <= 0:
        return False
    share = np.count_nonzero(np.sum(bounds, axis=0) >= threshold) / max(len(bounds[0]), 1)
    lists = _essential(postings, bounds, threshold) or [ids for ids, _weights in postings]
    total = sum(len(ids) for ids, _weights in postings)
    return bool(sum(map(len, lists)) * share > HOPELESS * total)


def top_candidates(postings: list[vectors.Postings], parameters: list[Parameters],
                   lengths: np.ndarray, priors: tuple[np.ndarray, float] | None,
                   bounds: list[np.ndarray], matched: np.ndarray, limit: int,
                   threshold: float) -> tuple[np.ndarray, np.ndarray] | None:
    """(docnums, exact scores) of some of `matched` (the segment's sorted live matches
    that pass the filters; `postings` are the query's lists, `bounds` their
    `window_bounds`): every one that can be among the best `limit` of them with a score of
    at least `threshold`, usually few others. None when too many documents could still
    get there: then scoring every posting (`wordsearch._score_segment`) is cheaper."""
    windows = len(bounds[0])
    bound = np.sum(bounds, axis=0)
    edges = np.searchsorted(matched, np.arange(windows + 1) * boundfile.WINDOW)
    order = np.argsort(-bound, kind="stable")
    order = order[edges[order + 1] > edges[order]]  # windows with a match
    # the best windows first, as many as the results wanted (each holds one, most often)
    first = max(limit, int(np.searchsorted(np.cumsum(edges[order + 1] - edges[order]), limit)) + 1)
    docnums = _in_windows(matched, edges, order[:first])
    scores = score(docnums, postings, parameters, lengths, priors)
    if len(scores) >= limit:
        threshold = max(threshold, float(np.partition(scores, len(scores) - limit)[len(scores) - limit]))
    rest = order[first:]
    rest = rest[bound[rest] >= threshold]
    if len(rest):
        more = _in_rest(matched, edges, rest, _essential(postings, bounds, threshold), windows)
        if len(more) > GIVE_UP * sum(len(ids) for ids, _weights in postings):
            return None  # looking each one up in every list costs more than scoring the lists
        docnums = np.concatenate([docnums, more])
        scores = np.concatenate([scores, score(more, postings, parameters, lengths, priors)])
    return docnums, scores


def _essential(postings: list[vectors.Postings], bounds: list[np.ndarray],
               threshold: float) -> list[np.ndarray] | None:
    """The lists a document must be in to reach `threshold` (MaxScore: the words whose
    best scores together stay below it cannot get there alone), or None: any of them."""
    best = [float(b.max()) if len(b) else 0.0 for b in bounds]
    order = sorted(range(len(best)), key=best.__getitem__)
    below, total = 0, 0.0
    for i in order:
        if total + best[i] >= threshold:
            break
        total += best[i]
        below += 1
    if not below:
        return None
    return [postings[i][0] for i in order[below:]]


def _in_rest(matched: np.ndarray, edges: np.ndarray, rest: np.ndarray,
             essential: list[np.ndarray] | None, windows: int) -> np.ndarray:
    """The matches in the windows `rest` that are in one of the `essential` lists."""
    if essential is None:
        return _in_windows(matched, edges, rest)
    kept = np.zeros(windows, dtype=bool)
    kept[rest] = True
    if len(essential) > 1:  # a mark per document: sorting the lists' union costs far more
        held = np.zeros(windows * boundfile.WINDOW, dtype=bool)
        for ids in essential:
            held[ids] = True
        chosen = matched[kept[matched // boundfile.WINDOW]]
        return chosen[held[chosen]]
    candidates = essential[0].astype(np.int64)
    candidates = candidates[kept[candidates // boundfile.WINDOW]]
    at = np.minimum(np.searchsorted(matched, candidates), max(len(matched) - 1, 0))
    return candidates[matched[at] == candidates] if len(matched) else matched


def score(docnums: np.ndarray, postings: list[vectors.Postings], parameters: list[Parameters],
          lengths: np.ndarray, priors: tuple[np.ndarray, float] | None) -> np.ndarray:
    """The exact scores of `docnums` (sorted): each word's score where its list holds the
    document, added in the query's order, as the exhaustive path adds them."""
    summed = np.zeros(len(docnums))
    for (ids, weights), (factor, p_ref, _cf, mu) in zip(postings, parameters, strict=True):
        if not len(ids) or not len(docnums):
            continue
        at = np.minimum(np.searchsorted(ids, docnums), len(ids) - 1)
        held = ids[at] == docnums
        where, found = docnums[held], at[held]
        summed[held] += word_scores(weights[found], lengths[where], factor, p_ref, mu,
                                    None if priors is None else priors[0][where])
    return summed


def missing(reader: SegmentReader, words: list[str], postings: list[vectors.Postings]) -> list[int]:
    """Which of the words have long lists whose window bounds are not remembered yet: the
    segment is then scored every posting, and `remember` keeps their bounds from it."""
    return [i for i, (word, (ids, _weights)) in enumerate(zip(words, postings, strict=True))
            if len(ids) >= boundfile.LONG and segcache.peek(reader, _key(word)) is None
            and boundfile.bounds(reader, word) is None]


def remember(reader: SegmentReader, word: str, ids: np.ndarray, scores: np.ndarray, params: Parameters,
             windows: int) -> None:
    """Keep the window bounds of `word` from its postings' exact `scores` (weighted by the
    query: divided by its factor here, the margin covers the rounding)."""
    factor, p_ref, _cf, mu = params
    if factor > 0:
        segcache.keep(reader, _key(word), (window_max(ids, scores / factor, windows), p_ref, mu))


def _key(word: str) -> tuple:
    return ("window bounds", CONTENT, word, boundfile.WINDOW)


def _bounds(reader: SegmentReader, word: str, found: vectors.Postings, params: Parameters,
            lengths: np.ndarray, priors: tuple[np.ndarray, float] | None, windows: int) -> np.ndarray:
    """The most `word` (its list `found`) can add to a score in each window of the segment."""
    factor, p_ref, _cf, mu = params
    if len(found[0]) < boundfile.LONG:
        return factor * window_max(found[0], unit_scores(found, p_ref, mu, lengths, priors), windows)
    kept = boundfile.bounds(reader, word)
    if kept is not None and len(kept[0]) != windows:  # not this segment's lengths: unsound
        kept = None
    made, p_made, mu_made = kept or segcache.remembered(
        reader, _key(word),
        lambda: (window_max(found[0], unit_scores(found, p_ref, mu, lengths, priors), windows), p_ref, mu))
    if p_ref <= 0 or mu <= 0:
        return np.full(windows, np.inf)
    return factor * made * (max(1.0, p_made / p_ref) * max(1.0, mu_made / mu))


def _in_windows(matched: np.ndarray, edges: np.ndarray, chosen: np.ndarray) -> np.ndarray:
    """The matches in the `chosen` windows, window by window."""
    if not len(chosen):
        return matched[:0]
    starts, ends = edges[chosen], edges[chosen + 1]
    counts = ends - starts
    steps = np.ones(int(counts.sum()), dtype=np.int64)
    heads = np.cumsum(counts)[:-1]
    steps[0] = starts[0]
    steps[heads] = starts[1:] - ends[:-1] + 1
    return matched[np.cumsum(steps)]
