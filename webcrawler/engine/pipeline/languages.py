"""Each document's language: detected once, when it is indexed, and kept in the database.

The index's writer (the index process, or a shard's writer: not the crawl's process, which
must not spend a detection on every page) detects the language of each document it adds
(`webcrawler/text/language.py`, py3langid), as the index's `lang` field holds it: an ISO 639-1
code, or `UNKNOWN` for a text too short or too mixed to tell. When the index's commit is
acknowledged, the same value is written to `documents.language`, in the acknowledgement's
transaction (engine/store/outbox_rows.py's `record_languages`); NULL there means not indexed
yet. The index's value serves the `language` facet, the `lang:` filter and the stemmers a
query's words are given (`index/words/stemming.py`); the database's lets `webcrawler index
--reindex` rebuild without detecting again. A page fetched again is detected again: its
text may have changed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from sqlalchemy import and_, select
from sqlalchemy.engine import Connection

from webcrawler.database.schema import documents
from webcrawler.index import IndexedDocument
from webcrawler.text.language import detect

UNKNOWN = "unknown"  # the index's and the database's value when the text does not tell
CHUNK = 500  # doc_ids per query: well under SQLite's limit on bound parameters


def detected(docs: Iterable[IndexedDocument]) -> tuple[list[IndexedDocument], dict[int, str]]:
    """`docs`, each with its language (detected where it has none), and the languages
    detected now by doc_id (to be stored once the index has them)."""
    out: list[IndexedDocument] = []
    found: dict[int, str] = {}
    for doc in docs:
        if not doc.language:
            doc = replace(doc, language=detect(doc.title, doc.text) or UNKNOWN)
            found[doc.doc_id] = doc.language
        out.append(doc)
    return out, found


def with_stored(conn: Connection, docs: Sequence[IndexedDocument]) -> list[IndexedDocument]:
    """`docs` with the language the database keeps for them, where it keeps one."""
    ids = [doc.doc_id for doc in docs]
    stored: dict[int, str] = {}
    for start in range(0, len(ids), CHUNK):
        stored.update(conn.execute(select(documents.c.id, documents.c.language).where(and_(
            documents.c.id.in_(ids[start : start + CHUNK]), documents.c.language.is_not(None)))).all())
    return [replace(doc, language=stored[doc.doc_id]) if not doc.language and stored.get(doc.doc_id)
            else doc for doc in docs]

