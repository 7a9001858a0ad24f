"""The index outbox's rows, and the one way every index writer applies them.

A row of `index_outbox` is the newest thing the index must know about a document:
its text to add (a compressed payload), or its removal (an empty payload: the page is
gone, redirected, excluded or now noindex). Either is written in the same transaction
as the database change that caused it, so a crash (kill -9) between the database's
commit and the index's commit forgets nothing: the row is still waiting on restart and
is applied then. The table keys rows by doc_id, so a later add replaces a waiting
removal and a later removal replaces a waiting add: whatever order the writer reads
them in, the document ends as the database last said.

Both sinks write rows through `OutboxWriter`; the single index process
(`index_sink.py`) and each shard's writer (`shard_writer.py`) apply them with `apply()`
and acknowledge them to the same end: a document's row stays (INDEXED: the text
`--reindex` rebuilds from), a removal's row goes. The index process acknowledges whole
batches (the store's `outbox_acknowledge`, engine/store/outbox_rows.py); a shard writer,
which reads by shard rather than by batch, acknowledges row by row, each only if its batch
is still the one it applied.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, NamedTuple

from webcrawler.database.schema import REMOVED
from webcrawler.engine.interfaces import OutboxBook
from webcrawler.engine.pipeline.languages import detected
from webcrawler.engine.pipeline.link_evidence import with_links
from webcrawler.index import IndexedDocument, IndexWriter, document_kind
from webcrawler.protocol.messages import Document
from webcrawler.protocol.urls import split

if TYPE_CHECKING:  # the writer's connection, passed through to link_evidence.py
    from sqlalchemy.engine import Connection



class OutboxWriter:
    """The engine's side of a sink: documents and removals as outbox rows of the next batch.

    A subclass decides how a committed batch reaches the index (`_next_batch()`, called
    after the database committed, closes the batch)."""

    store: OutboxBook
    _number: int  # the last batch number used
    _pending: int = 0  # rows written for the next batch
    _pending_removals: int = 0  # of which removals

    def add(self, doc_id: int, document: Document) -> None:
        self.store.outbox_put(doc_id, self._number + 1, payload_of(doc_id, document))
        self._pending += 1

    def remove(self, doc_id: int) -> None:
        """Durable like an add: the row commits with the change that made the page go, and its
        stored text goes with it, so neither a restart nor `--reindex` brings the page back."""
        self.store.outbox_put(doc_id, self._number + 1, REMOVED)
        self._pending += 1
        self._pending_removals += 1

    def resend(self, doc_ids: Sequence[int]) -> None:
        """Send documents the index holds to it again with the next batch (their links
        changed: `link_refresh.py`); those whose row waits already, or is a removal, stay."""
        self._pending += self.store.outbox_rebatch(doc_ids, self._number + 1)

    def _next_batch(self) -> tuple[int, bool] | None:
        """Close the batch being written: (its number, does it hold a removal?), or None when
        it is empty. A batch crawl never removes: its acknowledgements stay one UPDATE."""
        if not self._pending:
            return None
        self._number += 1
        removes = self._pending_removals > 0
        self._pending = self._pending_removals = 0
        return self._number, removes


class Applied(NamedTuple):
    added: int
    removed: int
    languages: dict[int, str]  # doc_id -> the language detected (to store once committed)
    inlinks: dict[int, int]  # doc_id -> the in-links it was indexed with (link_refresh.py)


def apply(writer: IndexWriter, payloads: Iterable[tuple[int, bytes]],
          conn: Connection | None = None) -> Applied:
    """Add the documents and delete the removals of (doc_id, payload) rows, uncommitted.
    A doc_id has one row, so order cannot matter. With `conn`, documents carry what the
    links table says of them (`link_evidence.py`). Each document's language is detected
    here, in the writer's process (`languages.py`)."""
    rows = list(payloads)
    removed = [doc_id for doc_id, payload in rows if payload == REMOVED]
    docs = [unpack(payload) for _doc_id, payload in rows if payload != REMOVED]
    docs, languages = detected(docs if conn is None else with_links(conn, docs))
    writer.add(docs)
    writer.delete(removed)
    inlinks = {doc.doc_id: doc.inlinks for doc in docs} if conn is not None else {}
    return Applied(len(rows) - len(removed), len(removed), languages, inlinks)


def payload_of(doc_id: int, document: Document) -> bytes:
    """The outbox payload of a retrieved document: what the index needs of it, compressed."""
    origin, _ = split(document.url)
    return pack(IndexedDocument(doc_id=doc_id, url=document.url, title=document.title,
                                text=document.text, host=origin.split("://", 1)[1],
                                kind=document_kind(document.content_type),
                                headings=document.headings))


def pack(doc: IndexedDocument) -> bytes:
    fields = [doc.doc_id, doc.url, doc.title, doc.text, doc.host, doc.language, doc.kind,
              list(doc.headings)]
    return zlib.compress(json.dumps(fields).encode(), 1)


def unpack(payload: bytes) -> IndexedDocument:
    """A payload's document; one written before language and kind were kept has five fields
    (the writer then detects the language, and the kind is html, all that was indexed), one
    written before headings were kept seven (it is indexed without them). Links are not in
    the payload: they are read when the document is indexed."""
    fields = json.loads(zlib.decompress(payload))
    doc = IndexedDocument(*fields[:7])
    return replace(doc, headings=tuple(map(str, fields[7]))) if len(fields) > 7 else doc
