"""Typo tolerance on a real index: near spellings within the distance allowed are found,
ranked below the word as typed, and suggested; farther ones, short words and words the
index holds often enough are left alone."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest
from whoosh.index import open_dir

from webcrawler.index import IndexedDocument, Searcher, open_searcher, open_writer
from webcrawler.index.format import fastpaths
from webcrawler.index.words import lexicon
from webcrawler.index.words.query import parse
from webcrawler.index.words.spelling import Speller, max_distance, suggestion
from webcrawler.index.words.vocabulary import read_vocabulary
from webcrawler.index.writing.shards import open_shard_writer, shard_of


def documents() -> list[IndexedDocument]:
    docs = [
        IndexedDocument(n, f"http://s.test/socket{n}", f"Socket guide {n}",
                        "socket programming with a timeout", "s.test")
        for n in range(1, 61)
    ]
    docs += [
        IndexedDocument(61, "http://s.test/typo", "A page with a typo", "the sokcet module", "s.test"),
        IndexedDocument(62, "http://c.test/config", "Configuration", "configuration files", "c.test"),
        IndexedDocument(63, "http://c.test/node", "Node", "node and node again", "c.test"),
        IndexedDocument(64, "http://c.test/mode", "Mode", "mode settings", "c.test"),
        IndexedDocument(65, "http://c.test/sql", "SQL", "sql queries", "c.test"),
    ]
    return docs


@pytest.fixture(scope="module")
def searcher(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Searcher]:
    index_dir = tmp_path_factory.mktemp("spelling") / "index"
    with open_writer(index_dir) as writer:
        writer.add(documents())
    with open_searcher(index_dir) as searcher:
        yield searcher


def urls(results) -> list[str]:  # type: ignore[no-untyped-def]
    return [hit.url for hit in results.hits]


@pytest.mark.parametrize(("word", "distance"), [
    ("sql", 0), ("node", 1), ("socket", 1), ("sockets", 1), ("database", 2), ("configuration", 2),
    ("12345678", 0),
])
def test_the_distance_allowed_grows_with_the_word(word: str, distance: int) -> None:
    assert max_distance(word) == distance


def test_a_word_missing_from_the_index_finds_its_near_spelling(searcher: Searcher) -> None:
    results = searcher.search("timoeut")  # a transposition: distance 1
    assert results.total == 60 and results.suggestion == "timeout"
    assert all("/socket" in url for url in urls(results))


def test_two_edits_are_forgiven_in_a_long_word(searcher: Searcher) -> None:
    results = searcher.search("confgurtion files")  # two letters left out
    assert results.suggestion == "configuration files"
    assert urls(results)[0] == "http://c.test/config"


def test_a_word_beyond_the_distance_finds_nothing(searcher: Searcher) -> None:
    results = searcher.search("tmoeuit")  # three edits from timeout
    assert results.total == 0 and results.suggestion is None


def test_short_words_are_never_corrected(searcher: Searcher) -> None:
    results = searcher.search("sqk")
    assert results.total == 0 and results.suggestion is None


def test_the_word_as_typed_ranks_above_its_near_spellings(searcher: Searcher) -> None:
    results = searcher.search("sokcet", per_page=100)  # in one page; "socket" in sixty
    assert urls(results)[0] == "http://s.test/typo"
    assert results.total == 61 and results.suggestion == "socket"
    assert results.hits[0].score == 1000 and results.hits[1].score < 1000


def test_a_word_the_index_holds_often_enough_is_left_alone(searcher: Searcher) -> None:
    results = searcher.search("node")  # "mode" is near, but not fifty times as frequent
    assert urls(results) == ["http://c.test/node"] and results.suggestion is None


def test_a_correct_query_has_no_suggestion(searcher: Searcher) -> None:
    results = searcher.search("socket timeout")
    assert results.suggestion is None and results.total == 60


def test_the_suggestion_keeps_the_rest_of_the_query_as_typed() -> None:
    text = 'Sokcet  "unix domain" -windows site:s.test'
    assert suggestion(text, {"sokcet": "socket"}) == 'socket "unix domain" -windows site:s.test'


def test_near_spellings_are_not_reported_as_thesaurus_words(searcher: Searcher) -> None:
    parsed, _ = searcher.parse_query("timoeut", 1, 10, expand=False, site=None)
    assert parsed.corrections == {"timoeut": ["timeout"]}
    assert parsed.expansions == {"timeout": pytest.approx(0.8)} and parsed.thesaurus_words == []
    assert parse("timoeut").expansions == {}  # the parser alone knows no vocabulary


def test_spelling_can_be_turned_off(tmp_path: Path) -> None:
    index_dir = tmp_path / "index"
    with open_writer(index_dir) as writer:
        writer.add(documents())
    with open_searcher(index_dir, spelling=False) as searcher:
        results = searcher.search("timoeut")
    assert results.total == 0 and results.suggestion is None


def test_a_sharded_index_corrects_and_completes(tmp_path: Path) -> None:
    index_dir = tmp_path / "index"
    for k in range(2):
        with open_shard_writer(index_dir, k, 2) as writer:
            writer.add([d for d in documents() if shard_of(d.doc_id, 2) == k])
    with open_searcher(index_dir) as searcher:
        results = searcher.search("timoeut")
        assert results.suggestion == "timeout" and results.total == 60
        assert searcher.suggest("time", 8) == ["timeout"]


@pytest.fixture
def speller_builds(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Each Speller the lexicon builds, counted (the real class builds it)."""
    built: list[int] = []

    class Counted(Speller):
        def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
            built.append(1)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(lexicon, "Speller", Counted)
    return built


