"""client.py's GET straight to urllib3's pool sends and answers what requests would, on a real
loopback server (127.0.2.x), and takes only the URLs requests' preparation leaves unchanged."""

from __future__ import annotations

import itertools
from urllib.parse import urlsplit

import pytest
import requests
from requests.adapters import HTTPAdapter

from webcrawler.agents.client import Response, lean_path, send
from webcrawler.demoweb.server import LoopbackWeb, Page, Site, html

from .conftest import closed_port
from .rawserver import RawServer, at_once, then_close

HOST = "127.0.2.40"
HEADERS = {"User-Agent": "WebCrawler/test", "Accept": "text/html", "Accept-Encoding": "gzip"}
ROUTES = {
    "/page?q=1": html("A page"),
    "/moved": Page("", status=301, headers=(("Location", "/page?q=1"),
                                            ("Link", '</canon>; rel="canonical"'))),
    "/twice": Page("x", headers=(("X-Twice", "a"), ("X-Twice", "b"))),
}

HOSTS = ["example.org", "127.0.2.1", "a-b.example.", "Example.org", "xn--bcher-kva.de", "[::1]",
         "user@example.org", "-x.org", "example.org:8080", "example.org:0080",
         "example.org:99999", "example.org:"]
PATHS = ["/", "/a/b.html", "", "/a/./b", "/a/../b", "/a/.", "/.well-known/x", "/a b", "/%7Euser",
         "/%c3%a9", "/~user", "/a;b=c", "/é", "/a\\b", "/a//b", "/p:q@r", "/*(x)!$'+,",
         "/a|b", "/a^b", "/a\"b", "/a{b}"]
QUERIES = ["", "?", "?a=1&b=2", "?a=/x?y", "?a=%20", "?a=b c", "?q=é", "?x=[1]", "?a=1#frag",
           "#frag"]


def test_a_lean_url_is_one_requests_would_send_as_it_is() -> None:
    lean = 0
    for scheme, host, path, query in itertools.product(
            ("http", "https", "HTTP", "ftp"), HOSTS, PATHS, QUERIES):
        url = f"{scheme}://{host}{path}{query}"
        target = lean_path(url)
        if target is None:
            continue
        lean += 1
        prepared = requests.PreparedRequest()
        prepared.prepare_url(url, None)
        assert prepared.url == url
        assert prepared.path_url == target
        parts = urlsplit(url)
        assert target == parts.path + (f"?{parts.query}" if parts.query else "")
    assert lean > 100
    for url in ("http://example.org/a/./b", "http://user@example.org/", "http://Example.org/",
                "http://example.org/%7E", "https://example.org/#x", "http://example.org"):
        assert lean_path(url) is None, url


@pytest.fixture(scope="module")
def web() -> LoopbackWeb:
    with LoopbackWeb([Site(HOST, ROUTES)]) as loopback:
        yield loopback


def _both(web: LoopbackWeb, path: str) -> tuple[Response, Response, list[tuple[str, str]]]:
    """The same GET through client.send and through requests (the same body, the same Link
    header parse, the same headers sent)."""
    url = web.url(HOST, path)
    with requests.Session() as session:
        session.trust_env = False
        session.headers.clear()
        session.headers.update(HEADERS)
        prepared = requests.PreparedRequest()
        prepared.prepare_headers(session.headers)
        raw = session.get(url, stream=True, allow_redirects=False, timeout=(10, 10))
        links = raw.links  # requests' own parse of the Link header, not client.Response's
        theirs = Response.of(raw)
        ours = send(HTTPAdapter(), url, lean_path(url) or "", dict(prepared.headers.items()),
                    (10.0, 10.0), True, None)
        theirs_body, ours_body = theirs.raw.read(), ours.raw.read()
        theirs.close()
        ours.close()
        assert ours_body == theirs_body
        assert ours.links == links
    web.log.settle()
    hits = web.log.snapshot()[-2:]
    assert hits[0].headers == hits[1].headers
    return ours, theirs, list(hits[1].headers)


