"""Small webs on loopback for crawl tests, and a helper that runs a real crawl."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from sqlalchemy import select

from webcrawler.commands.index import run_index
from webcrawler.database.schema import connect, documents, servers
from webcrawler.demoweb.server import LoopbackWeb, Site, html
from webcrawler.settings import Settings


def site_pages(name: str, count: int, extra_links=()) -> dict:
    """A site: / links to /p1..pN, each page links back home and to the next page."""
    pages = {"/": html(f"{name} home", f"welcome to {name}",
                       [(f"/p{i}", f"page {i}") for i in range(1, count + 1)] + list(extra_links))}
    for i in range(1, count + 1):
        pages[f"/p{i}"] = html(f"{name} page {i}", f"text of page {i} on {name}",
                               [("/", "home"), (f"/p{i + 1}", "next")])
    return pages


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """No politeness delay; timeouts a busy machine does not reach (tests of timeouts set theirs)."""
    return Settings(data_dir=tmp_path / "data", agents=4, delay=0.0, hours=0.05,
                    commit_every=20, progress_interval=60.0, connect_timeout=10.0,
                    read_timeout=10.0, total_timeout=30.0)


def crawl(settings: Settings, seeds: list[str], **changes) -> str:
    """Run `webcrawler index` in this process; return its summary."""
    summary, rejected = run_index(dataclasses.replace(settings, seeds=tuple(seeds), **changes),
                                  progress=False)
    assert not rejected
    return summary


def document_states(settings: Settings) -> dict[str, tuple[str, str | None]]:
    """URL -> (state, reason) for every document in the database."""
    engine = connect(settings.database_url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                select(servers.c.scheme, servers.c.host, servers.c.port, documents.c.path,
                       documents.c.state, documents.c.reason)
                .join(servers, servers.c.id == documents.c.server_id)
            ).all()
    finally:
        engine.dispose()
    return {f"{r.scheme}://{r.host}:{r.port}{r.path}": (r.state, r.reason) for r in rows}


@pytest.fixture
def small_web():
    """A hub on 127.0.4.1 linking to four sites on 127.0.4.11-14, five pages each."""
    hub_routes: dict = {}
    sites = [Site("127.0.4.1", hub_routes)]
    sites += [Site(f"127.0.4.{10 + i}", site_pages(f"site{i}", 5)) for i in range(1, 5)]
    with LoopbackWeb(sites) as web:
        hub_routes["/"] = html("hub", "the seed",
                               [(web.url(f"127.0.4.{10 + i}", "/"), f"site {i}") for i in range(1, 5)])
        yield web
