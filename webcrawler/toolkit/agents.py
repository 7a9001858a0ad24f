"""The agent pool of a personal crawl: the engine's, started so that a crawler script may
call `run()` at its top level.

Agents start from a "forkserver", which normally re-imports the parent's main module
in each new process (`spawn` does too). The engine's own entry points guard that with
`if __name__ == "__main__"`, but SPHINX-style crawlers are ten-line scripts that call
`run()` at module level: re-importing one in an agent would start a crawl there.
Agents need nothing from the main module (their code is webcrawler.agents.worker),
so while an agent process is being started the main module is not named to it.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator

from webcrawler.engine.pool import AgentPool, AgentProcess
from webcrawler.settings import Settings


class ToolkitPool(AgentPool):
    """An `AgentPool` whose agents never re-run the crawler's script."""

    def _start(self, wait: bool = False) -> AgentProcess:
        with main_module_hidden():
            return super()._start(wait)


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


def start_pool(settings: Settings) -> AgentPool:
    """The agents of a crawl under `settings` (their number, timeouts, User-Agent)."""
    return ToolkitPool(settings.agents, settings.agent_config(), settings.robots_token,
                       deadline=settings.deadline(), max_urls=settings.agent_max_urls,
                       memory_mb=settings.agent_memory_mb)