@pytest.mark.parametrize("shards", [1, 2])
def test_a_warmed_searcher_builds_its_speller_before_the_first_query(
        tmp_path: Path, speller_builds: list[int], shards: int) -> None:
    index_dir = tmp_path / "index"
    for k in range(shards):
        with (open_writer(index_dir) if shards == 1 else open_shard_writer(index_dir, k, shards)) as writer:
            writer.add([d for d in documents() if shards == 1 or shard_of(d.doc_id, shards) == k])
    with open_searcher(index_dir) as searcher:
        warming = searcher.warm()
        warming.join(timeout=60)
        assert not warming.is_alive() and speller_builds == [1]
        assert searcher.search("timoeut").suggestion == "timeout"
        assert searcher.suggest("time", 8) == ["timeout"]
    assert speller_builds == [1]  # the query used the warm-up's


def test_a_query_during_the_warm_up_waits_for_it_and_is_corrected(
        tmp_path: Path, speller_builds: list[int]) -> None:
    index_dir = tmp_path / "index"
    with open_writer(index_dir) as writer:
        writer.add(documents())
    with open_searcher(index_dir) as searcher:
        warming = searcher.warm()
        results = searcher.search("timoeut")  # before, during or after the build
        warming.join(timeout=60)
    assert results.suggestion == "timeout" and results.total == 60
    assert speller_builds == [1]  # one build, whichever thread ran it


def test_closing_does_not_wait_for_the_warm_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A server stopped just after it started closes at once; the build ends on its own."""
    index_dir = tmp_path / "index"
    with open_writer(index_dir) as writer:
        writer.add(documents())
    started, release = threading.Event(), threading.Event()
    real_build = lexicon.build

    def held_build(*args, **kwargs):  # type: ignore[no-untyped-def]
        started.set()
        release.wait(60)
        return real_build(*args, **kwargs)

    monkeypatch.setattr(lexicon, "build", held_build)
    searcher = open_searcher(index_dir)
    warming = searcher.warm()
    assert started.wait(60)
    closing = threading.Thread(target=searcher.close)
    closing.start()
    closing.join(60)
    closed_first = not closing.is_alive()
    release.set()
    warming.join(60)
    closing.join(60)
    assert closed_first and not warming.is_alive()


def test_near_spellings_stay_on_the_fast_path(searcher: Searcher) -> None:
    fastpaths.reset()
    assert searcher.search("timoeut sokcet", per_page=5).total == 61
    assert fastpaths.taken["wordsearch.arrays"] > 0 and not fastpaths.taken["wordsearch.whoosh"]


def test_near_spellings_also_match_on_whoosh_s_path(searcher: Searcher) -> None:
    results = searcher.search("timoeut site:s.test")  # site: goes through Whoosh's matchers
    assert results.total == 60 and results.suggestion == "timeout site:s.test"
    assert searcher.search("timoeut site:c.test").total == 0


def test_a_replaced_speller_is_freed_and_frozen_garbage_is_collected_in_time(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The lexicon freezes what is alive after each build (`lexicon.settle`) so that full
    collections do not walk the word tables in a query; nothing may stay frozen for good."""
    index_dir = tmp_path / "index"
    with open_writer(index_dir) as writer:
        writer.add(documents())
    speller = Speller(read_vocabulary(open_dir(str(index_dir))))
    assert "socket" in speller.near("sokcet")
    cycle: list[object] = []
    cycle.append(cycle)  # garbage only the cyclic collector frees
    freed_speller, freed_cycle = weakref.ref(speller), weakref.ref(_Holder(cycle))
    monkeypatch.setattr(lexicon, "COLLECT_EVERY", float("inf"))  # builds in quick succession
    lexicon.settle()
    del speller, cycle
    assert freed_speller() is None  # no cycle through its cache: freed at once, frozen or not
    assert freed_cycle() is not None  # frozen garbage
    lexicon.settle()  # the next build's, within COLLECT_EVERY: still frozen
    assert freed_cycle() is not None
    monkeypatch.setattr(lexicon, "COLLECT_EVERY", 0.0)  # COLLECT_EVERY later
    lexicon.settle()
    assert freed_cycle() is None


class _Holder:
    """A weakly referenceable cycle member (lists cannot be weakly referenced)."""

    def __init__(self, ring: list[object]) -> None:
        ring.append(self)
