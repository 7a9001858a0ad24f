"""A merge's plain terms written as columns (`mergecolumns`) store the same bytes as the
term-by-term path (`merging._joined`), whatever mix of lists a term has: in one segment or
in all, with a posting of the merging commit or not, with arrays or without, one block or
several, docnums whose pickles widen when shifted, a segment with deletions, terms taken a
few at a time."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bench.index_digest import digest
from webcrawler.index import IndexedDocument, open_writer
from webcrawler.index.format import fastpaths, mergecolumns
from webcrawler.index.format.opening import open_index
from webcrawler.index.format.schema import CONTENT


def _doc(i: int) -> IndexedDocument:
    words = [f"own{i}"] * (1 + i % 3)  # in one segment only (weights above 1 too)
    words += ["every"]  # in every segment and in the merging commit
    words += ["half"] if i % 2 else []  # 20 a segment of 40: arrays in each
    words += ["seventh"] * (1 + i % 2) if i % 7 == 0 else []  # 5-6 a segment: arrays once merged
    words += ["early"] if i < 150 else []  # one block of 40, then a list of 150: two blocks
    words += ["late"] if i >= 330 else []  # only in the merging commit's documents
    # once in each merged segment (8) and ten times in the merging commit: arrays only with those
    words += ["pooled"] if (i < 320 and i % 40 == 1) or (i >= 320 and i % 4 == 0) else []
    words += ["gone"] if i in (3, 5, 44) else []  # its postings partly deleted
    return IndexedDocument(i, f"http://h.test/{i}", f"page {i % 11}", " ".join(words), "h.test")


def _build(index_dir: Path, deleted: list[int]) -> None:
    """Nine commits of 40 (the ninth merges the eight before: docnums up to 359, so a block's
    pickled docnums widen from K to M when shifted), then everything merged into one."""
    with open_writer(index_dir) as writer:
        for start in range(0, 360, 40):
            writer.add([_doc(i) for i in range(start, start + 40)])
            if start == 40:
                writer.delete(deleted)
            writer.commit()
        writer.add([_doc(i) for i in range(360, 380)])
        writer.optimize()


def _refusing(data: np.ndarray, start: np.ndarray, length: np.ndarray) -> tuple:
    """`mergecolumns._one_blocks` accepting no list: every term goes `merging._joined`'s way."""
    ok, cuts, last, first = _ONE_BLOCKS(data, start, length)
    return np.zeros_like(ok), cuts, last, first


_ONE_BLOCKS = mergecolumns._one_blocks


@pytest.mark.parametrize("chunk", [mergecolumns._CHUNK, 3])  # 3: a few terms at a time
@pytest.mark.parametrize("deleted", [[], [3, 44]])
def test_columns_write_what_the_term_by_term_merge_writes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int, deleted: list[int]) -> None:
    monkeypatch.setattr(mergecolumns, "_CHUNK", chunk)
    fastpaths.reset()
    _build(tmp_path / "columns", deleted)
    assert fastpaths.taken["mergecolumns.plain"] >= 2  # the ninth commit's merge and optimize's
    with monkeypatch.context() as patched:
        patched.setattr(mergecolumns, "_one_blocks", _refusing)
        fastpaths.reset()
        _build(tmp_path / "terms", deleted)
        assert fastpaths.taken["mergecolumns.plain"] == 0
    assert digest(tmp_path / "columns") == digest(tmp_path / "terms")


def test_a_merged_segment_of_deleted_documents_only(tmp_path: Path) -> None:
    """A segment whose documents are all deleted before the merge adds no posting; the
    terms it shares with the others are written from theirs."""
    with open_writer(tmp_path / "ix") as writer:
        for start in range(0, 360, 40):
            writer.add([_doc(i) for i in range(start, start + 40)])
            if start == 80:
                writer.delete(range(40, 80))
            writer.commit()
        writer.optimize()
    ix = open_index(tmp_path / "ix", create=False)
    try:
        with ix.reader() as reader:
            ids = sorted(int(reader.stored_fields(n)["doc_id"]) for n in reader.all_doc_ids())
            assert ids == [i for i in range(360) if not 40 <= i < 80]
            assert (CONTENT, "own41") not in reader and (CONTENT, "own81") in reader
            assert len(list(reader.postings(CONTENT, "every").all_ids())) == 320
    finally:
        ix.close()
