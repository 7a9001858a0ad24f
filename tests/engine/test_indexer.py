"""The index process commits what is waiting in commit-sized pieces, never all of it at once."""

from __future__ import annotations

import multiprocessing

from webcrawler.engine.pipeline.index_sink import MAX_BATCHES_PER_COMMIT, _take_waiting


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
