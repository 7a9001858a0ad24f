"""Agents on other hosts: the engine's URLs retrieved by agent hosts of a Dask cluster.

Three roles (docs/scale-out.md, "Agent hosts"): the agent scheduler
(`webcrawler agent-scheduler`), agent hosts (`webcrawler agent-host`) and the
engine (`webcrawler index --agents-at ADDRESS`), which swaps its local agent
pool for `pool.RemotePool` and otherwise crawls exactly as on one machine.
Importing this package imports no Dask: the single-machine path never pays.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from webcrawler.agenthosts.errors import NoAgentHosts
from webcrawler.config.agent_config import agent_config
from webcrawler.config.kinds import ConfigError
from webcrawler.errors import install_command
from webcrawler.settings import Settings

log = logging.getLogger(__name__)


def pool_factory(settings: Settings) -> Callable[[], Any] | None:
    """The remote pool's factory when `settings.agents_at` names a scheduler; None = the local pool."""
    if not settings.agents_at:
        return None
    from webcrawler.agenthosts.security import Tls, UnsafeRole, is_loopback

    tls = Tls(settings.tls_ca, settings.tls_cert, settings.tls_key)
    try:
        tls.check(settings.agents_at)
    except UnsafeRole as exc:
        raise NoAgentHosts(str(exc)) from None
    if not tls.on and not is_loopback(_host(settings.agents_at)):
        log.warning("the agent scheduler at %s is reached without TLS: whoever is on the way can "
                    "read the crawl and send this engine code to run (docs/scale-out.md, "
                    "\"Mutual TLS\")", settings.agents_at)

    try:  # here, before the crawl starts, not when its first agent is wanted
        from webcrawler.agenthosts.pool import RemotePool
    except ImportError as exc:
        raise NoAgentHosts(f"--agents-at needs Dask distributed ({exc}): "
                           f"{install_command('distributed')}") from None

    def make() -> Any:
        return RemotePool(settings.agents_at, settings.agents, agent_config(settings),
                          settings.robots_token, deadline=settings.deadline(),
                          security=tls.security())

    return make


def _host(address: str) -> str:
    """The scheduler's host; ConfigError for an address urlsplit refuses (tcp://[::1 was
    its ValueError, a traceback at the command line)."""
    try:
        return urlsplit(address).hostname or ""
    except ValueError as error:
        raise ConfigError(f"--agents-at {address!r}: {error} (give tcp://HOST:PORT or "
                          "tls://HOST:PORT)") from None


__all__ = ["NoAgentHosts", "pool_factory"]
