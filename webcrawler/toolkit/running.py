"""The crawl loop a toolkit crawl is running, for the callbacks it calls.

A visit action that writes somewhere of its own commits when the crawl's loop commits
(`CrawlLoop.on_commit`), so a crawl has one commit cadence: an AddToIndex the crawl does
not know (neither attached nor kept on the crawler; one it knows offers the loop its store
instead: recording.py) given pages by hand. The action is called from `visit` or a
listener, with a page and nothing else, so `CrawlRun` names its loop here for the
length of the run; a context variable, so crawls in other threads (the
Workbench's) each see their own.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from webcrawler.engine.loop.crawl import CrawlLoop

_LOOP: ContextVar[CrawlLoop | None] = ContextVar("webcrawler_toolkit_loop", default=None)


def running_loop() -> CrawlLoop | None:
    """The loop of the toolkit crawl that called us; None outside a crawl."""
    return _LOOP.get()


@contextmanager
def running(loop: CrawlLoop) -> Iterator[None]:
    """`loop` is the running crawl's until the block ends."""
    token = _LOOP.set(loop)
    try:
        yield
    finally:
        _LOOP.reset(token)
