"""Servers that break HTTP on purpose: every outcome is a Failure with a reason and a detail
of ours (never a library's message), never an exception out of the agent, never a hang;
and pages built to make the parser spin."""

from __future__ import annotations

from dataclasses import replace

import pytest

from webcrawler.agents.fetch import Fetcher
from webcrawler.agents.worker import READY
from webcrawler.demoweb.server import LoopbackWeb, Page, Site
from webcrawler.protocol.messages import Document, Failure, Reason, Retrieve, RobotsFile

from .conftest import FAST, agent_process
from .rawserver import RawServer, at_once, then_close

ADDRESS = "127.0.2.30"
OK = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"

# (what the server sends before closing, the detail we expect)
HOSTILE = {
    "thousands of headers": (
        OK + b"".join(b"X-%d: a\r\n" % i for i in range(5000)) + b"Content-Length: 2\r\n\r\nok",
        "too many header lines"),
    "one huge header line": (
        OK + b"X-Big: " + b"a" * 200_000 + b"\r\nContent-Length: 2\r\n\r\nok",
        "a status or header line longer than 64 KiB"),
    "not HTTP": (b"SSH-2.0-OpenSSH_9.6\r\n", "not an HTTP response (bad status line)"),
    "status 099": (b"HTTP/1.1 099 Odd\r\n\r\n", "not an HTTP response (bad status line)"),
    "closed without an answer": (b"", "connection closed without an answer"),
    "contradictory Content-Length": (
        OK + b"Content-Length: 5\r\nContent-Length: 50\r\n\r\nhello", "invalid or contradictory headers"),
    "Content-Length longer than the body": (
        OK + b"Content-Length: 1000\r\n\r\n<title>short</title>",
        "body cut short or malformed (Content-Length or chunk sizes)"),
    "a TLS alert to plain HTTP": (b"\x15\x03\x01\x00\x02\x02\x46",
                                  "not an HTTP response (bad status line)"),
    "bad chunk size": (
        OK + b"Transfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n",
        "body cut short or malformed (Content-Length or chunk sizes)"),
}


@pytest.mark.parametrize(("data", "detail"), HOSTILE.values(), ids=list(HOSTILE))
def test_broken_http_is_a_failure_in_our_words(data: bytes, detail: str) -> None:
    with RawServer(ADDRESS, lambda head: then_close(data)) as server, Fetcher(FAST) as fetcher:
        document = fetcher.retrieve(Retrieve(1, server.url("/")))
        robots = fetcher.retrieve(Retrieve(2, server.url("/robots.txt"), "robots"))
    assert isinstance(document, Failure)
    assert (document.reason, document.detail) == (Reason.CONNECTION, detail)
    assert isinstance(robots, RobotsFile)
    assert (robots.status, robots.reason, robots.detail) == (None, Reason.CONNECTION, detail)


GOOD = OK + b"Content-Length: 20\r\n\r\n<title>fine</title>\n"


@pytest.mark.parametrize(("data", "detail"), HOSTILE.values(), ids=list(HOSTILE))
def test_broken_http_on_a_kept_alive_connection_is_the_same_failure(data: bytes, detail: str) -> None:
    # The second GET takes the first one's connection (client.py's http.client path, not
    # urlopen's): its failure must be the one a new connection gets, and the next GET works.
    def script(head: bytes):
        return at_once(GOOD) if not head.startswith(b"GET /bad ") else then_close(data)

    with RawServer(ADDRESS, script) as server, Fetcher(FAST) as fetcher:
        first = fetcher.retrieve(Retrieve(1, server.url("/")))
        broken = fetcher.retrieve(Retrieve(2, server.url("/bad")))
        after = fetcher.retrieve(Retrieve(3, server.url("/after")))
        assert server.requests[1].startswith(b"GET /bad ") and server.connections == 2
    assert isinstance(first, Document) and isinstance(after, Document) and after.title == "fine"
    assert isinstance(broken, Failure)
    assert (broken.reason, broken.detail) == (Reason.CONNECTION, detail)


def test_https_to_a_plain_http_server() -> None:
    answer_400 = b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"
    with RawServer(ADDRESS, lambda hello: then_close(answer_400), http=False) as server, \
            Fetcher(FAST) as fetcher:
        answer = fetcher.retrieve(Retrieve(1, server.url("/").replace("http:", "https:")))
        assert server.requests and server.requests[0].startswith(b"\x16\x03")  # a ClientHello
    assert isinstance(answer, Failure)
    assert (answer.reason, answer.detail) == (Reason.CONNECTION, "TLS handshake or record failed")


def test_a_tag_with_100000_attributes_does_not_hang_the_agent() -> None:
    # libxml2 compares each attribute with every earlier one of its tag: ~100 s of CPU for
    # this 700 KB page, which no socket timeout can cut. The agent must answer in time.
    tag = "<p " + " ".join(f"a{i}" for i in range(100_000)) + ">"
    page = Page(f"<title>wide</title>{tag}before</p><p>after</p><a href=/next>next</a>")
    config = replace(FAST, max_bytes=1_000_000)
    with LoopbackWeb([Site(ADDRESS, {"/": page})]) as web, agent_process(config) as (parent, _):
        assert parent.poll(10) and parent.recv() == READY
        parent.send(Retrieve(1, web.url(ADDRESS, "/")))
        answered = parent.poll(FAST.total_timeout + 3)
        answer = parent.recv() if answered else None
    assert isinstance(answer, Document), answer
    assert (answer.title, answer.text) == ("wide", "before after next")
    assert [link.url for link in answer.links] == [web.url(ADDRESS, "/next")]
