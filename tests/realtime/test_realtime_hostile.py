"""Real-time search under hostile input: queries that look like options, malformed bodies,
odd job ids, and failures whose text must be ours. Through the real app under waitress."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.realtime.test_realtime_api import make_app
from tests.support.waiting import wait_until
from webcrawler.demoweb.server import LoopbackWeb, Site, html
from webcrawler.query_server import ServerThread

INTERNAL = "127.0.9.1"  # plays the internal service: a job must never reach it through the query


@pytest.fixture
def internal() -> Iterator[LoopbackWeb]:
    page = html("internal", "secret sailing boats harbour", [("/more", "sailing boats")])
    with LoopbackWeb([Site(INTERNAL, {"/": page, "/more": page}, robots_txt="")]) as web:
        yield web


@pytest.fixture
def server(indexed: Path) -> Iterator[ServerThread]:
    for app in make_app(indexed, realtime_max_jobs=2, realtime_seconds=8.0):
        with ServerThread(app, host="127.0.0.1", port=0, threads=4) as running:
            yield running


def call(server: ServerThread, method: str, path: str, body: object = None,
         raw: bytes | None = None) -> tuple[int, dict]:
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    req = urllib.request.Request(server.url.rstrip("/") + path, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=20) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        with error:
            return error.code, json.load(error)


def wait_done(server: ServerThread, job_id: str, timeout: float = 45.0) -> dict:
    def finished() -> dict | None:
        status, view = call(server, "GET", f"/api/realtime/{job_id}")
        assert status == 200
        return view if view["state"] != "running" else None

    return wait_until(finished, timeout, f"job {job_id} finishing", interval=0.2)


def test_a_query_starting_with_a_dash_is_a_query(server: ServerThread) -> None:
    status, answer = call(server, "POST", "/api/realtime", {"q": "-boats sailing", "want": 2})
    assert status == 202, answer
    view = wait_done(server, answer["id"])
    assert view["state"] == "done", view
    assert view["results"], view  # documents with sailing...
    for result in view["results"]:  # ...and never with "boats" in their title
        assert "boats" not in (result.get("title") or "").lower()


def test_an_option_in_the_query_is_only_words(server: ServerThread, internal: LoopbackWeb) -> None:
    target = internal.url(INTERNAL, "/")
    started = []
    for query in (f"--from={target} sailing", f"--from {target} sailing"):  # both at once
        status, answer = call(server, "POST", "/api/realtime", {"q": query, "want": 1, "seconds": 4})
        assert status == 202, answer
        started.append(answer["id"])
    for job_id in started:
        assert wait_done(server, job_id)["state"] == "done"  # a search for its words
    internal.log.settle()
    assert internal.log.snapshot() == []  # allow_from_url is off: nothing reached the internal server


@pytest.mark.parametrize("start", ["file:///etc/passwd", "gopher://127.0.9.1:70/_GET", "FILE:/etc/passwd",
                                   "ftp://127.0.9.1/", "dict://127.0.9.1:11211/stat", "javascript:alert(1)",
                                   "//127.0.9.1/", "/etc/passwd", "http://", "http:///etc/passwd"])
def test_a_start_url_must_be_http_or_https(indexed: Path, start: str) -> None:
    for app in make_app(indexed, allow_from_url=True):
        with ServerThread(app, host="127.0.0.1", port=0, threads=2) as running:
            status, answer = call(running, "POST", "/api/realtime", {"q": "sailing", "from": start})
            assert status == 400 and "http or https" in answer["error"], answer
        assert app.extensions["webcrawler.realtime"]._jobs.all() == []  # no job was started


MALFORMED = {
    "list": [1, 2], "string": "sailing", "number": 3, "null": None,
    "q list": {"q": ["sailing"]}, "q number": {"q": 12}, "q object": {"q": {"a": 1}},
    "q true": {"q": True}, "q NUL": {"q": "sailing\x00boats"}, "q control": {"q": "sail\x1b[31m"},
    "q empty": {"q": ""}, "q long": {"q": "sailing " * 200},
    "seconds huge int": {"q": "sailing", "seconds": 10**400},
    "seconds inf": {"q": "sailing", "seconds": 1e999}, "seconds true": {"q": "sailing", "seconds": True},
    "seconds list": {"q": "sailing", "seconds": [1]}, "seconds text": {"q": "sailing", "seconds": "ten"},
    "seconds arabic": {"q": "sailing", "seconds": "١"}, "seconds zero": {"q": "sailing", "seconds": 0},
    "want superscript": {"q": "sailing", "want": "²"}, "want negative": {"q": "sailing", "want": -1},
    "want float huge": {"q": "sailing", "want": 1e308}, "from list": {"q": "sailing", "from": ["x"]},
}
RAW = {"nan": b'{"q": "sailing", "seconds": NaN}', "infinity": b'{"q": "sailing", "want": Infinity}',
       "not json": b"{q: sailing", "empty": b"", "huge integer": b'{"q": "s", "want": 1' + b"0" * 5000 + b"}",
       "bad utf-8": b'{"q": "\xff\xfe"}', "deep": b"[" * 30_000 + b"]" * 30_000}


@pytest.mark.parametrize("body", MALFORMED.values(), ids=MALFORMED.keys())
def test_malformed_bodies_get_400(server: ServerThread, body: object) -> None:
    status, answer = call(server, "POST", "/api/realtime", body if body is not None else None,
                          raw=b"null" if body is None else None)
    assert status == 400 and answer["error"] and "Traceback" not in answer["error"], answer


@pytest.mark.parametrize("raw", RAW.values(), ids=RAW.keys())
def test_malformed_raw_bodies_get_400(server: ServerThread, raw: bytes) -> None:
    status, answer = call(server, "POST", "/api/realtime", raw=raw)
    assert status == 400 and answer["error"], answer


def test_a_huge_body_gets_413(server: ServerThread) -> None:
    status, answer = call(server, "POST", "/api/realtime", {"q": "sailing " * 50_000})
    assert status == 413 and "too large" in answer["error"]


def test_odd_after_values_get_400(server: ServerThread) -> None:
    """Each odd `after` on one running job (a job per value only started more processes)."""
    status, answer = call(server, "POST", "/api/realtime", {"q": "astronomy telescope", "want": 1,
                                                            "seconds": 3})
    assert status == 202
    try:
        for after in ["²", "١", "-1", "1e3", "10" * 300, " 1", "0x10", "1.5", "%00"]:
            quoted = urllib.request.quote(after, safe="%")
            status, view = call(server, "GET", f"/api/realtime/{answer['id']}?after={quoted}")
            assert status == 400 and "after" in view["error"], (after, view)
    finally:
        wait_done(server, answer["id"])


@pytest.mark.parametrize("job_id", ["x" * 5000, "..%2F..%2Fetc%2Fpasswd", "%00", "a%20b", "AAAAAAAAAAAAAAAA",
                                    "%C2%B2", "<script>"])
def test_odd_job_ids_are_404(server: ServerThread, job_id: str) -> None:
    for method in ("GET", "DELETE"):
        status, answer = call(server, method, f"/api/realtime/{job_id}")
        assert status == 404 and "<script>" not in json.dumps(answer)


def test_failure_text_is_ours(indexed: Path) -> None:
    (indexed / "webcrawler.db").write_bytes(b"this is not a database, and it is long enough" * 100)
    for app in make_app(indexed, realtime_seconds=8.0):
        with ServerThread(app, host="127.0.0.1", port=0, threads=2) as running:
            status, answer = call(running, "POST", "/api/realtime", {"q": "sailing boats"})
            assert status == 202, answer
            view = wait_done(running, answer["id"])
    assert view["state"] == "failed"
    assert view["error"].startswith("the search "), view["error"]
    for leak in ("Traceback", "sqlite", "sqlalchemy", "Error", str(indexed), "File "):
        assert leak not in view["error"]
