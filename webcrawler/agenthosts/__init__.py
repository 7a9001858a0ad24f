"""Agents on other hosts: the engine's URLs retrieved by agent hosts of a Dask cluster.

Three roles (docs/scale-out.md, "Agent hosts"): the agent scheduler
(`webcrawler agent-scheduler`), agent hosts (`webcrawler agent-host`) and the
engine (`webcrawler index --agents-at ADDRESS`), which swaps its local agent
pool for `pool.RemotePool` and otherwise crawls exactly as on one machine.
Importing this package imports no Dask: the single-machine path never pays.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from webcrawler.settings import Settings


class NoAgentHosts(Exception):
    """The agent scheduler could not be reached, or no agent host joined it in time."""


def pool_factory(settings: Settings) -> Callable[[], Any] | None:
    """The remote pool's factory when `settings.agents_at` names a scheduler; None = the local pool."""
    if not settings.agents_at:
        return None
    from webcrawler.agenthosts.security import Tls, UnsafeRole

    tls = Tls(settings.tls_ca, settings.tls_cert, settings.tls_key)
    try:
        tls.check(settings.agents_at)
    except UnsafeRole as exc:
        raise NoAgentHosts(str(exc)) from None

    def make() -> Any:
        try:
            from webcrawler.agenthosts.pool import RemotePool
        except ImportError as exc:
            raise NoAgentHosts(f"--agents-at needs Dask distributed ({exc}): "
                               "pip install 'webcrawler[distributed]'") from None
        return RemotePool(settings.agents_at, settings.agents, settings.agent_config(),
                          settings.robots_token, deadline=settings.deadline(),
                          security=tls.security())

    return make


__all__ = ["NoAgentHosts", "pool_factory"]
