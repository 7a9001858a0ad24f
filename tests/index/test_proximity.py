"""Proximity: of two pages with the same words, the one where the query's words stand
together ranks first, on one index and on shards alike."""

from __future__ import annotations

from pathlib import Path

from webcrawler.index import IndexedDocument, open_searcher, open_writer
from webcrawler.index.proximity import PROXIMITY_WEIGHT, WINDOW, _near

FAR = "river " + "stones and pebbles lie along the bank " * 3 + "boat"
NEAR = "stones and pebbles lie along the bank " * 3 + "river boat"


def _index(tmp_path: Path) -> Path:
    index_dir = tmp_path / "index"
    with open_writer(index_dir) as writer:  # the far page first: it wins ties without proximity
        writer.add([IndexedDocument(1, "http://far.test/page", "", FAR, "far.test"),
                    IndexedDocument(2, "http://near.test/page", "", NEAR, "near.test")])
    return index_dir


def test_words_close_together_rank_first(tmp_path: Path) -> None:
    with open_searcher(_index(tmp_path)) as searcher:
        hits = searcher.search("river boat").hits
        assert [h.doc_id for h in hits] == [2, 1]
        assert hits[1].score == round(1000 / (1 + PROXIMITY_WEIGHT))  # same words, same length
        assert [h.doc_id for h in searcher.search("boat").hits] == [1, 2]  # one word: a tie


def test_near_means_within_the_window() -> None:
    assert _near([1, 10], [10 + WINDOW]) and not _near([1], [2 + WINDOW]) and not _near([], [1])
