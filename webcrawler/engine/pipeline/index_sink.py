"""Feeding the full-text index from the crawl without stalling it.

The index is written by its own process: a Whoosh commit (sometimes a merge)
can take seconds, and the crawl loop must not wait for it. Consistency with
the database comes from an outbox:

1. A retrieved document is written to the `index_outbox` table in the same
   transaction as its `documents` row.
2. After the database commits, the batch's number is sent to the index
   process, which reads the batch from the outbox (page text never crosses a
   pipe from the crawl), adds and commits it, then acknowledges the number.
   The numbers go down a one-way pipe, written by the engine's own thread: a
   `multiprocessing.Queue` would start a feeder thread in the engine, and a
   process that has started a thread pays glibc's allocator lock on every
   `malloc` from then on (docs/measurements.md). A message is a few batch
   numbers, and no more are announced than MAX_BATCHES_IN_FLIGHT
   unacknowledged ones (the rest, after a crash thousands to re-send, wait
   in the engine's memory until acknowledgements come), far below a pipe's
   buffer: a send never waits for the writer.
3. Acknowledged batches are marked INDEXED in a later transaction, and the
   languages the index detected and the in-links it counted stored with them
   (`languages.py`, `link_refresh.py`). The rows
   stay: they are the text `webcrawler index --reindex` rebuilds the index
   from (`engine/pipeline/reindex.py`), a document's row replaced when it is fetched
   again. A document leaving the index is a removal row (`outbox.py`), sent
   the same way and deleted once acknowledged.

After a crash the outbox still holds what the index may have missed; the next
start sends it again (adding a document twice replaces it), so the index and
the database agree without a rebuild. The index only ever sees committed
documents.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import queue
import time
from collections import deque
from multiprocessing.connection import Connection
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.engine import Engine

from webcrawler.database.schema import connect, index_outbox
from webcrawler.database.storage_errors import StorageFull, is_disk_full
from webcrawler.engine.interfaces import OutboxBook
from webcrawler.engine.pipeline.outbox import OutboxWriter, apply
from webcrawler.errors import StorageError
from webcrawler.index import IndexWriter, open_writer
from webcrawler.processes import child_context, main_module_hidden

log = logging.getLogger(__name__)

# Back-pressure: above this many unacknowledged batches the crawl waits for the index.
# A batch in flight costs a number in a queue and its rows in the outbox table (not
# memory), so the slack can cover a long merge: 250 batches of up to 200 documents.
MAX_BATCHES_IN_FLIGHT = 250
# One index commit takes at most this many batches (1,000 documents). Bigger commits
# amortise the writer's per-word costs, but past the writer's pool (POOL_MB) every posting
# is spilled to disk and read back: an index that fell behind and took everything
# waiting fell further behind, until the crawl stalled on it (docs/measurements.md).
MAX_BATCHES_PER_COMMIT = 5
# A crawl's index commits at most this often (unless MAX_BATCHES_PER_COMMIT are waiting, or
# the crawl ends). Each commit makes a segment, and segments merge in tiers of eight: a
# writer that kept up with a fast crawl committed every batch, a few hundred documents, and
# rewrote them again at each merge (docs/measurements.md); which it did depended on timing.
COMMIT_PACE = 3.0
# The writer's processes run at this niceness: a query server on the same machine answers
# searchers, who wait, while the index lags by a few seconds, which nobody sees.
WRITER_NICENESS = 10
CLOSE_TIMEOUT = 300.0
ORPHAN_CHECK_SECONDS = 2.0  # how often a waiting index writer checks that its engine lives


def index_process(index_dir: Path, db_url: str, inbox: Connection,
                  acks: multiprocessing.Queue, pace: float = COMMIT_PACE) -> None:
    """The index writer's process: index committed outbox batches, acknowledge them, until None.

    Messages are batch numbers; the documents and removals themselves are read from
    the outbox, so the crawl never pickles page text.
    """
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the engine decides when to stop
    lower_priority()
    engine = connect(db_url, readonly=True)
    try:
        writer = open_writer(index_dir)
    except Exception as exc:  # noqa: BLE001 - reported to the engine, which stops the crawl
        acks.put(_failure(exc))
        engine.dispose()
        return
    try:
        _index_batches(writer, engine, inbox, acks, pace)
        writer.close()
    except Exception as exc:  # noqa: BLE001 - as above; the batches stay in the outbox
        acks.put(_failure(exc))
        writer.discard()  # a full disk fails the last commit too: no traceback, one report
    finally:
        engine.dispose()


def _index_batches(writer: IndexWriter, engine: Engine, inbox: Connection,
                   acks: multiprocessing.Queue, pace: float) -> None:
    stop, committed = False, float("-inf")
    while not stop:
        messages, stop = _take_waiting(inbox)
        if not stop:
            more, stop = _take_until(inbox, committed + pace, MAX_BATCHES_PER_COMMIT - _count(messages))
            messages += more
        if not messages:
            continue
        batches = [n for numbers in messages for n in numbers]
        with engine.connect() as conn:
            rows = conn.execute(select(index_outbox.c.doc_id, index_outbox.c.payload)
                                .where(index_outbox.c.batch.in_(batches))).all()
            applied = apply(writer, ((int(doc_id), bytes(payload)) for doc_id, payload in rows), conn)
        writer.commit()
        committed = time.monotonic()
        acks.put((batches, applied.languages, applied.inlinks))


def lower_priority() -> None:
    """Make this (writer) process yield the CPU to a query server's (WRITER_NICENESS)."""
    with contextlib.suppress(OSError, AttributeError):  # not everywhere, nor ever required
        os.nice(max(0, WRITER_NICENESS - os.nice(0)))  # never raised: a niced crawl stays so


