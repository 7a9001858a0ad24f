"""What the links table says about documents on their way into the index.

Before a batch is indexed, each document is given the texts of the links pointing to it
(from other servers apart from its own server's navigation: the index weighs them
differently) and its link counts, the distinct pages linking to it and the pages it
links to (the ranking's prior, `index/search/prior.py`). The index sees the links known when
the page is indexed; a page indexed early learns of later links when the crawl sends
it to the index again because its in-links changed (`link_refresh.py`), when it is
indexed again (a recrawl) or when `webcrawler index --reindex` rebuilds the index
after the crawl. Reads only; identical anchor texts are read once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from sqlalchemy import ColumnElement, Select, and_, func, select
from sqlalchemy.engine import Connection

from webcrawler.database.schema import documents, links
from webcrawler.engine.store.sql import CHUNK, in_link_counts
from webcrawler.index import IndexedDocument


def with_links(conn: Connection, docs: Sequence[IndexedDocument]) -> list[IndexedDocument]:
    """`docs` with their anchor texts and link counts from the links table."""
    ids = [doc.doc_id for doc in docs]
    other: dict[int, list[str]] = {}
    own: dict[int, list[str]] = {}
    inlinks: dict[int, int] = {}
    outlinks: dict[int, int] = {}
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start : start + CHUNK]
        for target, anchor, same in conn.execute(_anchors(chunk)):
            (own if same else other).setdefault(target, []).append(anchor)
        inlinks.update(in_link_counts(conn, chunk))
        outlinks.update(conn.execute(_counted(links.c.source_id, chunk)).all())
    return [replace(doc, anchors=tuple(other.get(doc.doc_id, ())),
                    site_anchors=tuple(own.get(doc.doc_id, ())),
                    inlinks=inlinks.get(doc.doc_id, 0), outlinks=outlinks.get(doc.doc_id, 0))
            for doc in docs]


def _anchors(ids: list[int]) -> Select:
    """(target, anchor text, same server?) of the links to `ids`, each text once."""
    source, target = documents.alias("source"), documents.alias("target")
    same = (source.c.server_id == target.c.server_id).label("same")
    joined = links.join(source, source.c.id == links.c.source_id) \
        .join(target, target.c.id == links.c.target_id)
    return select(links.c.target_id, links.c.anchor, same).select_from(joined).where(
        and_(links.c.target_id.in_(ids), links.c.source_id != links.c.target_id,
             links.c.anchor != "")).distinct()


def _counted(column: ColumnElement, ids: list[int]) -> Select:
    """(doc_id, links) for `ids` on one side of the links table, self-links left out."""
    return select(column, func.count()).where(
        and_(column.in_(ids), links.c.source_id != links.c.target_id)).group_by(column)
