"""Dynamic pruning (pruning.py) changes nothing a searcher answers: the same results, scores,
totals and facets as scoring every posting, with the link prior, anchor texts, headings,
proximity, grouping by site, filters, stemming and typo-corrected words all in play, and
after commits that change the statistics its remembered bounds were made with."""

from __future__ import annotations

import random
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.support.genweb import vocabulary
from webcrawler.index import IndexedDocument, open_searcher, open_writer
from webcrawler.index.format import fastpaths, segcache
from webcrawler.index.search import boundfile, pruning, wordsearch

WORDS = [w for w in vocabulary()[:400] if len(w) > 3]
SITES = [f"s{n}.test" for n in range(12)]
QUERIES = [
    WORDS[0], WORDS[1], WORDS[5], WORDS[40], WORDS[200],
    f"{WORDS[0]} {WORDS[1]}", f"{WORDS[2]} {WORDS[90]}", f"{WORDS[3]} {WORDS[4]} {WORDS[150]}",
    f"{WORDS[0]} {WORDS[1]} {WORDS[2]} {WORDS[3]}",
    f"{WORDS[0]} lang:de", f"{WORDS[1]} {WORDS[7]} type:pdf", f"{WORDS[6]} type:html lang:en",
    WORDS[0][:-1] + WORDS[0][-1] * 2,  # a typo: corrected to a near spelling
    f"{WORDS[8]} {WORDS[9][1:]}x",
]


def _document(rng: random.Random, n: int, short: bool = False) -> IndexedDocument:
    length = rng.choice([5, 12] if short else [5, 30, 120, 400, 1500])
    text = " ".join(rng.choices(WORDS, weights=[1 / (k + 1) for k in range(len(WORDS))], k=length))
    site = SITES[n % len(SITES)]
    return IndexedDocument(
        n, f"http://{site}/{n}", " ".join(rng.sample(WORDS[:60], 2)), text, site,
        language="de" if n % 5 == 0 else "en", kind="pdf" if n % 7 == 0 else "html",
        anchors=tuple(rng.sample(WORDS[:80], rng.choice([0, 1, 3]))),
        site_anchors=tuple(rng.sample(WORDS[:80], 1)),
        inlinks=rng.choice([0, 0, 1, 5, 40]), outlinks=rng.choice([0, 3, 30, 300]),
        headings=tuple(rng.sample(WORDS[:100], rng.choice([0, 2]))),
    )


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rng = random.Random(26)
    path = tmp_path_factory.mktemp("pruning") / "ix"
    with open_writer(path) as writer:
        for start in range(1, 3001, 1000):  # several segments
            writer.add([_document(rng, n) for n in range(start, start + 1000)])
            writer.commit()
        writer.delete(range(1, 3001, 29))
        writer.commit()
    return path


@contextmanager
def _mode(monkeypatch: pytest.MonkeyPatch, pruned: bool):
    """Every segment pruned, with small windows and remembered bounds even for short lists
    (so a few thousand documents take every branch), or every posting scored."""
    with monkeypatch.context() as patch:
        patch.setattr(pruning, "MIN_PRUNED", 0 if pruned else 10**12)
        patch.setattr(boundfile, "WINDOW", 16)
        patch.setattr(boundfile, "LONG", 8)
        patch.setattr(pruning, "GIVE_UP", float("inf"))
        patch.setattr(pruning, "HOPELESS", float("inf"))
        yield


def _answers(index_dir: Path, monkeypatch: pytest.MonkeyPatch, pruned: bool) -> list:
    out = []
    with _mode(monkeypatch, pruned), open_searcher(index_dir) as searcher:
        for query in QUERIES:
            for page in (1, 2):
                found = searcher.search(query, page=page, per_page=10)
                out.append((query, page, found.total, found.suggestion, found.facets,
                            [(h.doc_id, h.score, h.site, h.more) for h in found.hits]))
    return out


def test_pruned_answers_equal_exhaustive_ones(index_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    segcache.clear()
    fastpaths.reset()
    exhaustive = _answers(index_dir, monkeypatch, pruned=False)
    assert not fastpaths.taken["wordsearch.pruned"]
    pruned = _answers(index_dir, monkeypatch, pruned=True)
    assert fastpaths.taken["wordsearch.pruned"] > 0
    assert pruned == exhaustive
    assert any(hits for *_rest, hits in exhaustive)
    assert any(suggestion for _q, _p, _t, suggestion, _f, _h in exhaustive)  # a typo corrected


def test_matches_below_the_best_found_in_earlier_segments_are_left_unsorted(
        index_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A segment scored in full leaves out of its top the documents below the N-th best
    score of the segments before (`wordsearch.rank_words`): nothing changes."""
    fastpaths.reset()
    floored = _answers(index_dir, monkeypatch, pruned=False)
    assert fastpaths.taken["wordsearch.floored"] > 0
    monkeypatch.setattr(wordsearch, "_kth", lambda _found, _limit: 0.0)
    assert _answers(index_dir, monkeypatch, pruned=False) == floored


def test_bounds_made_before_a_commit_hold_after_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Short documents added after the bounds were made lower the average length (MU) and
    change every word's frequency: the remembered bounds are scaled, never too low."""
    rng = random.Random(3)
    path = tmp_path / "ix"
    with open_writer(path) as writer:
        writer.add([_document(rng, n) for n in range(1, 1201)])
        writer.commit()
    segcache.clear()
    _answers(path, monkeypatch, pruned=True)  # remembers the first segment's bounds
    with open_writer(path) as writer:
        writer.add([_document(rng, n, short=True) for n in range(1201, 2401)])
        writer.commit()
    assert _answers(path, monkeypatch, pruned=True) == _answers(path, monkeypatch, pruned=False)


def test_segments_judged_hopeless_are_scored_whole_alike(
        index_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the give-up rules as shipped, a segment whose bounds cannot skip enough at the
    threshold the smaller segments set is scored whole before any window is scored; the
    answers stay the exhaustive ones."""
    exhaustive = _answers(index_dir, monkeypatch, pruned=False)
    segcache.clear()
    fastpaths.reset()
    with monkeypatch.context() as patch:
        patch.setattr(pruning, "MIN_PRUNED", 0)
        patch.setattr(boundfile, "WINDOW", 16)
        patch.setattr(boundfile, "LONG", 8)
        out = []
        with open_searcher(index_dir) as searcher:
            for query in QUERIES:
                for page in (1, 2):
                    found = searcher.search(query, page=page, per_page=10)
                    out.append((query, page, found.total, found.suggestion, found.facets,
                                [(h.doc_id, h.score, h.site, h.more) for h in found.hits]))
    assert fastpaths.taken["pruning.hopeless"] > 0
    assert out == exhaustive


def test_hopeless_needs_a_threshold_and_long_lists_that_cannot_be_skipped() -> None:
    import numpy as np

    ids = np.arange(0, 1000, dtype=np.int32)
    postings = [(ids, np.ones(1000, np.float32)), (ids[::10], np.ones(100, np.float32))]
    flat = [np.full(63, 1.0), np.full(63, 0.5)]  # every window could reach any threshold
    assert not pruning.hopeless(postings, flat, 0.0)  # nothing known yet: try pruning
    assert pruning.hopeless(postings, flat, 1.2)
    peaked = [np.where(np.arange(63) == 5, 1.0, 0.1), np.where(np.arange(63) == 5, 0.5, 0.1)]
    assert not pruning.hopeless(postings, peaked, 1.2)  # one window in 63 can reach it
