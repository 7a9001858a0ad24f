"""Proximity: of two pages with the same words, the one where the query's words stand
together ranks first, on one index and on shards alike."""

from __future__ import annotations

from pathlib import Path

from webcrawler.index import IndexedDocument, open_searcher, open_writer
from webcrawler.index.search.proximity import PROXIMITY_WEIGHT, WINDOW, _near

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


def test_positions_read_block_by_block_are_whoosh_matchers_positions(tmp_path: Path) -> None:
    """`blocks.values_of` unpickles only the blocks holding the wanted documents: over
    lists of several blocks, across segments, the positions Whoosh's matchers give."""
    from whoosh.reading import SegmentReader

    from webcrawler.index.format.blocks import values_of
    from webcrawler.index.format.opening import open_index
    from webcrawler.index.format.schema import CONTENT

    with open_writer(tmp_path / "index") as writer:
        for start in (0, 400):
            writer.add([IndexedDocument(i, f"http://h.test/{i}", "", f"{'boat ' * (i % 4)}river "
                                        f"{'word ' * (i % 9)}boat river", "h.test")
                        for i in range(start, start + 400) if i % 5])
            writer.commit()
    ix = open_index(tmp_path / "index", create=False)
    with ix.searcher() as searcher:
        for sub, _offset in searcher.leaf_searchers():
            reader = sub.reader()
            assert isinstance(reader, SegmentReader)
            wanted = list(range(0, reader.doc_count_all(), 37)) + [reader.doc_count_all() - 1]
            for word in ("river", "boat", "absent"):
                expected = {}
                if (CONTENT, word) in reader:
                    matcher = reader.postings(CONTENT, word)
                    while matcher.is_active():
                        if matcher.id() in wanted:
                            expected[matcher.id()] = matcher.value_as("positions")
                        matcher.next()
                decode = reader.schema[CONTENT].format.decode_positions
                got = {d: decode(v) for d, v in values_of(reader, CONTENT, word, wanted)}
                assert got == expected and (word == "absent") == (not got)
    ix.close()
