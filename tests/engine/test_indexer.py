"""The index process commits what is waiting in commit-sized pieces, never all of it at once,
and the engine announces no more than MAX_BATCHES_IN_FLIGHT at once."""

from __future__ import annotations

import multiprocessing
import time
from pathlib import Path

import pytest
from sqlalchemy import select

from webcrawler.database.schema import INDEXED, connect, index_outbox
from webcrawler.database.states import State
from webcrawler.engine.pipeline import index_sink
from webcrawler.engine.pipeline.index_sink import MAX_BATCHES_PER_COMMIT, IndexSink, _take_waiting
from webcrawler.engine.pipeline.outbox import pack
from webcrawler.engine.records import NewURL
from webcrawler.engine.store.sql import CrawlStore
from webcrawler.index import IndexedDocument


def test_waiting_batches_are_taken_a_commit_at_a_time() -> None:
    inbox, engine_end = multiprocessing.get_context("spawn").Pipe(duplex=False)
    for number in range(1, 13):
        engine_end.send((number,))
    engine_end.send((13, 14, 15, 16, 17))  # a re-sent piece of the outbox
    engine_end.send(None)
    taken, stopped = [], False
    while not stopped:
        messages, stopped = _take_waiting(inbox)
        taken.append([n for numbers in messages for n in numbers])
    assert MAX_BATCHES_PER_COMMIT == 5
    assert taken == [[1, 2, 3, 4, 5], [6, 7, 8, 9, 10], [11, 12, 13, 14, 15, 16, 17], []]
    inbox.close()
    engine_end.close()


def test_a_re_send_after_a_crash_is_announced_as_room_comes(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Batches a crash left waiting are announced no faster than MAX_BATCHES_IN_FLIGHT allows
    (the writer's inbox is a pipe, which a long re-send would fill), and all are indexed."""
    monkeypatch.setattr(index_sink, "MAX_BATCHES_IN_FLIGHT", 2)
    engine = connect(f"sqlite:///{tmp_path / 'db.sqlite'}")
    store = CrawlStore(engine)
    server = store.add_server("http://127.0.17.11", time.time())
    ids, _ = store.add_urls(server, [NewURL(f"/{n}", 0) for n in range(1, 8)], time.time(), State.FETCHED)
    for batch in range(1, 8):  # seven batches written, none announced: as a crash leaves them
        doc_id = ids[f"/{batch}"]
        store.outbox_put(doc_id, batch, pack(IndexedDocument(doc_id, f"http://127.0.17.11/{batch}",
                                                             "title", f"resent{batch}", "127.0.17.11")))
    store.commit()
    sink = IndexSink(store, tmp_path / "index")
    try:
        announced_at_start = len(sink._in_flight)
    finally:
        sink.close()
        store.close()
    with engine.connect() as conn:
        batches = [b for (b,) in conn.execute(select(index_outbox.c.batch))]
    engine.dispose()
    assert announced_at_start == MAX_BATCHES_PER_COMMIT  # one message of five; the other two wait
    assert batches == [INDEXED] * 7
