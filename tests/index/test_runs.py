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
    runs.write_fields(storage, "a.run", [("content", iter(terms))])
    records = list(runs.read_fields(storage, "a.run", []))
    assert [len(chunk) for _field, chunk in records] == [runs.TERMS_A_PICKLE] * 2 + [5]
    assert list(runs.terms_of(records)) == terms
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


def test_columns_spilled_in_chunks_join_back_to_the_postings_held_in_memory(tmp_path: Path) -> None:
    """A pool that spills its columns (`commitwords.WordPostings`) to runs in chunks of
    `TERMS_A_PICKLE` words gives back, joined by word across runs and chunks, the postings a
    pool that holds them all gives, each shared value the pool's own object again."""
    from webcrawler.index.format.postings import _ONE_BYTE, ContentField, PostingPool

    field = ContentField()
    vocabulary = [f"w{n}x" for n in range(3 * runs.TERMS_A_PICKLE)]
    spilled = PostingPool(FileStorage(str(tmp_path)), None, limitmb=1)
    held = PostingPool(FileStorage(str(tmp_path)), None)
    for docnum in range(100):  # a run per 27 or so (the pool's estimate: `WORD_BYTES` a word)
        text = " ".join(vocabulary[(docnum * 37 + n * n) % len(vocabulary)] for n in range(700))
        for pool in (spilled, held):
            field.pool_postings(text, "content", docnum, pool)
    assert len(spilled.runs) > 2 and not held.runs
    merged = spilled.iter_postings()
    assert isinstance(merged, runs.MergedRuns)
    chunks = list(merged.fields())
    assert len(chunks) > 3 and {name for name, _columns in chunks} == {"content"}  # a few thousand words each
    made = [((name, word), postings) for name, columns in chunks
            for word, postings in columns.postings().items()]  # type: ignore[union-attr]
    expected = [(term, postings) for term, postings, _lengths in held.iter_postings().terms()]
    assert made == expected and len(made) > runs.TERMS_A_PICKLE
    shared = set(map(id, _ONE_BYTE))
    assert any(id(posting[2]) in shared for _term, postings in made for posting in postings)
    assert all(id(posting[2]) in shared for _term, postings in made for posting in postings
               if posting[2] in _ONE_BYTE)
