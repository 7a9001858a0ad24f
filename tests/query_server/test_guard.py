"""Who may talk to the query server: Host names (DNS rebinding) and same-origin JSON for changes.

Run against the real app under waitress on loopback, with raw HTTP requests so
that every header (Host, Origin, Sec-Fetch-Site, Content-Type) is exactly what
a hostile page or a rebinding DNS name would send.
"""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.query_server.conftest import build_app
from webcrawler.query_server import ServerThread
from webcrawler.web.hosts import answers_to

HOST = "127.0.0.1"


@pytest.fixture
def server(data_dir: Path) -> Iterator[ServerThread]:
    for app in build_app(data_dir, allowed_hosts=("search.example",), realtime_max_jobs=0):
        with ServerThread(app, host=HOST, port=0, threads=2) as running:
            yield running


def request(server: ServerThread, method: str, path: str, headers: dict[str, str],
            body: bytes | None = None) -> tuple[int, str, dict[str, str]]:
    """One raw request with exactly these headers (Host included); (status, body, headers)."""
    connection = http.client.HTTPConnection(HOST, server.server.effective_port, timeout=10)
    try:
        connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        for name, value in headers.items():
            connection.putheader(name, value)
        if body is not None:
            connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        response = connection.getresponse()
        return response.status, response.read().decode("utf-8", "replace"), dict(response.headers)
    finally:
        connection.close()


def own_host(server: ServerThread) -> str:
    return f"{HOST}:{server.server.effective_port}"


@pytest.mark.parametrize("host", ["evil.example", "evil.example:80", "127.0.0.1.evil.example",
                                  "localhost.evil.example", "", "[::1", "search.example:x"])
def test_other_host_names_are_refused(server: ServerThread, host: str) -> None:
    for path in ("/", "/api/search?q=biology", "/opensearch.xml", "/nowhere"):
        status, body, _ = request(server, "GET", path, {"Host": host})
        assert status in (400, 421), (host, path, status)
        assert "evil" not in body


@pytest.mark.parametrize("host", ["localhost", "LOCALHOST:1234", "127.0.0.1", "search.example",
                                  "search.example.:8080"])
def test_the_names_it_serves_are_answered(server: ServerThread, host: str) -> None:
    status, body, _ = request(server, "GET", "/api/search?q=biology", {"Host": host})
    assert status == 200 and json.loads(body)["total"] == 24


def test_opensearch_is_built_from_the_checked_host_only(server: ServerThread) -> None:
    status, body, _ = request(server, "GET", "/opensearch.xml", {"Host": own_host(server)})
    assert status == 200 and f"http://{own_host(server)}/search?q=" in body
    status, body, _ = request(server, "GET", "/opensearch.xml", {"Host": "attacker.example"})
    assert status == 421 and "attacker" not in body


FORM = b"q=sailing+boats"


@pytest.mark.parametrize("headers", [
    {"Origin": "http://evil.example", "Content-Type": "application/x-www-form-urlencoded"},
    {"Origin": "http://evil.example", "Content-Type": "text/plain"},
    {"Origin": "null", "Content-Type": "application/x-www-form-urlencoded"},
    {"Sec-Fetch-Site": "cross-site", "Content-Type": "application/x-www-form-urlencoded"},
    {"Origin": "http://evil.example", "Content-Type": "application/json"},
    {"Sec-Fetch-Site": "same-site", "Content-Type": "application/json"},
], ids=["form", "text-plain", "null-origin", "fetch-site-form", "json-other-origin", "same-site"])
def test_cross_site_changes_are_refused(server: ServerThread, headers: dict[str, str]) -> None:
    body = b'{"q": "sailing"}' if headers["Content-Type"] == "application/json" else FORM
    status, text, _ = request(server, "POST", "/api/realtime", {"Host": own_host(server), **headers},
                              body)
    assert status == 403 and "other sites" in json.loads(text)["error"]
    status, _, _ = request(server, "DELETE", "/api/realtime/AAAAAAAAAAAAAAAA",
                           {"Host": own_host(server), **headers})
    assert status == 403


@pytest.mark.parametrize("content_type", ["application/x-www-form-urlencoded", "text/plain",
                                          "multipart/form-data; boundary=x"])
def test_a_change_without_origin_must_be_json(server: ServerThread, content_type: str) -> None:
    status, text, _ = request(server, "POST", "/api/realtime",
                              {"Host": own_host(server), "Content-Type": content_type}, FORM)
    assert status == 415 and "JSON" in json.loads(text)["error"]


@pytest.mark.parametrize("headers", [
    {}, {"Sec-Fetch-Site": "same-origin"}, {"Sec-Fetch-Site": "none"}, {"Origin": "ORIGIN"}])
def test_same_origin_json_gets_through(server: ServerThread, headers: dict[str, str]) -> None:
    headers = {k: v.replace("ORIGIN", f"http://{own_host(server)}") for k, v in headers.items()}
    status, text, _ = request(server, "POST", "/api/realtime",
                              {"Host": own_host(server), "Content-Type": "application/json",
                               **headers}, b'{"q": "sailing"}')
    assert status == 429, text  # past the guard: refused only because realtime_max_jobs is 0


@pytest.mark.parametrize("host", ["evil.example", "127.0.0.1.evil.example", "[::1]:80", "[::1",
                                  "LOCALHOST:1234", "search.example.:8080", "search.example:x"])
def test_the_guard_answers_as_hosts_answers_to(server: ServerThread, host: str) -> None:
    """One rule for every server of ours: the guard's 421 is hosts.answers_to's no (the
    crawl's --metrics-port asks answers_to directly)."""
    status, _, _ = request(server, "GET", "/api/stats", {"Host": host})
    answered = answers_to(host, ("search.example", HOST))
    assert (status != 421) == answered, (host, status)
