"""When every seed fails: the crawl gives a server nobody listens on up at once, names why
(connection refused, unknown host), and its summary agrees with the error (the seed a failure
with that reason, not still queued under "failures 0: none")."""

from __future__ import annotations

import dataclasses
import socket
from pathlib import Path

import pytest

from tests.support.inprocess import InProcessPool
from webcrawler.demoweb.server import LoopbackWeb, Site, html
from webcrawler.engine.loop.index_hooks import index_loop
from webcrawler.engine.loop.progress import snapshot, summary
from webcrawler.engine.loop.retries import Retries
from webcrawler.engine.scheduling.scheduler import ServerState
from webcrawler.engine.store.memory import MemoryStore
from webcrawler.protocol.messages import Reason, RobotsFile
from webcrawler.settings import Settings

ADDRESS = "127.0.17.9"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """The default retries (3, from 1 s): what a refused seed used to wait out."""
    return Settings(data_dir=tmp_path / "data", agents=2, delay=0.0, hours=0.05,
                    progress_interval=60.0, connect_timeout=10.0, read_timeout=10.0)


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then let go): connections are refused."""
    with socket.socket() as sock:
        sock.bind((ADDRESS, 0))
        return int(sock.getsockname()[1])


def test_a_refused_seed_is_given_up_at_once_and_the_summary_says_so(settings):
    origin = f"http://{ADDRESS}:{closed_port()}"
    pool = InProcessPool(settings)
    loop = index_loop(settings, MemoryStore(), pool_factory=lambda: pool)
    assert loop.add_seeds([origin + "/"]) == []
    loop.run()
    assert pool.paths(origin) == ["/robots.txt"]  # one try, not four over seconds
    assert dict(loop.stats.failures) == {Reason.REFUSED: 1}
    text = summary(snapshot(loop))
    assert "still queued         0" in text
    assert "failures             1: connection-refused 1" in text
    store = loop.store
    assert isinstance(store, MemoryStore)
    [seed] = store.urls.values()
    assert (seed.state, seed.values["reason"], seed.values["detail"]) == (
        "failed", Reason.REFUSED, "robots.txt unreachable: connection refused")


def test_a_server_that_answered_before_is_tried_again_when_it_refuses(settings):
    """A restart, not an empty port: its robots.txt is asked again after a backoff."""
    retries = Retries(settings, MemoryStore())
    refused = RobotsFile(1, "http://h/robots.txt", None, reason=Reason.REFUSED,
                         detail="connection refused")
    known = ServerState(1, "http://h", visited=True)
    retries.robots_answered(known, refused, 0.0)
    assert known.robots_tries == 1 and known.robots_retry_at > 0
    unknown = RobotsFile(1, "http://n/robots.txt", None, reason=Reason.DNS, detail="unknown host")
    new = ServerState(2, "http://n")
    retries.robots_answered(new, unknown, 0.0)
    assert new.robots_tries == 0 and new.robots_retry_at == 0  # nobody there: given up
    assert retries.robots_failures[2].detail == "unknown host"


def test_a_seed_on_a_reachable_server_beside_it_is_unaffected(settings):
    with LoopbackWeb([Site("127.0.17.10", {"/": html("up", "a page")})]) as web:
        down = f"http://{ADDRESS}:{closed_port()}/"
        pool = InProcessPool(settings)
        loop = index_loop(dataclasses.replace(settings, include=()), MemoryStore(),
                          pool_factory=lambda: pool)
        loop.add_seeds([web.url("127.0.17.10"), down])
        loop.run()
    assert loop.stats.retrieved == 1 and dict(loop.stats.failures) == {Reason.REFUSED: 1}
