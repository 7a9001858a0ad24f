"""The relevance formula against a hand computation, and the score normalisation."""

from __future__ import annotations

import math

import pytest

from webcrawler.index.format.analysis import TITLE_WEIGHT
from webcrawler.index.search.proximity import PROXIMITY_WEIGHT
from webcrawler.index.search.weighting import word_weight

# The tiny collection (conftest.TINY), after the stop list ("for", "and", "is", "from",
# "an" are stop words; title words count TITLE_WEIGHT = 3 times in a word's count, the
# URL's words URL_WEIGHT = 2 times):
#   doc 1: title [apple, pie]  URL [apple]   body [apple, pie, recipe, apple, cinnamon]  length 8
#   doc 2: title [cider]       URL [cider]   body [apple, cider, pressed, apples]        length 6
#   doc 3: title [pies]        URL [pie]     body [pie, crust, pie, filling]             length 6
#   doc 4: title [motor]       URL [manual]  body [automobile, engine, manual]           length 5
# N, the collection's length in words, is 8+6+6+5 = 25 (Whoosh counts each token once);
# cf and tf count title words 3 times and URL words 2 times:
#   apple: doc1 title 3 + URL 2 + body 2 = 7, doc2 1     -> cf 8
#   pie:   doc1 title 3 + body 1 = 4, doc3 URL 2 + body 2 = 4     -> cf 8
N = 25.0
MU = N / 4  # the prior document length is the average document length: 25 words / 4 docs


def hand_weight(tf: float, length: float, cf: float) -> float:
    # w(t, d) = log(1 + (tf / (len + MU)) / ((cf + 1) / (N + 1)))
    return math.log(1 + (tf / (length + MU)) / ((cf + 1) / (N + 1)))


def test_title_weight_is_three() -> None:
    assert TITLE_WEIGHT == 3.0


def test_word_weight_matches_the_formula() -> None:
    assert word_weight(7, 8, 8, N, MU) == pytest.approx(hand_weight(7, 8, 8))


def test_two_word_query_scores_by_hand(tiny_exact) -> None:
    tiny = tiny_exact
    # relevance(q, d) = sum_t w(t, d) * w(t, q) / |q|, with w(t, q) = 1 and |q| = 2:
    # doc 1: apple and pie, next to each other (proximity: times 1 + PROXIMITY_WEIGHT)
    r1 = (hand_weight(7, 8, 8) + hand_weight(4, 8, 8)) / 2 * (1 + PROXIMITY_WEIGHT)
    r2 = hand_weight(1, 6, 8) / 2  # doc 2: apple only
    r3 = hand_weight(4, 6, 8) / 2  # doc 3: pie only
    assert r1 > r3 > r2
    results = tiny.search("apple pie")
    assert [h.doc_id for h in results.hits] == [1, 3, 2]
    assert [h.score for h in results.hits] == [1000, round(1000 * r3 / r1), round(1000 * r2 / r1)]
    assert results.total == 3


def test_repeated_query_word_weighs_more_in_the_query(tiny_exact) -> None:
    tiny = tiny_exact
    # "pie pie apple": w(pie, q) = 2, |q| = 3; doc 3 = 2 * w(pie, 3) / 3, doc 1 adds apple.
    hits = tiny.search("pie pie apple").hits
    r1 = (2 * hand_weight(4, 8, 8) + hand_weight(7, 8, 8)) / 3 * (1 + PROXIMITY_WEIGHT)
    r3 = 2 * hand_weight(4, 6, 8) / 3
    assert hits[1].doc_id == 3 and hits[1].score == round(1000 * r3 / r1)


def test_best_document_is_1000_and_scores_are_ints(tiny) -> None:
    hits = tiny.search("apple").hits
    assert hits[0].score == 1000
    assert all(isinstance(h.score, int) and 0 <= h.score <= 1000 for h in hits)
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))


def test_more_matched_words_rank_higher(tiny) -> None:
    assert tiny.search("cinnamon crust recipe").hits[0].doc_id == 1
