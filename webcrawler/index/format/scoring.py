"""Whoosh's scoring protocol, for a ranking that scores a word by (weight, length).

Whoosh ranks through a `WeightingModel` whose `scorer()` returns a scorer per word and
segment; the scorer reads each matched document's weight and length, and bounds whole
blocks for Whoosh's block-max skipping. `LengthModel` and `LengthScorer` do that part (the
lengths read in one piece, `lengths.py`; an optional per-document factor such as the link
prior); the ranking (`search/weighting.py`) subclasses them and gives only its typed
formula: `LengthModel.word_scorer` and `LengthScorer.word_score`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from whoosh.reading import SegmentReader
from whoosh.scoring import WeightingModel, WeightLengthScorer

from webcrawler.index.format.lengths import BYTE_LENGTH, segment_lengths

# a segment -> (each document's factor, the largest), or None: no factor in this segment
Factors = Callable[[SegmentReader], tuple[np.ndarray, float] | None]


class LengthScorer(WeightLengthScorer):
    """Scores one word in one segment: `word_score(weight, length)` times the document's factor.
    Subclasses set what `word_score` reads, then call `__init__` (it bounds the list)."""

    def __init__(self, searcher: Any, fieldname: str, text: bytes | str, factors: Factors) -> None:
        self.setup(searcher, fieldname, text)
        self._lengths = segment_lengths(searcher.reader(), fieldname)
        found = factors(searcher.reader())
        self._prior: np.ndarray | None = None if found is None else found[0]
        self._max_prior = 1.0 if found is None else found[1]

    def word_score(self, weight: float, length: float) -> float:
        """The word's score in a document of `length` words where it weighs `weight`: monotone,
        up in weight and down in length, so that a block's bound bounds its documents."""
        raise NotImplementedError(type(self).__name__)

    def score(self, matcher: Any) -> float:
        lengths = self._lengths
        docnum = matcher.id()
        if lengths is None:
            score = self.word_score(matcher.weight(), self.dfl(docnum))
        else:
            score = self.word_score(matcher.weight(), BYTE_LENGTH[lengths[docnum]])
        return score if self._prior is None else score * float(self._prior[docnum])

    def max_quality(self) -> float:
        return float(self._maxquality * self._max_prior)

    def block_quality(self, matcher: Any) -> float:
        return self.word_score(matcher.block_max_weight(), matcher.block_min_length()) * self._max_prior

    def _score(self, weight: float, length: float) -> float:  # what Whoosh's `setup` calls
        return self.word_score(weight, length)


class LengthModel(WeightingModel):
    """A weighting model of `LengthScorer`s, with block-max skipping; no final pass."""

    use_final = False

    def supports_block_quality(self) -> bool:
        return True

    def scorer(self, searcher: Any, fieldname: str, text: bytes | str, qf: float = 1) -> LengthScorer:
        return self.word_scorer(searcher, fieldname, text, qf)

    def word_scorer(self, searcher: Any, fieldname: str, text: bytes | str, qf: float) -> LengthScorer:
        """The scorer of the word `text` of `fieldname` in `searcher`'s segment."""
        raise NotImplementedError(type(self).__name__)
