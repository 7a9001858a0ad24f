"""A commit's postings made from its words at once (`commitwords.py`) are the postings made one
document at a time (`postings.word_positions`, `PostingPool.add_terms`), to the byte."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from whoosh.filedb.filestore import FileStorage

from webcrawler.index.format.analysis import TitledText
from webcrawler.index.format.commitwords import _word_order
from webcrawler.index.format.postings import ContentField, PostingPool, word_positions

DOCUMENTS = [
    TitledText("Apple pie", "apple pie recipe for apple and cinnamon, apple again"),
    TitledText("", ""),  # no words: a length of 0, no postings
    "a plain str value without a title",
    TitledText("Cider", "cider " * 300 + "press " * 2 + "cider"),  # positions past 255, gaps past 255
    TitledText("far", " ".join(["near"] * 70_000 + ["far", "away", "far"])),  # positions past 65,535
    TitledText("Pies", "pie crust and pie filling", (("pies crust", 2.0), ("", 2.0), ("pie", 1.0))),
    TitledText("Odd", "odd weights fall back", (("odd", 1.5),)),  # not whole: one document at a time
    TitledText("Motor", "an automobile engine manual\u2019s \u00e9dition"),
]


def _pool(tmp_path: Path, name: str) -> PostingPool:
    folder = tmp_path / name
    folder.mkdir()
    return PostingPool(FileStorage(str(folder)), None)


def _content_postings(pool: PostingPool) -> dict[bytes, list]:
    """word -> its postings of the content field, as the pool gives them to the term writer."""
    return {btext: list(postings) for (fieldname, btext), postings, _lengths in pool.iter_postings().terms()
            if fieldname == "content"}


def test_the_words_of_a_commit_make_the_postings_of_its_documents(tmp_path: Path) -> None:
    field = ContentField()
    by_document, by_commit = _pool(tmp_path, "document"), _pool(tmp_path, "commit")
    for docnum, value in enumerate(DOCUMENTS * 2):
        positions, boost = word_positions(value)
        length = sum(map(len, positions.values()))
        by_document.add_terms("content", docnum, positions, boost, length)
        assert field.pool_postings(value, "content", docnum, by_commit) == length
    assert by_commit.currentsize == by_document.currentsize  # spills at the same size
    made, expected = _content_postings(by_commit), _content_postings(by_document)
    assert made == expected
    assert {posting[2][:1] for postings in made.values() for posting in postings} == {b"B", b"H", b"I"}
    for word, postings in made.items():
        for mine, theirs in zip(postings, expected[word], strict=True):
            assert type(mine[1]) is type(theirs[1]) is float
            assert (mine[2] is theirs[2]) == (len(theirs[2]) == 2 and theirs[2][:1] == b"B")  # shared


def test_a_pool_that_spills_to_disk_spills_the_same_postings(tmp_path: Path) -> None:
    field = ContentField()
    pools = [PostingPool(FileStorage(str(tmp_path)), None, limitmb=0) for _ in range(2)]
    by_document, by_commit = pools
    for docnum, value in enumerate(DOCUMENTS):
        positions, boost = word_positions(value)
        by_document.add_terms("content", docnum, positions, boost, sum(map(len, positions.values())))
        field.pool_postings(value, "content", docnum, by_commit)
    assert by_commit.runs and len(by_commit.runs) == len(by_document.runs)
    made = list(by_commit.iter_postings().terms())  # type: ignore[union-attr]
    expected = list(by_document.iter_postings().terms())  # type: ignore[union-attr]
    assert made == expected and len(made) > 20
    for pool in pools:
        pool.cleanup()


@pytest.mark.parametrize(("words", "in_order"), [(300, True), (70_000, True), (300, False)])
def test_words_sort_by_word_then_document_as_the_combined_key_sorts_them(words: int, in_order: bool) -> None:
    """Few distinct words (16-bit keys), more than 2**16 (two passes), documents out of order."""
    rng = np.random.default_rng(words)
    ids = rng.integers(0, words, 200_000)
    ids[:words] = np.arange(words)  # every word id occurs
    docs = rng.integers(5, 405, ids.size)
    if in_order:
        docs.sort()
    want = np.argsort(ids * 400 + (docs - 5), kind="stable")
    assert np.array_equal(_word_order(ids, docs, words, 400, 5), want)
