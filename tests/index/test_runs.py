"""runs.py: a pool's postings spilled a term at a time and merged back by term."""

from __future__ import annotations

from pathlib import Path

from whoosh.filedb.filestore import FileStorage

from webcrawler.index.format import runs

ONE = b"B\x07"
SHARED = {ONE: ONE}


def test_a_run_reads_back_what_was_written_and_is_deleted(tmp_path: Path) -> None:
    storage = FileStorage(str(tmp_path))
    terms = [(("content", b"w%05d" % i), [(i, 1.0, b"B\x01", 3)], True)
             for i in range(runs.TERMS_A_PICKLE * 2 + 5)]  # three chunks
    runs.write_run(storage, "a.run", iter(terms))
    assert list(runs.read_run(storage, "a.run")) == terms
    assert not storage.file_exists("a.run")


def test_terms_merge_in_order_and_postings_join_in_document_order() -> None:
    first = iter([(("content", b"a"), [(0, 1.0, bytes(ONE), 4)], True),
                  (("content", b"c"), [(1, 1.0, b"B\x02", 5)], True)])
    second = iter([(("content", b"b"), [(2, 2.0, b"B\x03", 6)], True),
                   (("content", b"c"), [(2, 1.0, bytes(ONE), 6)], True),
                   (("title", b"a"), [(2, 1.0, b"x")], False)])
    merged = list(runs.merged([first, second], SHARED))
    assert [term for term, _postings, _lengths in merged] == [
        ("content", b"a"), ("content", b"b"), ("content", b"c"), ("title", b"a")]
    term, postings, with_lengths = merged[2]
    assert postings == [(1, 1.0, b"B\x02", 5), (2, 1.0, ONE, 6)] and with_lengths
    assert postings[1][2] is ONE  # a joined term's shared value is the pool's object again


def test_parts_without_lengths_or_out_of_order_are_joined_as_the_term_writer_needs() -> None:
    with_lengths = iter([(("content", b"a"), [(5, 1.0, b"v5", 9)], True)])
    without = iter([(("content", b"a"), [(3, 1.0, b"v3")], False)])  # a merged segment's
    [(term, postings, has_lengths)] = list(runs.merged([with_lengths, without], SHARED))
    assert not has_lengths  # the term writer reads every document's length
    assert postings == [(3, 1.0, b"v3"), (5, 1.0, b"v5")]  # in document order
