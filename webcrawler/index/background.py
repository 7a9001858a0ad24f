"""Background builds that stand aside while queries run.

The query server rebuilds its vocabulary and speller in a thread while queries run
(`lexicon.py`). A query gives up the GIL many times (each large numpy step releases it)
and must get it back each time; a thread that only computes holds it until the
interpreter's switch interval forces a switch, and a full collection of the cyclic
garbage collector over the millions of objects a speller is made of holds it a tenth of
a second and more (docs/measurements.md). A query beside such a build took three to six
times as long. So queries mark themselves (`foreground`), and a build's loops call
`Pacer.step` for every item: at most every `YIELD_SECONDS` it looks, and while a query
runs it sleeps (`STAND_ASIDE` at a time, at most `MAX_WAIT` in a row, so that a build
still ends under a steady stream of queries); a build that runs inside a query (the first
one, which the query waits for) never stands aside; every `FREEZE_STEPS` items it moves what
exists so far out of the collector's reach (`gc.freeze`; `lexicon.settle` collects what
was frozen now and then).
"""

from __future__ import annotations

import contextlib
import gc
import threading
import time
from collections.abc import Iterator

YIELD_SECONDS = 0.0002  # the longest a build computes between two looks
STAND_ASIDE = 0.0005  # a build's sleep while a query runs
MAX_WAIT = 0.05  # the longest a build stands aside in a row
FREEZE_STEPS = 16_384  # items built between two freezes of what exists

_running = 0  # queries running now, in this process
_lock = threading.Lock()
_mine = threading.local()  # .depth: this thread's queries running (a build it runs never waits)


@contextlib.contextmanager
def foreground() -> Iterator[None]:
    """A query runs in this block: background builds stand aside until it ends."""
    global _running
    with _lock:
        _running += 1
    _mine.depth = getattr(_mine, "depth", 0) + 1
    try:
        yield
    finally:
        _mine.depth -= 1
        with _lock:
            _running -= 1


def _in_query() -> bool:
    """Whether this thread runs a query now."""
    return bool(getattr(_mine, "depth", 0))


class Pacer:
    """Called once per item of a background loop; stands aside and freezes as said above."""

    def __init__(self) -> None:
        self._last = time.perf_counter()
        self._steps = 0

    def step(self) -> None:
        self._steps += 1
        if not self._steps % FREEZE_STEPS:
            gc.freeze()
        if time.perf_counter() - self._last < YIELD_SECONDS or _in_query():
            return  # a build a query waits for (the first, in its thread) goes at full speed
        waited = 0.0
        while waited < MAX_WAIT and _running > 0:
            time.sleep(STAND_ASIDE)
            waited += STAND_ASIDE
        self._last = time.perf_counter()
