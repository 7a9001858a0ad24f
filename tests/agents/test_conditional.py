"""Conditional GET: validators from the engine, 304 as its own answer with no body read."""

from __future__ import annotations

import threading
import zlib
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from webcrawler.agents.fetch import Fetcher
from webcrawler.protocol.messages import AgentConfig, Document, NotModified, Retrieve

ETAG = '"v1"'
STAMP = "Mon, 23 Nov 2026 10:00:00 GMT"
PAGE = b"<html><head><title>t</title></head><body><p>hello conditional world</p></body></html>"


class _Handler(BaseHTTPRequestHandler):
    seen: list[dict[str, str]] = []
    body_bytes_sent: list[int] = []

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self.seen.append({k: v for k, v in self.headers.items()})
        if self.headers.get("If-None-Match") == ETAG or \
                self.headers.get("If-Modified-Since") == STAMP:
            self.send_response(304)
            self.send_header("ETag", ETAG)
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(PAGE)))
        self.send_header("ETag", ETAG)
        self.send_header("Last-Modified", STAMP)
        self.end_headers()
        self.wfile.write(PAGE)
        self.body_bytes_sent.append(len(PAGE))

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    _Handler.seen, _Handler.body_bytes_sent = [], []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/page"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


def test_first_fetch_returns_validators_response_and_sketch(server: str) -> None:
    with Fetcher(AgentConfig()) as fetcher:
        doc = fetcher.retrieve(Retrieve(1, server, sketch=True, body=True))
        plain = fetcher.retrieve(Retrieve(2, server))
    assert isinstance(doc, Document)
    assert (doc.etag, doc.last_modified) == (ETAG, STAMP)
    assert zlib.decompress(doc.body) == PAGE
    assert ("ETag", ETAG) in doc.headers and doc.sketch
    assert isinstance(plain, Document) and plain.sketch == b""  # a batch crawl pays no sketch
    assert (plain.body, plain.headers) == (b"", ())  # ... nor a response it does not keep
    assert "If-None-Match" not in _Handler.seen[0]


@pytest.mark.parametrize("validators", [{"etag": ETAG}, {"last_modified": STAMP}])
def test_validators_make_the_get_conditional_and_304_costs_no_body(
        server: str, validators: dict[str, str]) -> None:
    with Fetcher(AgentConfig()) as fetcher:
        answer = fetcher.retrieve(Retrieve(2, server, **validators))
    assert isinstance(answer, NotModified)
    sent = _Handler.seen[-1]
    assert sent.get("If-None-Match") == validators.get("etag")
    assert sent.get("If-Modified-Since") == validators.get("last_modified")
    assert _Handler.body_bytes_sent == []  # the server never sent the page
