"""Fixtures for agent tests: fast timeouts, small caps, loopback servers on 127.0.2.x only."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from webcrawler.agents.fetch import Fetcher
from webcrawler.messages import AgentConfig

FAST = AgentConfig(
    connect_timeout=0.5, read_timeout=0.5, total_timeout=2.0,
    max_bytes=200_000, max_robots_bytes=500 * 1024, max_links=50,
)


@pytest.fixture
def config() -> AgentConfig:
    return FAST


@pytest.fixture
def fetcher(config: AgentConfig) -> Iterator[Fetcher]:
    with Fetcher(config, robots_token="WebCrawler") as f:
        yield f


def closed_port(address: str) -> int:
    """A port on `address` that nobody listens on (bound once, then released)."""
    with socket.socket() as sock:
        sock.bind((address, 0))
        return sock.getsockname()[1]
