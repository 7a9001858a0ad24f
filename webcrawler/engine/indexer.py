"""Feeding the full-text index from the crawl without stalling it.

The index is written by its own process: a Whoosh commit (sometimes a merge)
can take seconds, and the crawl loop must not wait for it. Consistency with
the database comes from an outbox:

1. A retrieved document is written to the `index_outbox` table in the same
   transaction as its `documents` row.
2. After the database commits, the batch is sent to the index process, which
   adds and commits it, then acknowledges the batch number.
3. Acknowledged batches are deleted from the outbox in a later transaction.

After a crash the outbox still holds what the index may have missed; the next
start sends it again (adding a document twice replaces it), so the index and
the database agree without a rebuild. The index only ever sees committed
documents.
"""

from __future__ import annotations

import json
import logging
import multiprocessing
import queue
import time
import zlib
from pathlib import Path

from sqlalchemy import delete, func, select

from webcrawler.database import index_outbox
from webcrawler.engine.store import CrawlStore
from webcrawler.index import IndexedDocument, open_writer
from webcrawler.messages import Document
from webcrawler.urls import split

log = logging.getLogger(__name__)

MAX_BATCHES_IN_FLIGHT = 20  # back-pressure: above this the crawl waits for the index
CLOSE_TIMEOUT = 300.0


def index_process(index_dir: Path, inbox: multiprocessing.Queue,
                  acks: multiprocessing.Queue) -> None:
    """The index writer's process: add and commit batches, acknowledge them, until None."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the engine decides when to stop
    writer = open_writer(index_dir)
    try:
        while True:
            item = inbox.get()
            if item is None:
                break
            batches = [item]
            while True:  # coalesce what is already waiting into one commit
                try:
                    more = inbox.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    inbox.put(None)
                    break
                batches.append(more)
            for _, docs in batches:
                writer.add(docs)
            writer.commit()
            acks.put([number for number, _ in batches])
    finally:
        writer.close()


class IndexSink:
    """The crawl's `DocumentSink` for the full-text index (see the module docstring)."""

    def __init__(self, store: CrawlStore, index_dir: Path) -> None:
        self.store = store
        ctx = multiprocessing.get_context("forkserver")
        self._inbox: multiprocessing.Queue = ctx.Queue()
        self._acks: multiprocessing.Queue = ctx.Queue()
        self._process = ctx.Process(target=index_process, args=(index_dir, self._inbox, self._acks),
                                    name="webcrawler-indexer", daemon=True)
        self._process.start()
        self._batch: list[IndexedDocument] = []
        self._in_flight: set[int] = set()
        self._acked: list[int] = []
        self._removed: list[int] = []
        self._number = self._resend_outbox()

    def add(self, doc_id: int, document: Document) -> None:
        origin, _ = split(document.url)
        doc = IndexedDocument(doc_id=doc_id, url=document.url, title=document.title,
                              text=document.text, host=origin.split("://", 1)[1])
        self._batch.append(doc)
        self.store.outbox_put(doc_id, self._number + 1, _pack(doc))

    def remove(self, doc_id: int) -> None:
        self._removed.append(doc_id)

    def commit(self) -> None:
        """Called after the database committed: send the batch, then forget acknowledged ones."""
        self._collect_acks(block=len(self._in_flight) >= MAX_BATCHES_IN_FLIGHT)
        if self._batch:
            self._number += 1
            self._send(self._number, self._batch)
            self._batch = []
        if self._acked:
            self.store.conn.execute(delete(index_outbox).where(index_outbox.c.batch.in_(self._acked)))
            self._acked = []

    def close(self) -> None:
        """Send the rest, wait for the index to commit it, clean the outbox."""
        self.commit()
        self._inbox.put(None)
        end = time.monotonic() + CLOSE_TIMEOUT
        while self._in_flight and time.monotonic() < end and self._process.is_alive():
            self._collect_acks(block=True, timeout=1.0)
        self._process.join(timeout=max(1.0, end - time.monotonic()))
        if self._in_flight:
            log.warning("the index did not acknowledge %d batches: they stay in the outbox "
                        "and are indexed on the next start", len(self._in_flight))
        if self._acked:
            self.store.conn.execute(delete(index_outbox).where(index_outbox.c.batch.in_(self._acked)))
            self._acked = []
        self.store.conn.commit()
        self._inbox.close()
        self._acks.close()

    def _send(self, number: int, docs: list[IndexedDocument]) -> None:
        self._in_flight.add(number)
        self._inbox.put((number, docs))

    def _collect_acks(self, block: bool = False, timeout: float = 60.0) -> None:
        while True:
            try:
                numbers = self._acks.get(timeout=timeout) if block else self._acks.get_nowait()
            except queue.Empty:
                if block and self._process.is_alive():
                    log.info("waiting for the index to catch up (%d batches)", len(self._in_flight))
                    continue
                return
            block = False
            self._in_flight.difference_update(numbers)
            self._acked.extend(numbers)

    def _resend_outbox(self) -> int:
        """After a crash: send again what the index may not have committed."""
        conn = self.store.conn
        top = conn.execute(select(func.max(index_outbox.c.batch))).scalar() or 0
        rows = conn.execute(select(index_outbox.c.batch, index_outbox.c.payload)).all()
        by_batch: dict[int, list[IndexedDocument]] = {}
        for batch, payload in rows:
            by_batch.setdefault(batch, []).append(_unpack(payload))
        for batch, docs in sorted(by_batch.items()):
            self._send(batch, docs)
        if rows:
            log.info("re-sending %d documents from the index outbox", len(rows))
        return int(top)


def _pack(doc: IndexedDocument) -> bytes:
    return zlib.compress(json.dumps([doc.doc_id, doc.url, doc.title, doc.text, doc.host]).encode(), 1)


def _unpack(payload: bytes) -> IndexedDocument:
    doc_id, url, title, text, host = json.loads(zlib.decompress(payload))
    return IndexedDocument(doc_id=doc_id, url=url, title=title, text=text, host=host)

