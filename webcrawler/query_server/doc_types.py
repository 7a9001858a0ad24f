"""What kind of document each result is (html, pdf, docx, odt, text), for the result page
and the JSON API: read from the database's content type, one query for a page of results."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select

from webcrawler.database import documents
from webcrawler.index import Hit
from webcrawler.messages import KIND_OF_TYPE
from webcrawler.query_server.sources import Sources


def hit_types(sources: Sources, hits: Sequence[Hit]) -> dict[int, str]:
    """doc_id -> kind for `hits`; a document the database does not know (yet) is "html"."""
    engine = sources.engine()
    if engine is None or not hits:
        return {}
    with engine.connect() as conn:
        rows = conn.execute(select(documents.c.id, documents.c.content_type)
                            .where(documents.c.id.in_([hit.doc_id for hit in hits]))).all()
    return {int(doc_id): KIND_OF_TYPE.get(content_type or "", "html") for doc_id, content_type in rows}


def kind_of(types: dict[int, str], hit: Hit) -> str:
    return types.get(hit.doc_id, "html")
