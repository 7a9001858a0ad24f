"""/stats and /api/stats, and pages that answer before anything has been crawled or indexed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from flask.testing import FlaskClient

from webcrawler.index import IndexedDocument
from webcrawler.query_server import create_app


def test_api_stats_numbers(client: FlaskClient) -> None:
    data = client.get("/api/stats").get_json()
    assert data["database"] is True and data["index"] is True
    assert data["documents"] == {"fetched": 26, "failed": 3, "excluded": 1, "queued": 3}
    assert (data["servers_known"], data["servers_visited"], data["servers_indexed"]) == (4, 3, 3)
    assert data["links"] == 5
    assert data["failures"] == {"http_404": 2, "timeout": 1}
    assert data["exclusions"] == {"robots": 1}
    assert data["index_documents"] == 26 and data["index_bytes"] > 0
    crawl = data["last_crawl"]
    assert crawl["ended_at"] - crawl["started_at"] == pytest.approx(3600)
    assert crawl["documents"] == 1000 and crawl["rate_per_hour"] == pytest.approx(1000, rel=1e-3)


def test_stats_page_shows_the_same_numbers(client: FlaskClient) -> None:
    page = BeautifulSoup(client.get("/stats").get_data(as_text=True), "html.parser")
    cells = {
        th.get_text(strip=True): th.find_next("td").get_text(" ", strip=True)
        for th in page.select("th[scope=row]")
    }
    assert cells["fetched"] == "26" and cells["http_404"] == "2" and cells["links"] == "5"
    assert cells["servers known"] == "4" and cells["servers visited"] == "3"
    assert cells["rate"] == "1,000 documents/hour" and cells["stopped because"] == "time limit"
    assert cells["started"].endswith("UTC")


def test_pages_answer_before_any_crawl(tmp_path: Path) -> None:
    app = create_app(tmp_path / "nothing-yet", testing=True)
    client = app.test_client()
    home = client.get("/")
    assert home.status_code == 200 and "No index yet: run webcrawler index" in home.get_data(
        as_text=True
    )
    page = client.get("/search?q=biology")
    assert page.status_code == 200 and "No index yet: run webcrawler index" in page.get_data(
        as_text=True
    )
    data = client.get("/api/search?q=biology").get_json()
    assert data["total"] == 0 and data["results"] == [] and "webcrawler index" in data["message"]
    stats = client.get("/api/stats").get_json()
    assert stats["database"] is False and stats["index"] is False
    assert client.get("/stats").status_code == 200
    assert not (tmp_path / "nothing-yet").exists()  # a reader creates nothing
    app.extensions["webcrawler.sources"].close()


def test_an_empty_database_file_is_not_an_error(tmp_path: Path) -> None:
    (tmp_path / "webcrawler.db").touch()
    app = create_app(tmp_path, testing=True)
    assert app.test_client().get("/api/stats").get_json()["database"] is False
    assert app.test_client().get("/").status_code == 200
    app.extensions["webcrawler.sources"].close()


def test_unknown_options_are_refused(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="per_pgae"):
        create_app(tmp_path, per_pgae=5)


def test_per_page_option(data_dir: Path) -> None:
    app = create_app(data_dir, testing=True, per_page=3)
    page = BeautifulSoup(
        app.test_client().get("/search?q=biology").get_data(as_text=True), "html.parser"
    )
    assert len(page.select("ol.results > li")) == 3
    app.extensions["webcrawler.sources"].close()


def test_an_index_made_after_the_server_started_is_found(
    tmp_path: Path, make_data_dir: Callable[[list[IndexedDocument]], Path]
) -> None:
    (tmp_path / "index").mkdir()  # the indexer has made the directory, not yet the index
    app = create_app(tmp_path, testing=True, stats_ttl=0.0)
    client = app.test_client()
    assert "webcrawler index" in client.get("/api/search?q=zebra").get_json()["message"]
    make_data_dir([IndexedDocument(1, "http://127.0.3.1/", "Zebra", "zebra")])
    data = client.get("/api/search?q=zebra").get_json()
    assert data["total"] == 1 and "message" not in data
    assert client.get("/api/stats").get_json()["database"] is True
    app.extensions["webcrawler.sources"].close()
