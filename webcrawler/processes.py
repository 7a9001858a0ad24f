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
"""

from __future__ import annotations

import contextlib
import multiprocessing
import sys
from collections.abc import Iterator
from typing import Any

# Imported once by the forkserver, so that every agent forked from it starts with its code
# loaded instead of importing (and, without .pyc files, compiling) it again.
PRELOADED = ["webcrawler.agents.worker", "webcrawler.agents.fetch"]


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
