"""Stemming: inflected forms meet (`dates` and `date` find the same pages), the exact form
ranks at least as high as another form, identifiers and phrases stay exact, and the
stemmer follows each document's detected language."""

from __future__ import annotations

from pathlib import Path

import pytest

from webcrawler.index import IndexedDocument, open_searcher, open_writer

FILLER = "this page is part of a small handbook about calendars and the ways people keep time"


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    texts = {
        1: "the date of the meeting",
        2: "all dates in the calendar",
        3: "letters dated in the spring",
        4: "a datetime module for python",
        5: "running and runs",
        6: "Die Fischer im Hafen flicken ihre Netze am Markt und die Boote liegen am Kai",
        7: "the date_format setting",
    }
    docs = [IndexedDocument(n, f"http://s.test/{n}", "", f"{text}. {FILLER if n != 6 else ''}",
                            "s.test") for n, text in texts.items()]
    directory = tmp_path_factory.mktemp("stemming") / "index"
    with open_writer(directory) as writer:
        writer.add(docs)
    return directory


@pytest.mark.parametrize(("one", "other"), [("dates", "date"), ("dated", "dates"), ("runs", "running")])
def test_inflected_forms_find_the_same_pages(index_dir: Path, one: str, other: str) -> None:
    with open_searcher(index_dir) as searcher:
        first = {h.doc_id for h in searcher.search(one).hits}
        second = {h.doc_id for h in searcher.search(other).hits}
    assert first == second and len(first) >= 1


def test_date_finds_its_forms_but_not_other_words(index_dir: Path) -> None:
    with open_searcher(index_dir) as searcher:
        assert {h.doc_id for h in searcher.search("date").hits} == {1, 2, 3}  # not datetime, date_format


def test_the_exact_form_ranks_first(index_dir: Path) -> None:
    with open_searcher(index_dir) as searcher:
        for word, exact in (("date", 1), ("dates", 2), ("dated", 3)):
            hits = searcher.search(word).hits
            assert hits[0].doc_id == exact and hits[0].score > hits[1].score, word


def test_phrases_and_identifiers_stay_exact(index_dir: Path) -> None:
    with open_searcher(index_dir) as searcher:
        assert {h.doc_id for h in searcher.search('"dates in"').hits} == {2}
        assert {h.doc_id for h in searcher.search("date_format").hits} == {7}


def test_the_stemmer_of_each_detected_language(index_dir: Path) -> None:
    with open_searcher(index_dir) as searcher:
        assert searcher.search("Netze").facets["language"] == [("de", 1)]
        # German's stemmer makes "netzen" and "netze" one word; English's would not
        hits = searcher.search("Netzen").hits
        assert [h.doc_id for h in hits] == [6] and "<b>Netze</b>" in hits[0].snippet
