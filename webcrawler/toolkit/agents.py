"""The agent pool of a personal crawl: the engine's, started so that a crawler script may
call `run()` at its top level (the main module is hidden from the agents while they
start: webcrawler/processes.py says why)."""

from __future__ import annotations

from webcrawler.engine.loop.pool import AgentPool, start_agents
from webcrawler.settings import Settings


def start_pool(settings: Settings, credentials: bool = False) -> AgentPool:
    """The agents of a crawl under `settings` (their number, timeouts, User-Agent); the data
    directory's [[credentials]] only when `credentials` (the operator's explicit choice:
    anyone who may start a toolkit or workbench crawl would otherwise read what they open)."""
    return start_agents(settings, credentials=credentials)
