"""The two cluster roles around the engine: the agent scheduler and an agent host.

Both are Dask distributed's own servers, started with the settings a crawl
needs; nothing here is a protocol of ours. The scheduler is where agent hosts
join and where the engine (`webcrawler index --agents-at`) sends its URLs; an
agent host is a Dask worker with `threads` agents that runs
`agents.remote.retrieve`. Each role runs until it is interrupted (SIGINT or
SIGTERM) and then leaves the cluster cleanly.

`worker_ttl` is how long the scheduler waits for a silent host (its network
cut) before giving its tasks to another: it must stay under the engine's
agent deadline, so the engine's AGENT_HUNG answer is the last resort only.
A killed host is noticed at once (its connections close).
"""

from __future__ import annotations

import asyncio
import logging
import signal
import socket
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from webcrawler.errors import ServiceError

log = logging.getLogger(__name__)

WORKER_TTL = 20.0  # seconds  # a host silent this long is dead to the scheduler: its URLs go elsewhere
ALLOWED_FAILURES = 3  # a URL whose host died this many times comes back as AGENT_DIED
WEB_PORT = "127.0.0.1:0"  # Dask's own HTTP server (health, metrics): this machine only, always


class RoleFailed(ServiceError):
    """The role could not start (its name taken, the scheduler refusing it): one line."""


def run_scheduler(host: str, port: int, announce: Callable[[str], None], security: Any = None) -> None:
    """Serve as the agent scheduler on `host:port` (0 = a free port) until interrupted;
    with `security` (agenthosts.security.Tls.security()), on tls:// only."""
    from distributed import Scheduler

    _check_address(host)

    async def serve() -> None:
        scheduler = Scheduler(host=host, port=port, protocol="tls" if security else "tcp",
                              security=security, dashboard_address=WEB_PORT, worker_ttl=WORKER_TTL,
                              allowed_failures=ALLOWED_FAILURES)
        await _started(scheduler, f"the agent scheduler could not listen on {host}:{port}")
        async with scheduler:
            announce(scheduler.address)
            await _until_stopped(scheduler.finished())

    asyncio.run(serve())


def run_agent_host(scheduler: str, host: str, threads: int, announce: Callable[[str], None],
                   security: Any = None) -> None:
    """Serve as an agent host with `threads` agents, bound to `host`, until interrupted.
    Its name is unique (two hosts may share an address, on other ports), so it always joins."""
    from distributed import Worker

    from webcrawler.agents.hosted import warm_up

    _check_address(host)
    warm_up()  # each agent is a process of its own (agents/hosted.py): forked, not started cold

    async def serve() -> None:
        worker = Worker(scheduler, host=host, protocol="tls" if security else "tcp", security=security,
                        nthreads=threads, dashboard=False, dashboard_address=WEB_PORT,
                        name=f"agents@{host}-{uuid.uuid4().hex[:8]}", death_timeout=60, memory_limit=0)
        await _started(worker, f"the agent host on {host} could not join {scheduler}")
        async with worker:
            announce(worker.address)
            await _until_stopped(worker.finished())

    asyncio.run(serve())


def _check_address(host: str) -> None:
    """Bind (never listen) to `host` first: an address this machine does not have is one line
    here, where Dask would log a traceback of its own on the way out."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host.strip("[]") or None, 0, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
        with socket.socket(family, kind, proto) as probe:
            probe.bind(address)
    except OSError as exc:
        raise RoleFailed(f"cannot listen on {host}: {exc.strerror or exc}") from None


async def _started(server: Any, failing: str) -> None:
    """Start a Dask server; RoleFailed, one line, when it cannot (Dask raises "failed to
    start" with the reason as its cause: an address not here, a name taken, TLS refused)."""
    try:
        await server
    except RuntimeError as exc:
        raise RoleFailed(f"{failing}: {exc.__cause__ or exc}") from None


async def _until_stopped(finished: Awaitable[object]) -> None:
    """Wait for the server to finish or for SIGINT/SIGTERM, whichever comes first."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for number in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(number, stop.set)
    done = asyncio.ensure_future(finished)
    stopping = asyncio.ensure_future(stop.wait())
    await asyncio.wait([done, stopping], return_when=asyncio.FIRST_COMPLETED)
    stopping.cancel()
    if not done.done():
        done.cancel()