def test_the_same_request_and_answer_as_through_requests(web: LoopbackWeb) -> None:
    for path in ROUTES:
        ours, theirs, sent = _both(web, path)
        assert (ours.status_code, ours.url, dict(ours.headers)) == (
            theirs.status_code, theirs.url, dict(theirs.headers))
        assert ("User-Agent", HEADERS["User-Agent"]) in sent
    ours, _, _ = _both(web, "/moved")  # _both checks ours.links against requests' parse
    assert ours.links == {"canonical": {"url": "/canon", "rel": "canonical"}}
    ours, _, _ = _both(web, "/twice")
    assert ours.headers.get("x-twice") == "a, b"


def test_errors_are_raised_as_requests_raises_them() -> None:
    url = f"http://127.0.2.41:{closed_port('127.0.2.41')}/"
    with pytest.raises(requests.ConnectionError) as theirs:
        requests.get(url, timeout=(5, 5), allow_redirects=False)
    with pytest.raises(requests.ConnectionError) as ours:
        send(HTTPAdapter(), url, "/", {}, (5.0, 5.0), True, None)
    assert type(ours.value) is type(theirs.value)
    assert type(ours.value.args[0]) is type(theirs.value.args[0])
    assert type(ours.value.args[0].reason) is type(theirs.value.args[0].reason)


def _same_error(url: str, timeout: tuple[float, float] = (5.0, 5.0)) -> type[BaseException]:
    """The exception requests raises for a GET of `url`, checked to be the one `send` raises
    (its class and the class of what it wraps); returned for the caller to name."""
    with pytest.raises(requests.RequestException) as theirs:
        requests.get(url, timeout=timeout, allow_redirects=False, verify=True)
    target = lean_path(url) or urlsplit(url).path
    with pytest.raises(requests.RequestException) as ours:
        send(HTTPAdapter(), url, target, {}, timeout, True, None)
    assert type(ours.value) is type(theirs.value), (ours.value, theirs.value)
    assert type(ours.value.args[0]) is type(theirs.value.args[0])
    return type(ours.value)


def test_a_server_that_fails_fails_the_same_way() -> None:
    """Each way a real server fails, raised as requests raises it: silence (read timeout),
    closing before an answer, a status line no HTTP speaks, TLS spoken to plain HTTP."""
    silent = [(30.0, b"never")]  # stop() wakes the pause when the test ends
    cases = [(silent, (5.0, 0.3), requests.ReadTimeout),
             ([(0.0, None)], (5.0, 5.0), requests.ConnectionError),
             (at_once(b"SPDY/9 banana\r\n\r\n"), (5.0, 5.0), requests.ConnectionError)]
    for script, timeout, expected in cases:
        with RawServer("127.0.2.42", lambda _head, s=script: s) as server:
            assert _same_error(server.url("/x"), timeout) is expected
    with RawServer("127.0.2.43", lambda _head: then_close(b"HTTP/1.1 200 OK\r\n\r\n"),
                   http=False) as plain:
        url = plain.url("/x").replace("http://", "https://")
        assert _same_error(url) is requests.exceptions.SSLError


def test_a_kept_alive_connection_sends_and_answers_the_same(web: LoopbackWeb) -> None:
    """The second GET of an adapter takes the first one's connection (http.client's request and
    response on it, not urlopen): the same headers sent, the same status, headers and body."""
    adapter = HTTPAdapter()
    for path in ROUTES:
        url = web.url(HOST, path)
        answers = []
        for _ in range(2):
            response = send(adapter, url, lean_path(url) or "", HEADERS, (10.0, 10.0), True, None)
            answers.append((response.status_code, dict(response.headers), response.links,
                            response.raw.read()))
            response.close()
        assert answers[0] == answers[1]
    web.log.settle()
    hits = web.log.snapshot()[-2 * len(ROUTES):]
    assert all(hit.headers == hits[0].headers for hit in hits)
    pools = adapter.poolmanager.pools  # every GET after the first took the kept-alive connection
    assert [pools[key].num_connections for key in pools.keys()] == [1]
    adapter.close()
