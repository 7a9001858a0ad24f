"""The crawl's `DocumentSink` for a sharded index: the outbox, drained by S shard writers.

With `--index-shards 1` (the default) the crawl keeps its one index process
(`indexer.IndexSink`). With S > 1 the engine only writes the outbox, in
the same transaction as the documents, and S writers (`shard_writer.py`) drain it,
each its own shard: started here as local processes, or, with
`--external-index-writers`, run by `webcrawler index-writer` on other hosts. Rows,
documents and removals alike, are written as the one index process's are
(`outbox.OutboxWriter`), so they reach the shard's writer across hosts too.
Back-pressure: above `MAX_ROWS_WAITING` rows not yet indexed the crawl waits for the
writers, as it waits for the one index process.
"""

from __future__ import annotations

import logging
import time
from multiprocessing.synchronize import Event
from pathlib import Path

from webcrawler.engine.interfaces import OutboxBook
from webcrawler.engine.pipeline.index_sink import CLOSE_TIMEOUT, IndexFailed, IndexSink, lower_priority
from webcrawler.engine.pipeline.outbox import OutboxWriter
from webcrawler.engine.pipeline.shard_writer import run_shard_writer
from webcrawler.index import prepare_layout, shards_wanted
from webcrawler.processes import child_context, main_module_hidden
from webcrawler.settings import Settings

log = logging.getLogger(__name__)

MAX_ROWS_WAITING = 50_000  # as the one writer's slack: 250 batches of up to 200 documents
WAIT_SECONDS = 0.5
LOG_SECONDS = 30.0  # while the crawl waits for the writers, a line this often


def make_index_sink(store: OutboxBook, settings: Settings) -> IndexSink | ShardedIndexSink:
    """The crawl's index sink for `settings.index_shards` shards (one: today's IndexSink;
    none given: as many as the index has). Raises IndexDamaged, before starting anything,
    when the index has another layout."""
    shards = shards_wanted(settings.index_dir, settings.index_shards)
    prepare_layout(settings.index_dir, shards)
    if shards == 1:
        return IndexSink(store, settings.index_dir)
    return ShardedIndexSink(store, settings.index_dir, shards,
                            start_writers=not settings.external_index_writers)


def shard_writer_process(index_dir: Path, db_url: str, shard: int, shards: int, stop: Event) -> None:
    """A local shard writer (the engine's child): until the engine sets `stop`."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the engine decides when to stop
    lower_priority()
    summary = run_shard_writer(index_dir, db_url, shard, shards, stop.is_set)
    log.info("%s", summary)


class ShardedIndexSink(OutboxWriter):
    """Writes documents (and removals) to the outbox; the shard writers index them."""

    def __init__(self, store: OutboxBook, index_dir: Path, shards: int, start_writers: bool) -> None:
        self.store = store
        self.index_dir = index_dir
        self.failed = False
        db_url = store.database_url()
        self._number = store.outbox_top()  # counts are read outside the crawl's transaction
        ctx = child_context()
        self._stop = ctx.Event()
        self._processes = [
            ctx.Process(target=shard_writer_process, args=(index_dir, db_url, k, shards, self._stop),
                        name=f"webcrawler-index-shard-{k}", daemon=True)
            for k in range(shards if start_writers else 0)
        ]
        with main_module_hidden():  # a writer does not import the command line again
            for process in self._processes:
                process.start()

    def commit(self) -> None:
        """Called after the database committed: the next batch number; wait while too much
        is waiting for the writers."""
        self._next_batch()
        self._check_writers()
        told = 0.0
        while (waiting := self._waiting()) > MAX_ROWS_WAITING and self._writers_alive():
            if time.monotonic() - told > LOG_SECONDS:
                told = time.monotonic()
                log.info("waiting for the index shards to catch up (%d documents)", waiting)
            time.sleep(WAIT_SECONDS)

    def close(self) -> None:
        """Local writers: wait (bounded) until they have indexed everything, then stop them."""
        self.commit()
        self.store.outbox_commit()
        end = time.monotonic() + CLOSE_TIMEOUT
        while self._processes and self._waiting() and time.monotonic() < end and self._writers_alive():
            time.sleep(WAIT_SECONDS)
        waiting = self._waiting()
        if waiting:
            log.warning("%d documents are not in the index yet: they stay in the outbox for the "
                        "shard writers", waiting)
        self._stop_writers(CLOSE_TIMEOUT)

    def abort(self) -> None:
        """After a storage failure: stop the writers, write nothing more to the database."""
        self._stop_writers(CLOSE_TIMEOUT)

    def _waiting(self) -> int:
        """Committed outbox rows that no shard writer has indexed yet (an index range scan)."""
        return self.store.outbox_waiting()

    def _writers_alive(self) -> bool:
        return not self._processes or all(p.is_alive() for p in self._processes)

    def _check_writers(self) -> None:
        for process in self._processes:
            if not process.is_alive() and process.exitcode:
                self.failed = True
                raise IndexFailed(f"the index writer of {process.name} stopped (exit status "
                                  f"{process.exitcode}); what it had not committed stays in the "
                                  "outbox and is indexed on the next start")

    def _stop_writers(self, timeout: float) -> None:
        self._stop.set()
        for process in self._processes:
            process.join(timeout=timeout)
            if process.is_alive():
                process.kill()
                process.join()
