"""Peculiarity weighting and the paper's relevance, as a Whoosh weighting model.

The paper: a word's weight in a document is "its frequency in the document
divided by its frequency in a reference domain", and a query's relevance to a
document is "the sum, over all words in the query, of the product of the word's
weight in the document and its weight in the query, all divided by the number
of words in the query". Here, exactly::

    p_doc(t, d) = tf(t, d) / (len(d) + MU)        # title words count TITLE_WEIGHT times;
                                                  # MU = the average document length
    p_ref(t)    = (cf(t) + 1) / (N + 1)           # the collection is the reference domain
    w(t, d)     = log(1 + p_doc(t, d) / p_ref(t)) # peculiarity, on a log scale
    w(t, q)     = qf(t)                           # times in the query; thesaurus words 0.5
    relevance   = sum over t in q of w(t, d) * w(t, q), divided by |q|

where tf is the word's weighted count in the document, len(d) the document's
length in words, cf the word's weighted count in the whole index and N the
index's total length in words. Words absent from a document add nothing (OR
semantics), so a document that matches more of the query's words ranks higher.

Reference domain: the collection's own word frequencies (the variants compared,
with their figures: docs/measurements.md). General English calls
"sql", "git", "regex" rare although this collection is full of them, so those
words outweigh the ones that tell its pages apart; the blend is no better than
the collection alone and needs a data file. The collection also follows the
crawl as it grows.

Hub pages: the paper read literally (tf / cf, no length) lets long pages - a
site's "genindex", "bookindex", a changelog - win on sheer counts. Dividing by
the document's length makes the count a relative frequency (what "frequency"
means on both sides of the ratio); the prior MU (the average document length:
a Dirichlet prior of one average page) keeps a ten-word page from winning with
one lucky word; the log keeps one rare word from drowning the others (a sum of
logs is the log of the product of peculiarities: how much likelier the
document's language makes the query than the reference's). Each of these choices
was measured against its alternatives (docs/measurements.md).

Upper bounds: w(t, d) grows with tf and shrinks with len(d), so the score of
the block's largest weight at the block's shortest length bounds every score
in that block (`block_quality`), and likewise for the whole posting list
(`max_quality`). Whoosh's stored lengths are quantised, but block minimum
lengths use the same quantisation as per-document lengths, so the bound holds.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from webcrawler.index.format.scoring import LengthModel, LengthScorer
from webcrawler.index.search import prior

MU = None  # prior document length in words; None: the collection's average document length

Reference = Callable[[str], float]  # word -> relative frequency in a reference domain
# (field, word as bytes) -> (N, cf, average length) over a whole collection: a sharded
# index's statistics, summed over every shard (`shards.py`)
Collection = Callable[[str, bytes], tuple[float, float, float]]


class Peculiarity(LengthModel):
    """The weighting model for one query.

    `query_weights` maps each query word to its weight in the query (missing words
    weigh 1); `n_words` is the paper's "number of words in the query". `mode` and
    `reference` exist for the benchmark: "log" (the default above), "ratio" (no log)
    or "literal" (tf / cf, no length: the paper read literally). `reference`, when
    given, is blended into the collection's frequencies with `reference_share` (1.0: it
    replaces the collection as the reference domain).
    """

    def __init__(
        self,
        query_weights: Mapping[str, float] | None = None,
        n_words: int = 1,
        mu: float | None = MU,
        mode: str = "log",
        reference: Reference | None = None,
        reference_share: float = 1.0,
        stats: dict[tuple, tuple] | None = None,
        collection: Collection | None = None,
    ) -> None:
        self.query_weights = dict(query_weights or {})
        self.n_words = max(1, n_words)
        self.mu = mu
        self.mode = mode
        self.reference = reference
        self.reference_share = reference_share
        # (searcher id, field, word) -> (N, cf, average length, searcher): see _collection_stats
        self.stats: dict[tuple, tuple] = {} if stats is None else stats
        # None: the statistics of the index being searched; else the whole collection's, so
        # that one shard scores its documents exactly as one index over every shard would
        self.collection = collection

    def word_scorer(self, searcher: Any, fieldname: str, text: bytes | str,
                    qf: float) -> PeculiarityScorer:
        factor, p_ref, cf, mu = self.parameters(searcher.get_parent(), fieldname, text, qf)
        return PeculiarityScorer(searcher, fieldname, text, self, p_ref, cf, factor, mu)

    def parameters(self, parent: Any, fieldname: str, text: bytes | str,
                   qf: float = 1) -> tuple[float, float, float, float]:
        """(factor, p_ref, cf, mu) of a word: w(t, d) * w(t, q) / |q| is
        factor * log(1 + tf / (len + mu) / p_ref). Whole-index statistics, the same for
        every segment (`parent` is the index's top-level Whoosh searcher)."""
        word = text.decode("utf-8") if isinstance(text, bytes) else text
        factor = self.query_weights.get(word, 1.0) * qf / self.n_words
        total, cf, average = self._collection_stats(parent, fieldname, text)
        p_ref = (cf + 1.0) / (total + 1.0)
        if self.reference is not None:
            share = self.reference_share
            p_ref = share * max(self.reference(word), 1e-9) + (1.0 - share) * p_ref
        mu = self.mu if self.mu is not None else average
        return factor, p_ref, cf, mu

    def _collection_stats(self, parent: Any, fieldname: str,
                          text: bytes | str) -> tuple[float, float, float]:
        """(N, cf, average length) over the whole index. Each sums over every segment, so
        they are kept in `self.stats` (a searcher may share one dict between queries while
        its index does not change)."""
        if self.collection is not None:
            return self.collection(fieldname, text if isinstance(text, bytes) else text.encode())
        key = (id(parent), fieldname, text)
        found = self.stats.get(key)
        if found is None:
            total = parent.field_length(fieldname) or 1
            average = parent.avg_field_length(fieldname, 0.0)
            cf = parent.frequency(fieldname, text)
            found = self.stats[key] = (total, cf, average, parent)
        return found[:3]


class PeculiarityScorer(LengthScorer):
    """Scores one word: w(t, d) * w(t, q) / |q|; monotone in (weight up, length down)."""

    def __init__(self, searcher: Any, fieldname: str, text: bytes | str, model: Peculiarity,
                 p_ref: float, cf: float, factor: float, mu: float) -> None:
        self.mu = mu
        self.mode = model.mode
        self.p_ref = p_ref
        self.cf = max(cf, 1.0)
        self.factor = factor
        super().__init__(searcher, fieldname, text, prior.factors)

    def word_score(self, weight: float, length: float) -> float:
        if self.mode == "literal":
            return self.factor * weight / self.cf
        peculiarity = weight / (length + self.mu) / self.p_ref
        if self.mode == "ratio":
            return self.factor * peculiarity
        return self.factor * math.log1p(peculiarity)


def word_scores(weights: np.ndarray, lengths: np.ndarray, factor: float, p_ref: float, mu: float,
                priors: np.ndarray | None = None) -> np.ndarray:
    """factor * w(t, d) (times each document's link prior) for postings' `weights` and their
    documents' `lengths`: the one formula of the array paths (`wordsearch.py`, `pruning.py`,
    `boundfile.py`), so that a pruned query's scores are the exhaustive ones to the bit."""
    scores = factor * np.log1p(weights.astype(np.float64) / (lengths + mu) / p_ref)
    return scores if priors is None else scores * priors


def word_weight(tf: float, length: float, cf: float, total: float, mu: float) -> float:
    """w(t, d) for the collection reference, outside Whoosh (tests, explanations)."""
    return math.log1p(tf / (length + mu) / ((cf + 1.0) / (total + 1.0)))
