"""Fixtures for agent tests: small caps, loopback servers on 127.0.2.x only; short timeouts
(FAST) for the tests of timeouts, patient ones for the rest, which a busy machine must not fail."""

from __future__ import annotations

import dataclasses
import multiprocessing
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess

import pytest

from webcrawler.agents.fetch import Fetcher
from webcrawler.agents.worker import agent_main
from webcrawler.protocol.messages import AgentConfig

FAST = AgentConfig(
    connect_timeout=0.5, read_timeout=0.5, total_timeout=2.0,
    max_bytes=200_000, max_robots_bytes=500 * 1024, max_links=50,
)
PATIENT = dataclasses.replace(FAST, connect_timeout=10.0, read_timeout=10.0, total_timeout=30.0)


@pytest.fixture
def config() -> AgentConfig:
    return PATIENT


@pytest.fixture
def fetcher(config: AgentConfig) -> Iterator[Fetcher]:
    with Fetcher(config, robots_token="WebCrawler") as f:
        yield f


def closed_port(address: str) -> int:
    """A port on `address` that nobody listens on (bound once, then released)."""
    with socket.socket() as sock:
        sock.bind((address, 0))
        return sock.getsockname()[1]


@contextmanager
def agent_process(config: AgentConfig = PATIENT,
                  method: str = "forkserver") -> Iterator[tuple[Connection, BaseProcess]]:
    """A real agent subprocess on a pipe, as the engine's pool starts it.

    On a normal exit it is told to stop (None) and reaped; whatever happens,
    the pipe is closed and a process still alive is killed, so no test leaves
    an agent behind.
    """
    context = multiprocessing.get_context(method)
    parent, child = context.Pipe()
    process = context.Process(target=agent_main, args=(child, config, "WebCrawler"))
    process.start()
    child.close()
    try:
        yield parent, process
        parent.send(None)
        process.join(5)
    finally:
        parent.close()
        if process.is_alive():
            process.kill()
            process.join()
