"""The fast paths are taken, on a real index: a Whoosh release that silently sent word
queries, merges or segment reads back down Whoosh's own way (correct, 15x slower) would
pass every other test. Counted by `webcrawler.index.format.fastpaths`, not timed."""

from __future__ import annotations

from pathlib import Path

import pytest

from webcrawler.index import IndexedDocument, open_searcher, open_writer
from webcrawler.index.format.fastpaths import reset, taken


def pages(start: int, count: int) -> list[IndexedDocument]:
    """`count` pages that all hold "common" (a list long enough for posting arrays)."""
    return [IndexedDocument(i, f"http://h.test/{i}", f"page {i}", f"common words and word{i}", "h.test")
            for i in range(start, start + count)]


@pytest.fixture
def three_segments(tmp_path: Path) -> Path:
    index_dir = tmp_path / "ix"
    with open_writer(index_dir) as writer:
        for start in (1, 31, 61):
            writer.add(pages(start, 30))
            writer.commit()
    return index_dir


def test_word_queries_are_scored_from_posting_arrays(three_segments: Path) -> None:
    with open_searcher(three_segments) as searcher:
        reset()
        results = searcher.search("common words")
        assert results.total == 90
        assert taken["wordsearch.arrays"] == 3  # each segment, term at a time
        assert taken["vectors.arrays"] == 6  # two words, three segments: arrays, not blocks
        assert taken["wordsearch.whoosh"] == 0 and taken["vectors.blocks"] == 0
        reset()
        searcher.search('"common words"')  # a phrase goes Whoosh's way: the counters can tell
        assert taken["wordsearch.arrays"] == 0


def test_merges_copy_posting_blocks_and_keep_the_arrays(three_segments: Path) -> None:
    reset()
    with open_writer(three_segments) as writer:
        writer.optimize()
    assert taken["merging.copied"] == 3 and taken["merging.decoded"] == 0
    assert taken["merging.stored_copied"] == 3
    with open_searcher(three_segments) as searcher:
        reset()
        assert searcher.search("common").total == 90
        assert taken["vectors.arrays"] == 1 and taken["vectors.blocks"] == 0


def test_segments_are_read_through_the_memory_map(three_segments: Path) -> None:
    reset()
    with open_searcher(three_segments) as searcher:
        assert searcher.search("word45").total == 1
    # Whoosh asked our mapped file for each part of each segment rather than copying it
    assert taken["storage.subset"] >= 3  # at least one part of each of the three segments

