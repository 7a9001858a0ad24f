"""robots.txt's lifecycle (engine/loop/robots_txt.py) on a real database: due, obeyed, expired,
retried, refused, restored. No request is made: the answers are the agents' messages."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from webcrawler.database.schema import connect
from webcrawler.engine.loop.robots_txt import RobotsTxt
from webcrawler.engine.records import ServerState
from webcrawler.engine.store.sql import CrawlStore
from webcrawler.protocol.messages import RobotsFile
from webcrawler.settings import Settings

ORIGIN = "http://127.0.5.1:8080"  # never asked: nothing here does I/O but the database
ROBOTS = "User-agent: *\nDisallow: /private\nCrawl-delay: 3\n"


@contextmanager
def opened(url: str) -> Iterator[CrawlStore]:
    engine = connect(url)
    store = CrawlStore(engine)
    try:
        yield store
    finally:
        store.close()
        engine.dispose()


def settings_for(tmp_path: Path, url: str, **changes: float) -> Settings:
    return Settings(data_dir=tmp_path / "data", db_url=url, delay=1.0, **changes)


def answer(status: int | None, body: str = "", reason: str = "") -> RobotsFile:
    return RobotsFile(1, ORIGIN + "/robots.txt", status, body, reason)


def fresh_server(store: CrawlStore) -> ServerState:
    server = store.add_server(ORIGIN, time.time())
    store.commit()
    return server


@pytest.mark.wallclock
def test_asked_first_then_obeyed_until_it_expires(tmp_path: Path, database_url: str) -> None:
    with opened(database_url) as store:
        server = fresh_server(store)
        robots = RobotsTxt(settings_for(tmp_path, database_url), store, lambda origin: False)
        assert robots.due(server, time.monotonic())  # before any document
        robots.answered(server, answer(200, ROBOTS))
        assert not robots.due(server, time.monotonic())
        rules = robots.rules(server)
        assert rules is not None and not rules.allowed(ORIGIN + "/private/a")
        assert rules.allowed(ORIGIN + "/public")
        assert server.crawl_delay == 3.0  # longer than our delay of 1 s: it counts

        expired = RobotsTxt(settings_for(tmp_path, database_url, robots_ttl=0.0), store,
                            lambda origin: False)
        expired.answered(server, answer(200, ROBOTS))
        assert expired.due(server, time.monotonic())  # a time-to-live of 0: asked again


def test_unavailable_allows_nothing_until_its_retry(tmp_path: Path, database_url: str) -> None:
    with opened(database_url) as store:
        server = fresh_server(store)
        robots = RobotsTxt(settings_for(tmp_path, database_url, robots_retry=600.0), store,
                           lambda origin: False)
        robots.answered(server, answer(None, reason="timeout"))
        now = time.monotonic()
        assert robots.retrying(server)
        assert not robots.due(server, now)
        assert robots.rules(server) is None  # the crawl defers the server...
        assert robots.due(server, server.robots_retry_at)  # ...and asks again at the retry


def test_a_refused_server_is_never_asked(tmp_path: Path, database_url: str) -> None:
    with opened(database_url) as store:
        server = fresh_server(store)
        robots = RobotsTxt(settings_for(tmp_path, database_url), store, lambda origin: True)
        assert not robots.due(server, time.monotonic())
        rules = robots.rules(server)  # allow-all: the scope gives each document its reason
        assert rules is not None and rules.allowed(ORIGIN + "/private/a")


def test_a_resumed_crawl_keeps_the_rules_that_have_not_expired(tmp_path: Path,
                                                               database_url: str) -> None:
    other = "http://127.0.5.2:8080"
    with opened(database_url) as store:
        kept, gone = fresh_server(store), store.add_server(other, time.time())
        RobotsTxt(settings_for(tmp_path, database_url), store, lambda o: False).answered(
            kept, answer(200, ROBOTS))
        RobotsTxt(settings_for(tmp_path, database_url, robots_ttl=0.0), store,
                  lambda o: False).answered(gone, answer(200, ROBOTS))
        store.commit()
    with opened(database_url) as store:
        store.load_servers()
        robots = RobotsTxt(settings_for(tmp_path, database_url), store, lambda o: False)
        robots.restore()
        kept, gone = store.servers_by_origin[ORIGIN], store.servers_by_origin[other]
        assert kept.robots is not None and not kept.robots.allowed(ORIGIN + "/private/a")
        assert not robots.due(kept, time.monotonic())
        assert gone.robots is None and robots.due(gone, time.monotonic())
