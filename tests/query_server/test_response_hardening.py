"""Holes found past the issue's list: caching of query answers, and links on a job's page."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from flask import Flask
from flask.testing import FlaskClient

from tests.query_server.conftest import JAVASCRIPT_URL, build_app


@pytest.mark.parametrize("path", ["/api/search?q=biology", "/api/stats", "/api/openapi.json",
                                  "/search?q=biology", "/api/realtime/AAAAAAAAAAAAAAAA",
                                  "/realtime/AAAAAAAAAAAAAAAA", "/api/nothing"])
def test_answers_about_queries_are_never_cached(client: FlaskClient, path: str) -> None:
    assert client.get(path).headers.get("Cache-Control") == "no-store"


@pytest.fixture
def tiny_jobs(data_dir: Path) -> Iterator[Flask]:
    for app in build_app(data_dir, realtime_seconds=3.0, realtime_max_fetches=2, realtime_agents=1,
                         realtime_delay=0.0):
        yield app
        app.extensions["webcrawler.realtime"].close()


def test_a_job_page_never_links_to_a_javascript_url(tiny_jobs: Flask) -> None:
    client = tiny_jobs.test_client()
    answer = client.post("/api/realtime", json={"q": "javascript genome", "want": 1, "seconds": 3})
    assert answer.status_code == 202, answer.get_json()
    job_id = answer.get_json()["id"]
    end = time.monotonic() + 30
    while client.get(f"/api/realtime/{job_id}").get_json()["state"] == "running":
        assert time.monotonic() < end
        time.sleep(0.2)
    view = client.get(f"/api/realtime/{job_id}").get_json()
    assert JAVASCRIPT_URL in [r["url"] for r in view["results"]], view  # the index's answer...
    page = BeautifulSoup(client.get(f"/realtime/{job_id}").get_data(as_text=True), "html.parser")
    titles = page.select("#results a.title")
    assert titles and all(not a.get("href", "").lower().startswith("javascript") for a in titles)
