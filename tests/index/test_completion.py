"""Autocomplete and the vocabulary it reads, on a real index: completions of the last
word by document frequency, likely queries from titles, and new commits picked up."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from webcrawler.index import IndexedDocument, Searcher, open_searcher, open_writer
from webcrawler.index.format.opening import open_index
from webcrawler.index.words import lexicon
from webcrawler.index.words.completion import Completer
from webcrawler.index.words.vocabulary import Vocabulary, normalise_title, read_vocabulary

DOCS = [
    IndexedDocument(1, "http://p.test/1", "Socket Programming HOWTO - Python docs",
                    "socket sockets socketserver", "p.test"),
    IndexedDocument(2, "http://p.test/2", "socket - Low-level networking | Python docs",
                    "socket sockets", "p.test"),
    IndexedDocument(3, "http://p.test/3", "Sockets in depth", "socket", "p.test"),
    IndexedDocument(4, "http://p.test/4", "Select", "select socket selectors", "p.test"),
    IndexedDocument(5, "http://p.test/5", "Socket Programming HOWTO - Python docs",
                    "socket sockets", "p.test"),
]


def write(index_dir: Path, docs: list[IndexedDocument]) -> None:
    with open_writer(index_dir) as writer:
        writer.add(docs)


@pytest.fixture
def index_dir(tmp_path: Path) -> Path:
    write(tmp_path / "index", DOCS[:3])
    write(tmp_path / "index", DOCS[3:])  # two segments: frequencies are summed over both
    return tmp_path / "index"


@pytest.fixture
def searcher(index_dir: Path) -> Iterator[Searcher]:
    with open_searcher(index_dir) as searcher:
        yield searcher


def test_the_vocabulary_agrees_with_whoosh(index_dir: Path) -> None:
    ix = open_index(index_dir, create=False)
    try:
        vocabulary = read_vocabulary(ix)
        with ix.searcher() as whoosh:
            expected = {t.decode(): i.doc_frequency() for t, i in whoosh.reader().iter_field("content")}
    finally:
        ix.close()
    assert vocabulary.frequencies == expected
    assert vocabulary.frequency("socket") == 5 and vocabulary.frequency("sockets") == 4
    assert vocabulary.words == sorted(expected)
    assert vocabulary.title_counts["socket programming howto"] == 2
    assert vocabulary.title_words[0] == "socket"


def test_the_last_word_is_completed_most_documents_first(searcher: Searcher) -> None:
    assert searcher.suggest("sock", 4) == [  # words first; titles: half the places at most
        "socket", "sockets", "socket programming howto", "sockets in depth"]
    assert searcher.suggest("socke", 1) == ["socket"]
    # in the context of "select": only "socket" is in a document beside it
    assert searcher.suggest("Select SOCK", 2) == ["Select socket"]


def test_titles_complete_the_whole_query(searcher: Searcher) -> None:
    found = searcher.suggest("socket pro", 8)
    assert found == ["socket programming", "socket programming howto"]


def test_a_finished_word_offers_titles_only(searcher: Searcher) -> None:
    assert searcher.suggest("socket ", 8) == ["socket programming howto"]


def test_n_bounds_the_answer_and_blank_text_has_none(searcher: Searcher) -> None:
    assert len(searcher.suggest("s", 2)) == 2
    assert searcher.suggest("   ", 8) == [] and searcher.suggest("zzz", 8) == []


def test_titles_take_at_most_half_the_places() -> None:
    titles = [f"socket {n}" for n in range(10)]
    vocabulary = Vocabulary(words=["socket", "sockets"], frequencies={"socket": 9, "sockets": 3},
                            titles=titles, title_counts=dict.fromkeys(titles, 1))
    found = Completer(vocabulary).complete("sock", 4)
    assert found[:2] == ["socket", "sockets"] and len(found) == 4


@pytest.mark.parametrize(("title", "query"), [
    ("socket - Low-level networking interface - Python 3.11 documentation", "socket"),
    ("Home | Example Site", "home"),
    ("A \u2014 B", "a"),
    ("Well-known: C++ & you", "well known c you"),
    ("x" * 200, ""),
])
def test_titles_are_read_as_queries(title: str, query: str) -> None:
    assert normalise_title(title) == query


def test_a_new_commit_reaches_the_completions(index_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lexicon, "REBUILD_INTERVAL", 0.0)
    with open_searcher(index_dir) as searcher:
        assert searcher.suggest("selectors", 8) == ["selectors"]
        assert searcher.suggest("selectr", 8) == []
        write(index_dir, [IndexedDocument(6, "http://p.test/6", "Selectron", "selectron tubes", "p.test")])
        deadline = time.monotonic() + 30
        while "selectron" not in searcher.suggest("selectr", 8) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert searcher.suggest("selectr", 8) == ["selectron"]


def test_an_unreadable_vocabulary_leaves_queries_uncorrected(
    index_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def unreadable(ix: object) -> Vocabulary:
        raise FileNotFoundError("MAIN_x.seg")  # as when a merge removes a segment mid-read

    monkeypatch.setattr(lexicon, "read_vocabulary", unreadable)
    with open_searcher(index_dir) as searcher:
        assert searcher.suggest("sock", 8) == []
        assert searcher.search("socket").total == 5 and searcher.search("sokcet").suggestion is None


def test_the_speller_is_built_only_when_a_query_needs_it(
    index_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[Vocabulary] = []
    speller = lexicon.Speller

    def counted(vocabulary: Vocabulary) -> lexicon.Speller:
        built.append(vocabulary)
        return speller(vocabulary)

    monkeypatch.setattr(lexicon, "Speller", counted)
    with open_searcher(index_dir, spelling=False) as searcher:
        assert searcher.search("sokcet").suggestion is None
        assert searcher.suggest("sock", 8)[0] == "socket"
    assert built == []  # spelling off: completions only, no speller's table
    with open_searcher(index_dir) as searcher:
        assert searcher.search("sokcet").suggestion == "socket"
        assert searcher.search("selectros").suggestion == "selectors"
    assert len(built) == 1


def test_a_vocabulary_read_again_reads_only_new_segments(index_dir: Path) -> None:
    """What each segment held is remembered between reads: after a commit, a deletion and
    a merge, the remembered read is the fresh read, and merged-away segments are forgotten."""
    from webcrawler.index.words import vocabulary as module

    remembered: dict = {}
    ix = open_index(index_dir, create=False)
    try:
        first = read_vocabulary(ix, remembered)
        assert first == read_vocabulary(ix) and len(remembered) == 4  # words, titles: 2 segments
        reads: list[str] = []
        original = module._frequencies
        module._frequencies = lambda reader: reads.append("read") or original(reader)  # type: ignore
        try:
            write(index_dir, [IndexedDocument(6, "http://p.test/6", "Sockets again", "socketpair", "p.test")])
            second = read_vocabulary(ix, remembered)
            assert reads == ["read"]  # the new segment only
            assert second == read_vocabulary(ix) and second.frequency("socketpair") == 1
        finally:
            module._frequencies = original
        with open_writer(index_dir) as writer:
            writer.delete([1])
            writer.optimize()
        again = read_vocabulary(ix, remembered)
        assert again == read_vocabulary(ix) and again.title_counts["socket programming howto"] == 1
        assert len(remembered) == 2
    finally:
        ix.close()


def test_the_last_word_is_completed_in_the_context_of_the_earlier_ones(tmp_path: Path) -> None:
    """"json d" offered "json delattr" (the most frequent d-word) though no document holds
    both; completions whose words meet in a document come first, the others not at all."""
    docs = [IndexedDocument(n, f"http://b.test/{n}", f"builtins {n}", "delattr getattr builtins", "b.test")
            for n in range(1, 9)]
    docs += [IndexedDocument(10, "http://j.test/10", "json module", "json dumps loads decoder", "j.test"),
             IndexedDocument(11, "http://j.test/11", "json encoder", "json dumps encoder", "j.test"),
             IndexedDocument(12, "http://j.test/12", "decimal", "decimal delattr", "j.test")]
    write(tmp_path / "index", docs[:6])
    write(tmp_path / "index", docs[6:])  # two segments: the earlier words meet in the second
    with open_searcher(tmp_path / "index") as searcher:
        assert searcher.suggest("d", 8)[0] == "delattr"  # alone, the most frequent d-word
        assert searcher.suggest("json d", 8)[:2] == ["json dumps", "json decoder"]
        assert "json delattr" not in searcher.suggest("json d", 8)
        assert searcher.suggest("json dumps e", 8)[0] == "json dumps encoder"
        assert searcher.suggest("json -dumps type:html d", 8)[0] == "json -dumps type:html dumps"
        assert searcher.suggest("decimal de", 8)[0] == "decimal delattr"
        write(tmp_path / "index", [IndexedDocument(13, "http://j.test/13", "json and delattr",
                                                   "json delattr", "j.test")])
        searcher.refresh()  # a new commit: the words before the last one are looked up again
        assert "json delattr" in searcher.suggest("json d", 8)


def test_remembered_picks_are_bounded_least_recently_used_first(index_dir: Path) -> None:
    """/api/suggest is anonymous, and short prefixes of any script are endless: the picks
    remembered stay within the bound, the prefixes in use stay remembered."""
    ix = open_index(index_dir, create=False)
    try:
        completer = Completer(read_vocabulary(ix), memo_entries=50)
    finally:
        ix.close()
    first = completer.complete("so", 3)
    assert first[:2] == ["socket", "sockets"]
    for code in range(0x4E00, 0x4E00 + 500):  # 500 one-letter prefixes nobody indexed
        completer.complete(chr(code), 3)
        completer.complete("so", 3)  # in use all along
        assert completer.remembered <= 50
    assert completer.remembered == 50
    assert ("w", "so") in completer._memo and ("w", chr(0x4E00)) not in completer._memo
    assert completer.complete("so", 3) == first
