"""A commit's postings made from its words at once (`commitwords.py`) are the postings made one
document at a time (`postings.word_positions`, `PostingPool.add_terms`), to the byte."""

from __future__ import annotations

from pathlib import Path

from whoosh.filedb.filestore import FileStorage

from webcrawler.index.format.analysis import TitledText
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


def test_the_words_of_a_commit_make_the_postings_of_its_documents(tmp_path: Path) -> None:
    field = ContentField()
    by_document, by_commit = _pool(tmp_path, "document"), _pool(tmp_path, "commit")
    for docnum, value in enumerate(DOCUMENTS * 2):
        positions, boost = word_positions(value)
        length = sum(map(len, positions.values()))
        by_document.add_terms("content", docnum, positions, boost, length)
        assert field.pool_postings(value, "content", docnum, by_commit) == length
    assert by_commit.currentsize == by_document.currentsize  # spills at the same size
    made = by_commit.iter_postings()._words["content"]  # type: ignore[union-attr]
    expected = by_document.iter_postings()._words["content"]  # type: ignore[union-attr]
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
