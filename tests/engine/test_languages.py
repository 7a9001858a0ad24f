"""Each document's language is kept in the database: detected by the index's writer, stored
when the index's commit is acknowledged (`engine/pipeline/languages.py`), the same value as the
index's `language` facet. An older database gains the column; `--reindex` reads the stored
language instead of detecting it again, and detects (and stores) those not stored. On both
databases, with a real crawl of a loopback site and the real index process."""

from __future__ import annotations

import dataclasses
from collections import Counter

from sqlalchemy import select, text, update

from tests.engine.conftest import crawl
from webcrawler.database.schema import connect, documents
from webcrawler.demoweb.server import LoopbackWeb, Site, html
from webcrawler.engine.pipeline.reindex import run_reindex
from webcrawler.index import open_searcher
from webcrawler.settings import Settings
from webcrawler.text.language import detect

SITE = "127.0.18.21"
ENGLISH = ("The harbour master keeps the ships in order, and every morning the fishing boats "
           "leave the harbour before the sun rises over the old town and its grey stone walls.")
GERMAN = ("Der Hafenmeister sorgt dafür, dass die Schiffe in Ordnung sind, und jeden Morgen "
          "verlassen die Fischerboote den Hafen, bevor die Sonne über der alten Stadt aufgeht.")
PAGES = {"/": html("Zebra", "zebra", [("/en", "harbour"), ("/de", "Hafen"), ("/short", "x")]),
         "/en": html("Zebra harbour", f"zebra {ENGLISH}"),
         "/de": html("Zebra Hafen", f"zebra {GERMAN}"),
         "/short": html("Zebra", "zebra 42")}


def _stored(database_url: str) -> dict[str, str | None]:
    engine = connect(database_url, readonly=True)
    try:
        with engine.connect() as conn:
            return dict(conn.execute(select(documents.c.path, documents.c.language)
                                     .where(documents.c.state == "fetched")).all())
    finally:
        engine.dispose()


def _facet(settings: Settings) -> Counter:
    with open_searcher(settings.index_dir) as searcher:
        return Counter(dict(searcher.search("zebra").facets["language"]))


def test_languages_are_stored_when_indexed_and_read_back_by_reindex(
    database_url: str, settings: Settings
) -> None:
    settings = dataclasses.replace(settings, db_url=database_url)
    engine = connect(database_url)  # a database of the version before the column
    with engine.begin() as conn:
        conn.execute(text("ALTER TABLE documents DROP COLUMN language"))
    engine.dispose()
    with LoopbackWeb([Site(SITE, PAGES)]) as web:
        crawl(settings, [web.url(SITE, "/")])
    stored = _stored(database_url)
    assert stored == {"/": "unknown", "/en": "en", "/de": "de", "/short": "unknown"}
    assert _facet(settings) == Counter(stored.values())

    engine = connect(database_url)
    with engine.begin() as conn:  # what the rebuild must take as it is, and what it must detect
        conn.execute(update(documents).where(documents.c.path == "/de").values(language="nl"))
        conn.execute(update(documents).where(documents.c.path == "/en").values(language=None))
    engine.dispose()
    run_reindex(settings, progress=False)
    assert _stored(database_url) == {**stored, "/de": "nl"}
    assert _facet(settings) == Counter({"unknown": 2, "en": 1, "nl": 1})
    with open_searcher(settings.index_dir) as searcher:
        assert [h.url.rsplit("/", 1)[1] for h in searcher.search("zebra lang:nl").hits] == ["de"]


def test_a_text_with_too_few_letters_is_not_guessed() -> None:
    """Digits, marks and underscores are not letters: 19 letters among them are too few to tell."""
    assert detect("", "1. the 22 harbour -- 333 ships_ " + "4" * 600) == ""  # 15 letters
    assert detect("Hafen", "_" * 700 + GERMAN) == ""  # the letters lie beyond the sample
    assert detect("", ENGLISH) == "en" and detect("", "1 " * 20 + GERMAN) == "de"