class IndexFailed(StorageError):
    """The index writer's process stopped on an error; the crawl cannot index any more."""


def _failure(exc: BaseException) -> tuple[str, bool, str]:
    """What the index process tells the engine before it ends: ("failed", disk full?, why)."""
    log.debug("index writer failed", exc_info=exc)
    return ("failed", is_disk_full(exc), f"{type(exc).__name__}: {exc}"[:500])


Message = tuple[int, ...]  # batch numbers


def _take_waiting(inbox: Connection,
                  limit: int = MAX_BATCHES_PER_COMMIT) -> tuple[list[Message], bool]:
    """The next message and what else is already waiting, up to `limit` batches (one
    commit for them; the rest waits for the next), and whether the engine said stop (None)."""
    messages: list[Message] = []
    item = _next_message(inbox)
    while item is not None:
        messages.append(item)
        if _count(messages) >= limit:
            return messages, False
        try:
            item = _received(inbox, 0.0)
        except queue.Empty:
            return messages, False
    return messages, True


def _take_until(inbox: Connection, deadline: float,
                limit: int) -> tuple[list[Message], bool]:
    """The messages that arrive until `deadline` (time.monotonic), up to `limit` batches,
    and whether the engine said stop (then at once)."""
    messages: list[Message] = []
    while limit > 0 and (wait := deadline - time.monotonic()) > 0:
        try:
            item = _received(inbox, min(wait, ORPHAN_CHECK_SECONDS))
        except queue.Empty:
            continue
        if item is None:
            return messages, True
        messages.append(item)
        limit -= max(1, len(item))
    return messages, False


def _count(messages: list[Message]) -> int:
    return sum(max(1, len(item)) for item in messages)


def _received(inbox: Connection, timeout: float) -> Message | None:
    """The engine's next message if one comes within `timeout` seconds (else queue.Empty);
    None once the engine said stop or closed its end of the pipe (it ended, or was killed)."""
    if not inbox.poll(timeout):
        raise queue.Empty
    try:
        message: Message | None = inbox.recv()
    except EOFError:
        return None
    return message


def _next_message(inbox: Connection) -> Message | None:
    """The engine's next message, or None (stop) once the engine has died without saying
    so (kill -9): an orphaned writer would wait forever, holding the index's lock."""
    engine_process = multiprocessing.parent_process()
    while True:
        try:
            return _received(inbox, ORPHAN_CHECK_SECONDS)
        except queue.Empty:
            if engine_process is not None and not engine_process.is_alive():
                return None


