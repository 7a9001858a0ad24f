"""Window bounds written beside a segment (boundfile.py): the writer writes them for the
segments it makes, they bound every document's score as the bounds a query would make do,
the block tables kept with them are those a query would make,
pruning reads them instead of making its own and answers as scoring every posting does,
also after commits that change the statistics, and a missing or damaged file is ignored."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from tests.index.test_pruning import _answers, _document
from webcrawler.index import open_searcher, open_writer
from webcrawler.index.format import segcache, vectors
from webcrawler.index.format.blocks import block_table, extent
from webcrawler.index.format.opening import open_index
from webcrawler.index.format.schema import CONTENT
from webcrawler.index.search import boundfile, prior


@pytest.fixture()
def small(monkeypatch: pytest.MonkeyPatch) -> None:
    """Long lists and windows made small, so that a few thousand documents have them."""
    monkeypatch.setattr(boundfile, "LONG", 8)
    monkeypatch.setattr(boundfile, "TABLED", 4)
    monkeypatch.setattr(boundfile, "WINDOW", 16)
    segcache.clear()
    boundfile.forget()


def _build(path: Path, batches: int, rng: random.Random, short: bool = False, first: int = 1) -> None:
    with open_writer(path) as writer:
        for start in range(first, first + 600 * batches, 600):
            writer.add([_document(rng, n, short) for n in range(start, start + 600)])
            writer.commit()


def _files(path: Path) -> list[Path]:
    return sorted(path.glob("*" + boundfile.SUFFIX))


def test_the_writer_writes_bounds_that_bound_every_score(tmp_path: Path, small: None) -> None:
    path = tmp_path / "ix"
    _build(path, 2, random.Random(1))
    assert len(_files(path)) == 2  # one a segment
    ix = open_index(path, create=False)
    checked = 0
    with ix.searcher() as searcher:
        for sub, _offset in searcher.leaf_searchers():
            reader = sub.reader()
            lengths, priors = vectors.lengths(reader, CONTENT), prior.factors(reader)
            windows = boundfile.windows_of(lengths)
            for word in ("the", *(t.decode() for t in reader.lexicon(CONTENT))):
                found = vectors.postings(reader, CONTENT, word)
                kept, kept_table = boundfile.bounds(reader, word), boundfile.blocks(reader, word)
                if len(found[0]) >= boundfile.TABLED and (CONTENT, word) in reader:
                    start, length = extent(reader._terms.term_info(CONTENT, word.encode()))
                    table = block_table(reader._terms._postfile.get(start, length))
                    assert kept_table is not None
                    assert np.array_equal(kept_table[0], table[0]) and np.array_equal(kept_table[1], table[1])
                else:
                    assert kept_table is None
                if len(found[0]) < boundfile.LONG:
                    assert kept is None
                    continue
                assert kept is not None, word
                made, p_ref, mu = kept
                exact = boundfile.window_max(
                    found[0], boundfile.unit_scores(found, p_ref, mu, lengths, priors), windows)
                assert np.all(made >= exact)
                assert np.allclose(made, exact, rtol=1e-6, atol=0)
                checked += 1
    ix.close()
    assert checked > 50


def test_pruning_reads_the_files_and_answers_as_scoring_every_posting(
        tmp_path: Path, small: None, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "ix"
    rng = random.Random(2)
    _build(path, 2, rng)
    pruned = _answers(path, monkeypatch, pruned=True)
    assert not [key for key in segcache._memo if "window bounds" in key]  # none made by a query
    assert pruned == _answers(path, monkeypatch, pruned=False)
    # short documents lower the average length and change every word's frequency: the
    # files' bounds, made with the statistics of their commit, are scaled, never too low
    _build(path, 1, rng, short=True, first=2000)
    assert len(_files(path)) == 3
    assert _answers(path, monkeypatch, pruned=True) == _answers(path, monkeypatch, pruned=False)


def test_a_copy_without_its_files_gets_them_where_the_original_s_are_remembered(
        tmp_path: Path, small: None, monkeypatch: pytest.MonkeyPatch) -> None:
    original, copy = tmp_path / "ix", tmp_path / "copy"
    _build(original, 2, random.Random(4))
    _answers(original, monkeypatch, pruned=True)  # the original's tables, remembered by this process
    copy.mkdir()
    for file in original.iterdir():
        if file.suffix != boundfile.SUFFIX:
            (copy / file.name).write_bytes(file.read_bytes())
    ix = open_index(copy, create=False)
    try:
        assert boundfile.write_missing(ix) == 2
    finally:
        ix.close()
    assert [file.name for file in _files(copy)] == [file.name for file in _files(original)]


@pytest.mark.parametrize("damage", ["missing", "truncated", "flipped", "garbage"])
def test_a_missing_or_damaged_file_is_ignored(
        tmp_path: Path, small: None, monkeypatch: pytest.MonkeyPatch, damage: str) -> None:
    path = tmp_path / "ix"
    _build(path, 1, random.Random(3))
    exhaustive = _answers(path, monkeypatch, pruned=False)
    [file] = _files(path)
    data = file.read_bytes()
    if damage == "missing":
        file.unlink()
    elif damage == "truncated":
        file.write_bytes(data[: len(data) // 2])
    elif damage == "flipped":  # a bound lowered to zero would drop a result: the checksum sees it
        file.write_bytes(data[:-8] + bytes(8))
    else:
        file.write_bytes(b"not a bounds file")
    boundfile.forget()
    assert _answers(path, monkeypatch, pruned=True) == exhaustive
    assert [key for key in segcache._memo if "window bounds" in key]  # made by the queries instead
    with open_writer(path) as writer:  # the next commit writes it again
        writer.add([_document(random.Random(5), 5000)])
    assert len(_files(path)) == 1
    segcache.clear()
    assert _answers(path, monkeypatch, pruned=True) == _answers(path, monkeypatch, pruned=False)
    assert not [key for key in segcache._memo if "window bounds" in key]


def test_a_segment_merged_away_takes_its_file_along(tmp_path: Path, small: None) -> None:
    path = tmp_path / "ix"
    _build(path, 2, random.Random(4))
    before = _files(path)
    with open_writer(path) as writer:
        writer.optimize()
    after = _files(path)
    assert len(after) == 1 and after[0] not in before


def test_a_file_written_after_a_searcher_looked_is_read_later(
        tmp_path: Path, small: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """The writer writes a merged segment's file after its commit, and a searcher may open the
    segment in between: the missing file is looked for again (`RETRY` seconds later)."""
    path = tmp_path / "ix"
    _build(path, 1, random.Random(6))
    [file] = _files(path)
    data = file.read_bytes()
    file.unlink()
    monkeypatch.setattr(boundfile, "RETRY", 3600.0)
    _answers(path, monkeypatch, pruned=True)  # misses the file, makes the bounds it needs
    file.write_bytes(data)
    segcache.clear()
    _answers(path, monkeypatch, pruned=True)
    assert [key for key in segcache._memo if "window bounds" in key]  # not looked for again yet
    monkeypatch.setattr(boundfile, "RETRY", 0.0)
    segcache.clear()
    assert _answers(path, monkeypatch, pruned=True) == _answers(path, monkeypatch, pruned=False)
    assert not [key for key in segcache._memo if "window bounds" in key]  # read from the file


def test_a_searcher_reads_the_files_as_it_opens_a_commit(tmp_path: Path, small: None) -> None:
    """Not in the first query that needs them: a large segment's file takes tens of
    milliseconds to check and read."""
    path = tmp_path / "ix"
    _build(path, 2, random.Random(7))
    boundfile.forget()
    with open_searcher(path):
        assert len(boundfile._opened) == len(_files(path)) == 2
