"""The index writer's process gathers the batches that arrive within `COMMIT_PACE` of its last
commit into one commit (`engine/pipeline/index_sink.py`), up to its limit, and stops waiting
the moment the engine says stop (a real one-way pipe, as the engine's); it runs at
`WRITER_NICENESS`, so that a query server on the same machine keeps the CPU."""

from __future__ import annotations

import multiprocessing
import os
import queue
import subprocess
import sys
import threading
import time
from multiprocessing.connection import Connection
from pathlib import Path

from webcrawler.database.schema import connect
from webcrawler.database.states import State
from webcrawler.engine.pipeline.index_sink import (
    COMMIT_PACE,
    WRITER_NICENESS,
    IndexSink,
    _index_batches,
    _take_until,
)
from webcrawler.engine.pipeline.outbox import pack
from webcrawler.engine.realtime.search import RealtimeSink
from webcrawler.engine.records import NewURL
from webcrawler.engine.store.sql import CrawlStore
from webcrawler.index import IndexedDocument, open_writer


def _pipe(*items: object) -> tuple[Connection, Connection]:
    """The writer's end (the inbox) and the engine's, which sent `items`."""
    inbox, engine_end = multiprocessing.get_context("spawn").Pipe(duplex=False)
    for item in items:
        engine_end.send(item)
    return inbox, engine_end


def test_batches_that_arrive_before_the_deadline_are_taken_together() -> None:
    inbox, _engine_end = _pipe((1,), (2, 3), (4,))
    taken, stop = _take_until(inbox, time.monotonic() + 60, limit=4)  # returns at the limit
    assert taken == [(1,), (2, 3), (4,)] and not stop


def test_no_more_than_the_limit_is_taken() -> None:
    inbox, _engine_end = _pipe((1,), (2, 3), (4,))
    taken, stop = _take_until(inbox, time.monotonic() + 30, limit=3)
    assert taken == [(1,), (2, 3)] and not stop  # (4,) waits for the next commit
    assert inbox.poll(5) and inbox.recv() == (4,)


def test_the_engine_saying_stop_ends_the_wait() -> None:
    inbox, _engine_end = _pipe((1,), None)
    taken, stop = _take_until(inbox, time.monotonic() + 600, limit=10)
    assert taken == [(1,)] and stop


def test_a_past_deadline_takes_nothing() -> None:
    inbox, _engine_end = _pipe((1,))
    taken, stop = _take_until(inbox, time.monotonic() - 1, limit=10)
    assert taken == [] and not stop


def test_batches_that_arrive_after_a_commit_wait_for_the_pace_and_join_one_commit(tmp_path: Path) -> None:
    """The index process in this process on a real outbox and index: batch 1 is committed at
    once; batch 2, taken alone, waits for the pace and batch 3 joins its commit; without
    the pace, 2 and 3 are committed apart."""
    assert _commits(tmp_path / "paced", pace=600) == [[1], [2, 3]]
    assert _commits(tmp_path / "unpaced", pace=0) == [[1], [2], [3]]
    assert RealtimeSink.commit_pace == 0 < IndexSink.commit_pace == COMMIT_PACE


def _commits(data: Path, pace: float) -> list[list[int]]:
    """The batches of each commit the index process acknowledged."""
    engine = connect(f"sqlite:///{data / 'db.sqlite'}")
    store = CrawlStore(engine)
    server = store.add_server("http://127.0.17.9", time.time())
    ids, _ = store.add_urls(server, [NewURL(f"/{n}", 0) for n in (1, 2, 3)], time.time(), State.FETCHED)
    for batch in (1, 2, 3):
        doc_id = ids[f"/{batch}"]
        store.outbox_put(doc_id, batch, pack(IndexedDocument(doc_id, f"http://127.0.17.9/{batch}",
                                                             "note", f"page {batch}", "127.0.17.9")))
    store.commit()
    inbox, engine_end = multiprocessing.Pipe(duplex=False)  # the process's loop in a thread
    acks: queue.Queue = queue.Queue()  # a thread's queue
    writer = open_writer(data / "index")
    worker = threading.Thread(target=_index_batches, args=(writer, engine, inbox, acks, pace))
    worker.start()
    try:
        engine_end.send((1,))
        acknowledged = [acks.get(timeout=60)[0]]
        engine_end.send((2,))
        deadline = time.monotonic() + 60
        while inbox.poll(0) and time.monotonic() < deadline:  # until the writer has taken it
            time.sleep(0.01)
        time.sleep(0.2)  # unpaced, the writer commits batch 2 alone meanwhile
        engine_end.send((3,))
        engine_end.send(None)
        worker.join(timeout=60)
        while not acks.empty():
            acknowledged.append(acks.get(timeout=60)[0])
    finally:
        worker.join(timeout=60)
        writer.close()
        store.close()
        engine.dispose()
    return acknowledged

PROBE = ("from webcrawler.engine.pipeline.index_sink import lower_priority; import os; "
         "lower_priority(); print(os.nice(0))")


def test_the_writer_process_yields_the_cpu_and_never_raises_its_priority() -> None:
    """A writer's process runs at WRITER_NICENESS; one started nicer (a crawl under `nice
    19`) stays as nice as it was."""
    base = os.nice(0)  # the test's own (a suite started under `nice`)
    assert _niceness_after([]) == max(base, WRITER_NICENESS)
    nicer = min(19, max(base, WRITER_NICENESS) + 5)
    assert _niceness_after(["nice", "-n", str(nicer - base)]) == nicer


def _niceness_after(prefix: list[str]) -> int:
    out = subprocess.run([*prefix, sys.executable, "-c", PROBE], capture_output=True, text=True,
                         timeout=60, check=True).stdout
    return int(out)