class IndexSink(OutboxWriter):
    """The crawl's `DocumentSink` for the full-text index (see the module docstring): rows
    written by `OutboxWriter`, announced to the index process after each commit.

    A second writer beside a running crawl (a real-time search, engine/realtime/search.py)
    gives its own `pace` (0: each batch committed as it comes, its searcher waits for them)
    and `resend=False`: its batches are numbered below every other writer's (negative), so
    the acknowledgements of one never delete another's rows, and it leaves re-sending after
    a crash to `webcrawler index`, which re-sends every row."""

    commit_pace = COMMIT_PACE  # seconds between two commits of the index, at least

    def __init__(self, store: OutboxBook, index_dir: Path, *, pace: float = COMMIT_PACE,
                 resend: bool = True) -> None:
        self.commit_pace = pace
        self.store = store
        self.index_dir = index_dir
        self.failed = False
        ctx = child_context()
        reader, self._inbox = ctx.Pipe(duplex=False)
        self._acks: multiprocessing.Queue = ctx.Queue()  # read here: no thread in this process
        db_url = store.database_url()
        self._process = ctx.Process(target=index_process,
                                    args=(index_dir, db_url, reader, self._acks, self.commit_pace),
                                    name="webcrawler-indexer", daemon=True)
        with main_module_hidden():  # a toolkit script may have no __main__ guard
            self._process.start()
        reader.close()  # the writer's now: a send to a writer that died fails, not waits
        self._in_flight: set[int] = set()
        self._unsent: deque[Message] = deque()  # announced as acknowledgements make room
        self._acked: list[int] = []
        self._languages: dict[int, str] = {}  # of acknowledged documents, to store
        self._inlinks: dict[int, int] = {}  # ... and the in-links they were indexed with
        self._removal_batches: set[int] = set()  # sent batches that may hold a removal row
        self._number = self._resend_outbox() if resend else self._below_others()

    def commit(self) -> None:
        """Called after the database committed: announce the batch, forget acknowledged ones."""
        self._collect_acks(block=len(self._in_flight) >= MAX_BATCHES_IN_FLIGHT)
        closed = self._next_batch()
        if closed is not None:
            batch, removes = closed
            if removes:
                self._removal_batches.add(batch)
            self._send((batch,))
        self._send_unsent()
        self._mark_indexed()

    def close(self) -> None:
        """Send the rest, wait for the index to commit it, clean the outbox."""
        self.commit()
        self.store.outbox_commit()
        end = time.monotonic() + CLOSE_TIMEOUT
        while self._unsent and time.monotonic() < end and self._process.is_alive():
            self._collect_acks(block=True, timeout=1.0)  # some are in flight: room comes
            self._send_unsent()
        self._say(None)
        while self._in_flight and time.monotonic() < end and self._process.is_alive():
            self._collect_acks(block=True, timeout=1.0)
        self._process.join(timeout=max(1.0, end - time.monotonic()))
        left = len(self._in_flight) + sum(len(numbers) for numbers in self._unsent)
        if left:
            log.warning("the index did not acknowledge %d batches: they stay in the outbox "
                        "and are indexed on the next start", left)
        self._mark_indexed()
        self.store.outbox_commit()
        self._inbox.close()
        self._acks.close()

    def _mark_indexed(self) -> None:
        """Acknowledged batches are in the index: documents' rows stay (INDEXED), removals go,
        and the documents' languages and the in-links they were indexed with are stored."""
        removals = self._removal_batches.intersection(self._acked)
        self.store.outbox_acknowledge(self._acked, removals, self._languages, self._inlinks)
        self._removal_batches -= removals
        self._acked = []
        self._languages, self._inlinks = {}, {}

    def _send(self, numbers: tuple[int, ...]) -> None:
        """Announce `numbers` after what waits to be announced."""
        self._unsent.append(numbers)
        self._send_unsent()

    def _send_unsent(self) -> None:
        """Announce what waits while fewer than MAX_BATCHES_IN_FLIGHT are unacknowledged."""
        while self._unsent and len(self._in_flight) < MAX_BATCHES_IN_FLIGHT:
            numbers = self._unsent.popleft()
            self._in_flight.update(numbers)
            self._say(numbers)

    def _say(self, message: Message | None) -> None:
        """Send the index process a message; to one that died, nothing (what it did not
        acknowledge stays in the outbox, and is sent again on the next start)."""
        with contextlib.suppress(BrokenPipeError):
            self._inbox.send(message)

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
            if numbers[0] == "failed":
                self._fail(numbers)
            batches, languages, inlinks = numbers
            self._in_flight.difference_update(batches)
            self._acked.extend(batches)
            self._languages.update(languages)
            self._inlinks.update(inlinks)

    def _fail(self, failure: tuple[str, bool, str]) -> None:
        _, disk_full, why = failure
        self.failed = True
        if disk_full:
            raise StorageFull(self.index_dir, "index")
        raise IndexFailed(f"the index writer stopped ({why}); what it had not committed stays "
                          "in the outbox and is indexed on the next start")

    def abort(self) -> None:
        """After a storage failure: stop the index process, write nothing more to the database."""
        try:
            self._say(None)
            self._process.join(timeout=CLOSE_TIMEOUT)
        finally:
            if self._process.is_alive():
                self._process.kill()
                self._process.join()
            self._inbox.close()
            self._acks.close()

    def _below_others(self) -> int:
        """A batch number below every other writer's (see the class's docstring)."""
        lowest = self.store.outbox_lowest()
        self.store.outbox_commit()
        return min(lowest, 0) - 1_000_000

    def _resend_outbox(self) -> int:
        """After a crash: announce again what the index may not have committed."""
        top, waiting = self.store.outbox_unsent()  # committed
        if waiting:
            log.info("re-sending %d batches from the index outbox", len(waiting))
            self._removal_batches.update(waiting)  # what they hold is not known here
            for start in range(0, len(waiting), MAX_BATCHES_PER_COMMIT):  # commit-sized messages
                self._send(tuple(waiting[start : start + MAX_BATCHES_PER_COMMIT]))
        return top

