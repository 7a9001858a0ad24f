"""Child processes that never re-run the parent's script.

The agents and the index writer start from a "forkserver", which normally
re-imports the parent's main module in each new process (`spawn` does too).
The engine's own entry points guard that with `if __name__ == "__main__"`, but
SPHINX-style crawlers are ten-line scripts that call `run()` at module level:
re-importing one in a child would start a crawl there (multiprocessing stops it
with its bootstrapping error), and re-importing the `webcrawler` console script
costs each child the command line's imports (about 60 ms of CPU an agent, a
second for a crawl's fifteen). No child needs anything from the main module
(their code is in webcrawler), so while one is started the main module is not
named to it: the agent pool, the agent hosts and the index writers all start
theirs inside `main_module_hidden()`.

The forkserver itself ends, when its last client (the engine) has gone, past its exit handlers
without its interpreter's teardown, as `webcrawler index` does (cli/ending.py): freeing the
agents' modules (requests, urllib3, lxml) one by one is CPU a crawl pays for nothing. It has
nothing to flush but its standard streams: its children are forked by hand and end through
`os._exit` (they never run its exit handlers), and it configures no logging. The handler is
registered as the forkserver imports this module, first of its preload, so every handler
registered after it (by the agents' modules) runs before it, as exit handlers run last first;
the one registered before it, multiprocessing's own, it calls itself.
"""

from __future__ import annotations

import atexit
import contextlib
import multiprocessing
import multiprocessing.forkserver
import multiprocessing.util
import os
import sys
from collections.abc import Iterator
from types import FrameType
from typing import Any

# Imported once by the forkserver, so that every agent forked from it starts with its code
# loaded instead of importing (and, without .pyc files, compiling) it again.
# This module first: its exit handler is then the forkserver's first but multiprocessing's own.
PRELOADED = ["webcrawler.processes", "webcrawler.agents.worker", "webcrawler.agents.fetch"]


def child_context(method: str = "forkserver") -> Any:
    """The multiprocessing context the children of a crawl (agents, index writers) come from.

    A process has one forkserver, started by the first child: the index writer, before any
    agent. The preload applies only when the server starts, so every starter asks for it;
    otherwise each agent pays the agents' imports itself.
    """
    ctx = multiprocessing.get_context(method)
    if method == "forkserver":
        ctx.set_forkserver_preload(PRELOADED)
    return ctx


@contextlib.contextmanager
def main_module_hidden() -> Iterator[None]:
    """Hide the main module's file and spec from multiprocessing for the duration."""
    main = sys.modules.get("__main__")
    if main is None:
        yield
        return
    saved_file = main.__dict__.pop("__file__", None)
    saved_spec = main.__dict__.get("__spec__")
    main.__spec__ = None
    try:
        yield
    finally:
        main.__spec__ = saved_spec
        if saved_file is not None:
            main.__file__ = saved_file


def _imported_by_forkserver() -> bool:
    """Is this module being imported by a forkserver as it starts (its preload)?"""
    start = multiprocessing.forkserver.main.__code__
    frame: FrameType | None = sys._getframe()
    while frame is not None:
        if frame.f_code is start:
            return True
        frame = frame.f_back
    return False


def _end_without_teardown() -> None:
    """The forkserver's end: multiprocessing's exit handler run, its streams flushed, it leaves
    with the status the interpreter would give (1 past an uncaught exception, which the
    interpreter has printed; 0 when its loop ended, the only other way out)."""
    multiprocessing.util._exit_function()  # type: ignore[attr-defined]  # (not in typeshed)
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(1 if hasattr(sys, "last_value") else 0)


# True in a forkserver and the children it forks (which end through os._exit, never running it)
ENDS_WITHOUT_TEARDOWN = _imported_by_forkserver()
if ENDS_WITHOUT_TEARDOWN:
    atexit.register(_end_without_teardown)

