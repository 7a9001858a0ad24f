"""Fixtures for the query server: a real Whoosh index and a real SQLite database in tmp_path.

Documents are made here (some with hostile titles and URLs), written with
`webcrawler.index.writing.writer.open_writer`, and described in the database with SQLAlchemy
Core, as the engine would. The app is built on the temporary data directory.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import insert

from webcrawler.database.schema import connect, crawls, documents, links, servers, sqlite_url
from webcrawler.database.states import State
from webcrawler.index import IndexedDocument, open_writer
from webcrawler.query_server import create_app

HOSTILE_TITLE = "<script>alert('title')</script> Molecular biology & friends"
HOSTILE_URL = 'http://127.0.3.1/evil?x="><script>alert(1)</script>'
JAVASCRIPT_URL = "javascript:alert(document.cookie)//genome"


def corpus() -> list[IndexedDocument]:
    """25 documents about molecular biology (for ranking and pagination) and a few others."""
    docs = [
        IndexedDocument(
            1,
            "http://127.0.3.1/guide.html",
            "Guide to Molecular Biology Databases",
            "molecular biology databases guide: molecular biology of the human genome project "
            "molecular biology molecular biology",
            "127.0.3.1",
        ),
        IndexedDocument(
            2,
            "http://127.0.3.2/links.html",
            "Biology Links",
            "biology links for molecular research",
            "127.0.3.2",
        ),
        IndexedDocument(
            3,
            "http://127.0.3.2/untitled",
            "",
            "an untitled page about molecular biology",
            "127.0.3.2",
        ),
        IndexedDocument(
            4,
            HOSTILE_URL,
            HOSTILE_TITLE,
            "molecular biology <img src=x onerror=alert(2)> genome",
            "127.0.3.1",
        ),
        IndexedDocument(
            5, JAVASCRIPT_URL, "A javascript URL about the genome", "genome molecular", "127.0.3.3"
        ),
        IndexedDocument(
            6,
            "http://127.0.3.3/tuna.html",
            "Dolphin-safe tuna",
            "dolphins and tuna in the ocean",
            "127.0.3.3",
        ),
    ]
    for n in range(7, 27):
        docs.append(
            IndexedDocument(
                n,
                f"http://127.0.3.4/paper{n}.html",
                f"Paper {n} on biology",
                f"biology paper number {n} " + "filler words " * n,
                "127.0.3.4",
            )
        )
    return docs


def injected_scripts(page: Any) -> list[Any]:
    """The <script> elements of a parsed page other than its own (/search.js, by nonce):
    any other one came from the data or the query."""
    return [s for s in page.find_all("script") if s.get("src") != "/search.js" or not s.get("nonce")]


def write_index(index_dir: Path, docs: Iterable[IndexedDocument]) -> None:
    writer = open_writer(index_dir)
    try:
        writer.add(list(docs))
        writer.commit()
    finally:
        writer.close()


def write_database(data_dir: Path) -> None:
    """A small crawl: 4 servers (3 visited), 26 fetched, 2 failed, 1 excluded, 3 queued, 5 links."""
    engine = connect(sqlite_url(data_dir))
    now = time.time()
    with engine.begin() as conn:
        for sid, host, visited, fetched in [
            (1, "127.0.3.1", True, 10),
            (2, "127.0.3.2", True, 10),
            (3, "127.0.3.3", True, 6),
            (4, "127.0.3.9", False, 0),
        ]:
            conn.execute(
                insert(servers).values(
                    id=sid,
                    scheme="http",
                    host=host,
                    port=80,
                    first_seen=now,
                    visited=visited,
                    docs_fetched=fetched,
                )
            )
        rows = [dict(server_id=1 + n % 3, path=f"/d{n}", state=State.FETCHED) for n in range(26)]
        rows += [
            dict(server_id=1, path="/gone", state=State.FAILED, reason="http_404"),
            dict(server_id=2, path="/gone", state=State.FAILED, reason="http_404"),
            dict(server_id=3, path="/slow", state=State.FAILED, reason="timeout"),
            dict(server_id=3, path="/private", state=State.EXCLUDED, reason="robots"),
        ]
        rows += [dict(server_id=4, path=f"/q{n}", state=State.QUEUED) for n in range(3)]
        conn.execute(insert(documents), [{"reason": None, **r, "discovered_at": now} for r in rows])
        conn.execute(
            insert(links), [dict(source_id=1, target_id=t, anchor="a") for t in range(2, 7)]
        )
        conn.execute(
            insert(crawls).values(
                started_at=now - 7200,
                ended_at=now - 3600,
                documents=1000,
                failures=3,
                stop_reason="time limit",
            )
        )
    engine.dispose()


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    """A data directory with an index of `corpus()` and a database describing a crawl."""
    write_index(tmp_path / "index", corpus())
    write_database(tmp_path)
    return tmp_path


@pytest.fixture
def make_data_dir(tmp_path: Path) -> Callable[[list[IndexedDocument]], Path]:
    """A function making a data directory with an index of the documents given and the database."""

    def make(docs: list[IndexedDocument]) -> Path:
        write_index(tmp_path / "index", docs)
        write_database(tmp_path)
        return tmp_path

    return make


def build_app(data_dir: Path, **options: object) -> Iterator[Flask]:
    app = create_app(data_dir, testing=True, stats_ttl=0.0, **options)
    yield app
    app.extensions["webcrawler.sources"].close()


@pytest.fixture
def app(data_dir: Path) -> Iterator[Flask]:
    yield from build_app(data_dir)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()
