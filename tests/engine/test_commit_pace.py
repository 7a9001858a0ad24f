"""The index writer's process gathers the batches that arrive within `COMMIT_PACE` of its last
commit into one commit (`engine/pipeline/index_sink.py`), up to its limit, and stops waiting
the moment the engine says stop (a real multiprocessing queue, as the engine's); it runs at
`WRITER_NICENESS`, so that a query server on the same machine keeps the CPU."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import time

from webcrawler.engine.pipeline.index_sink import COMMIT_PACE, WRITER_NICENESS, IndexSink, _take_until
from webcrawler.engine.realtime.search import RealtimeSink


def _queue(*items: object) -> multiprocessing.Queue:
    inbox: multiprocessing.Queue = multiprocessing.get_context("spawn").Queue()
    for item in items:
        inbox.put(item)
    return inbox


def test_batches_that_arrive_before_the_deadline_are_taken_together() -> None:
    inbox = _queue((1,), (2, 3), (4,))
    taken, stop = _take_until(inbox, time.monotonic() + 60, limit=4)  # returns at the limit
    assert taken == [(1,), (2, 3), (4,)] and not stop


def test_no_more_than_the_limit_is_taken() -> None:
    inbox = _queue((1,), (2, 3), (4,))
    taken, stop = _take_until(inbox, time.monotonic() + 30, limit=3)
    assert taken == [(1,), (2, 3)] and not stop  # (4,) waits for the next commit
    assert inbox.get(timeout=5) == (4,)


def test_the_engine_saying_stop_ends_the_wait() -> None:
    inbox = _queue((1,), None)
    taken, stop = _take_until(inbox, time.monotonic() + 600, limit=10)
    assert taken == [(1,)] and stop


def test_a_past_deadline_takes_nothing() -> None:
    inbox = _queue((1,))
    taken, stop = _take_until(inbox, time.monotonic() - 1, limit=10)
    assert taken == [] and not stop


def test_a_crawl_paces_its_commits_and_a_real_time_search_does_not() -> None:
    assert IndexSink.commit_pace == COMMIT_PACE > 0
    assert RealtimeSink.commit_pace == 0


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
