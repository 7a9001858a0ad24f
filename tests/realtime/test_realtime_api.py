"""The query server's real-time search API: start, read, cancel; and its limits."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.query_server.conftest import build_app
from tests.support.waiting import wait_until


def make_app(data_dir: Path, **options: object) -> Iterator[Flask]:
    defaults = dict(realtime_delay=0.0, realtime_agents=1, realtime_seconds=30.0)
    app = next(build_app(data_dir, **{**defaults, **options}))
    yield app
    app.extensions["webcrawler.realtime"].close()
    app.extensions["webcrawler.sources"].close()


@pytest.fixture
def client(indexed: Path) -> Iterator[FlaskClient]:
    for app in make_app(indexed, realtime_max_jobs=2):
        yield app.test_client()


def wait_done(client: FlaskClient, job_id: str, timeout: float = 45.0) -> dict:
    def finished() -> dict | None:
        view = client.get(f"/api/realtime/{job_id}").get_json()
        return view if view["state"] != "running" else None

    return wait_until(finished, timeout, f"job {job_id} finishing", interval=0.2)


def test_start_read_and_finish_a_job(client: FlaskClient) -> None:
    answer = client.post("/api/realtime", json={"q": "sailing boats", "want": 2})
    assert answer.status_code == 202
    job_id = answer.get_json()["id"]
    view = wait_done(client, job_id)
    assert view["state"] == "done", view
    assert view["summary"]["stop_reason"] == "enough found"
    new = [r for r in view["results"] if r["new"]]
    assert len(new) >= 2 and view["summary"]["found"] == len(new)
    assert all(0 < r["score"] <= 1000 and r["url"].startswith("http://127.0.7.") for r in new)
    later = client.get(f"/api/realtime/{job_id}?after={view['total']}").get_json()
    assert later["results"] == [] and later["total"] == view["total"]


def test_limits_and_cancelling_one_job_leaves_the_other(client: FlaskClient) -> None:
    assert client.post("/api/realtime", json={"q": "the of"}).status_code == 400
    alone = client.post("/api/realtime", json={"q": "type:html"})  # a filter alone: no words
    assert alone.status_code == 400 and "at least one word" in alone.get_json()["error"]
    assert client.post("/api/realtime", json={"q": "chess", "seconds": 999}).status_code == 400
    refused = client.post("/api/realtime", json={"q": "chess", "from": "http://127.0.7.1/"})
    assert refused.status_code == 403  # the form starts from the index only
    first = client.post("/api/realtime", json={"q": "chess opening", "want": 100}).get_json()["id"]
    second = client.post("/api/realtime", json={"q": "cooking recipes", "want": 2}).get_json()["id"]
    assert client.post("/api/realtime", json={"q": "geology"}).status_code == 429
    assert client.delete(f"/api/realtime/{first}").status_code == 200
    assert wait_done(client, first)["state"] == "cancelled"
    assert wait_done(client, second)["state"] == "done"
    assert client.get("/api/realtime/nope").status_code == 404
    assert client.delete("/api/realtime/nope").status_code == 404


def test_a_server_may_allow_starting_from_a_url(indexed: Path) -> None:
    for app in make_app(indexed, allow_from_url=True):
        client = app.test_client()
        page = client.get("/realtime").get_data(as_text=True)
        assert 'name="from"' in page
        answer = client.post("/api/realtime", json={"q": "chess", "from": "http://127.0.7.1/"})
        assert answer.status_code == 202
        job_id = answer.get_json()["id"]
        assert client.delete(f"/api/realtime/{job_id}").get_json()["state"] == "cancelled"
        assert wait_done(client, job_id)["state"] == "cancelled"


def test_the_form_page(client: FlaskClient) -> None:
    page = client.get("/realtime")
    assert page.status_code == 200
    body = page.get_data(as_text=True)
    assert 'name="from"' not in body
    policy = page.headers["Content-Security-Policy"]
    assert "script-src 'nonce-" in policy and "connect-src 'self'" in policy
    assert 'href="/realtime"' in client.get("/").get_data(as_text=True)
