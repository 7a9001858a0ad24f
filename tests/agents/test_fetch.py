"""Fetcher against real loopback servers (127.0.2.x): every outcome is an answer, never a raise."""

from __future__ import annotations

import gzip
import itertools
import time
import zlib
from collections.abc import Iterator

import pytest

from tests.support.waiting import wait_until
from webcrawler.agents.fetch import Fetcher, x_robots_tag
from webcrawler.demoweb.server import LoopbackWeb, Page, Site, html
from webcrawler.protocol.messages import (
    AgentConfig,
    Document,
    Failure,
    Outlink,
    Reason,
    Redirect,
    Retrieve,
    RobotsFile,
)

from .conftest import FAST, closed_port

A, B = "127.0.2.1", "127.0.2.2"
KIB = 1024
pulled = itertools.count()  # chunks the endless page has produced


def endless() -> Iterator[bytes]:
    while True:
        next(pulled)
        yield b"<p>" + b"x" * 16 * KIB + b"</p>"


def robots_chain(path: str) -> Page | None:
    """/hop/N redirects to /hop/N-1 ... /hop/0 is the file; /loop redirects to itself."""
    if path.startswith("/hop/"):
        n = int(path.rsplit("/", 1)[1])
        if n == 0:
            return Page("User-agent: *\nDisallow: /private\n", content_type="text/plain")
        return Page("", status=302, headers=(("Location", f"/hop/{n - 1}"),))
    return {
        "/loop": Page("", status=301, headers=(("Location", "/loop"),)),
        "/big-robots": Page("\ufeff" + "#" * 600 * KIB, content_type="text/plain"),
        "/robots-moved-utf8": Page("", status=301, headers=(("Location", "/\xc3\xa9t\xc3\xa9.txt"),)),
        "/%C3%A9t%C3%A9.txt": Page("User-agent: *\nDisallow: /summer\n", content_type="text/plain"),
        "/robots-cut-bom": Page(b"\xef\xbbUser-agent: *\nDisallow: /x\n", content_type="text/plain"),
        "/robots-404": Page("gone", status=404),
        "/robots-500": Page("oops", status=500),
        "/robots-gz": Page(gzip.compress(b"User-agent: *\nAllow: /\n"), content_type="text/plain",
                           headers=(("Content-Encoding", "gzip"),)),
    }.get(path)


ROUTES = {
    "/": html("Home", "hello world", [("/a.html", "A"), ("b.html", "B"), ("/a.html#x", "again")]),
    "/latin1": Page("<title>Caf\xe9</title><p>d\xe9j\xe0 vu</p>".encode("latin-1"),
                    content_type="text/html; charset=iso-8859-1"),
    "/plain": Page("just words\nand more", content_type="text/plain"),
    "/unlabelled-html": Page(b"<html><title>U</title><a href=/x>x</a></html>", content_type=""),
    "/unlabelled-binary": Page(b"\x7fELF\x02\x01\x01" + b"\0" * 2000, content_type=""),
    "/png-as-html": Page(b"\x89PNG\r\n\x1a\n" + b"\0" * 5000, content_type="text/html"),
    "/image": Page(b"GIF89a", content_type="image/gif"),
    "/gzip": Page(gzip.compress(b"<title>zipped</title><p>inflated text</p>"),
                  headers=(("Content-Encoding", "gzip"),)),
    "/bomb": Page(gzip.compress(b"\0" * 20_000_000, compresslevel=1),
                  headers=(("Content-Encoding", "gzip"),)),
    # 50,000 empty gzip members, then the page: decoded in a loop, not one recursion each.
    "/gzip-members": Page(gzip.compress(b"", mtime=0) * 50_000
                          + gzip.compress(b"<title>many members</title>", mtime=0),
                          headers=(("Content-Encoding", "gzip"),)),
    # Many members that each inflate to 100 KB: the cap holds across members.
    "/gzip-member-bomb": Page(gzip.compress(b"\0" * 100_000, mtime=0) * 50,
                              headers=(("Content-Encoding", "gzip"),)),
    "/brotli": Page(b"\x1b\x00\x00", headers=(("Content-Encoding", "br"),)),
    "/moved": Page("", status=301, headers=(("Location", "/new/place.html#frag"),)),
    "/moved-away": Page("", status=302, headers=(("Location", "HTTP://Elsewhere.TEST:80/x"),)),
    "/moved-nowhere": Page("", status=302),
    # Header values go out as Latin-1: "\xc3\xa9" is the UTF-8 of "é", "\xe9" raw Latin-1.
    "/moved-utf8": Page("", status=302, headers=(("Location", "/caf\xc3\xa9?q=\xe3\x83\x84"),)),
    "/moved-latin1": Page("", status=301, headers=(("Location", "/caf\xe9 x"),)),
    "/moved-mailto": Page("", status=303, headers=(("Location", "mailto:a@b.test"),)),
    "/missing": Page("nope", status=404),
    "/broken": Page("oops", status=500),
    "/large": Page(b"a" * 300 * KIB),  # announced with Content-Length
    "/endless": Page(endless(), content_type="text/html"),
    "/slow-start": Page("late", delay=1.5),
    "/trickle": Page((b"x" * 10 for _ in range(10_000)), chunk_delay=0.05),
    "/meta": Page(b"<meta name=robots content='noindex,nofollow'><a href=/x>x</a>"),
    "/header-robots": Page(b"<a href=/x>x</a>", headers=(("X-Robots-Tag", "webcrawler: noindex"),)),
    "/validators": Page("<p>v</p>", headers=(("Last-Modified", "Tue, 01 Nov 1994 00:00:00 GMT"),
                                             ("ETag", '"abc"'))),
}


@pytest.fixture(scope="module")
def web() -> Iterator[LoopbackWeb]:
    def other(path: str) -> Page | None:
        return Page("User-agent: *\nDisallow:\n", content_type="text/plain") \
            if path == "/robots.txt" else None

    def routes(path: str) -> Page | None:
        if path == "/robots-other-host":
            return Page("", status=301, headers=(("Location", f"http://{server_b[0]}/robots.txt"),))
        return ROUTES.get(path) or robots_chain(path)

    server_b: list[str] = []
    with LoopbackWeb([Site(A, routes), Site(B, other)]) as loopback:
        server_b.append(loopback.name(B))
        yield loopback


def get(fetcher: Fetcher, web: LoopbackWeb, path: str, kind: str = "document"):
    return fetcher.retrieve(Retrieve(7, web.url(A, path), kind))


def test_document(fetcher: Fetcher, web: LoopbackWeb) -> None:
    doc = get(fetcher, web, "/")
    assert isinstance(doc, Document)
    origin = web.origin(A)
    assert (doc.job_id, doc.status, doc.content_type, doc.charset) == (7, 200, "text/html", "utf-8")
    assert doc.final_url == origin + "/" and doc.title == "Home"
    assert doc.text == "Home hello world A B again"
    assert doc.links == (Outlink(origin + "/a.html", "A | again"), Outlink(origin + "/b.html", "B"))
    assert doc.length > 0 and len(doc.checksum) == 32 and 0 < doc.elapsed < 1
    web.log.settle()
    hit = web.log.for_server(web.name(A))[-1]
    assert hit.user_agent == FAST.user_agent
    assert ("Accept-Encoding", "gzip, deflate") in hit.headers


def test_header_charset_and_plain_text(fetcher: Fetcher, web: LoopbackWeb) -> None:
    doc = get(fetcher, web, "/latin1")
    assert (doc.title, doc.text, doc.charset) == ("Café", "déjà vu", "windows-1252")
    plain = get(fetcher, web, "/plain")
    assert (plain.content_type, plain.title, plain.text, plain.links) == (
        "text/plain", "just words", "just words and more", ())


def test_missing_content_type_is_sniffed(fetcher: Fetcher, web: LoopbackWeb) -> None:
    doc = get(fetcher, web, "/unlabelled-html")
    assert doc.content_type == "text/html" and doc.title == "U"
    binary = get(fetcher, web, "/unlabelled-binary")
    assert isinstance(binary, Failure) and binary.reason == Reason.UNINDEXABLE


@pytest.mark.parametrize("path", ["/png-as-html", "/image"])
def test_unindexable_responses(fetcher: Fetcher, web: LoopbackWeb, path: str) -> None:
    answer = get(fetcher, web, path)
    assert isinstance(answer, Failure) and answer.reason == Reason.UNINDEXABLE
    assert answer.status == 200


@pytest.mark.parametrize(("path", "body"), [("/png-as-html", ROUTES["/png-as-html"].body),
                                          ("/image", b"GIF89a")])
def test_a_file_is_answered_with_its_bytes_whatever_its_type(fetcher: Fetcher, web: LoopbackWeb,
                                                            path: str, body: bytes) -> None:
    answer = get(fetcher, web, path, kind="file")  # the toolkit's images: bytes, nothing parsed
    assert isinstance(answer, Document) and zlib.decompress(answer.body) == body
    assert (answer.text, answer.title, answer.links, answer.length) == ("", "", (), len(body))


def test_unindexable_url_is_not_requested(fetcher: Fetcher, web: LoopbackWeb) -> None:
    answer = get(fetcher, web, "/picture.JPG")
    assert isinstance(answer, Failure) and answer.reason == Reason.UNINDEXABLE
    assert "/picture.JPG" not in web.log.paths()


def test_gzip_is_decoded(fetcher: Fetcher, web: LoopbackWeb) -> None:
    doc = get(fetcher, web, "/gzip")
    assert (doc.title, doc.text) == ("zipped", "inflated text")
    assert doc.length == len(b"<title>zipped</title><p>inflated text</p>")


def test_gzip_bomb_is_too_large_and_fast(fetcher: Fetcher, web: LoopbackWeb) -> None:
    answer = get(fetcher, web, "/bomb")
    assert isinstance(answer, Failure) and answer.reason == Reason.TOO_LARGE
    assert answer.elapsed < 0.5


def test_many_gzip_members_are_decoded_in_a_loop(fetcher: Fetcher, web: LoopbackWeb) -> None:
    doc = get(fetcher, web, "/gzip-members")
    assert isinstance(doc, Document), doc
    assert doc.title == "many members"
    bomb = get(fetcher, web, "/gzip-member-bomb")
    assert isinstance(bomb, Failure) and bomb.reason == Reason.TOO_LARGE


def test_unknown_content_encoding(fetcher: Fetcher, web: LoopbackWeb) -> None:
    assert get(fetcher, web, "/brotli").reason == Reason.DECODE


def test_redirects_are_answered_not_followed(fetcher: Fetcher, web: LoopbackWeb) -> None:
    answer = get(fetcher, web, "/moved")
    assert answer == Redirect(7, web.url(A, "/moved"), 301, web.url(A, "/new/place.html"),
                              elapsed=answer.elapsed)
    assert "/new/place.html" not in web.log.paths()
    assert get(fetcher, web, "/moved-away").location == "http://elsewhere.test/x"


@pytest.mark.parametrize(("path", "target"), [("/moved-utf8", "/caf%C3%A9?q=%E3%83%84"),
                                              ("/moved-latin1", "/caf%E9%20x")])
def test_redirect_to_non_ascii_bytes(fetcher: Fetcher, web: LoopbackWeb, path: str,
                                     target: str) -> None:
    answer = get(fetcher, web, path)
    assert isinstance(answer, Redirect), answer
    assert answer.location == web.url(A, target)


@pytest.mark.parametrize("path", ["/moved-nowhere", "/moved-mailto"])
def test_bad_redirects(fetcher: Fetcher, web: LoopbackWeb, path: str) -> None:
    answer = get(fetcher, web, path)
    assert isinstance(answer, Failure) and answer.reason == Reason.BAD_REDIRECT


@pytest.mark.parametrize("path, status", [("/missing", 404), ("/broken", 500)])
def test_http_errors(fetcher: Fetcher, web: LoopbackWeb, path: str, status: int) -> None:
    answer = get(fetcher, web, path)
    assert isinstance(answer, Failure)
    assert (answer.reason, answer.status) == (Reason.HTTP_ERROR, status)


def test_announced_length_over_the_cap(fetcher: Fetcher, web: LoopbackWeb) -> None:
    answer = get(fetcher, web, "/large")
    assert isinstance(answer, Failure) and answer.reason == Reason.TOO_LARGE


def test_endless_body_is_cut_at_the_cap(fetcher: Fetcher, web: LoopbackWeb) -> None:
    answer = get(fetcher, web, "/endless")
    assert isinstance(answer, Failure) and answer.reason == Reason.TOO_LARGE
    hit = _wait_for_hit(web, "/endless")
    assert hit.status == -1  # the server saw the client go away
    # The client read ~200 KB; loopback socket buffers can absorb a few MB more before the
    # server's write fails, but the endless page did end, soon.
    assert next(pulled) < 1000
    assert answer.elapsed < 0.5


@pytest.mark.wallclock
def test_read_timeout(web: LoopbackWeb) -> None:
    with Fetcher(FAST) as fetcher:
        answer = get(fetcher, web, "/slow-start")
    assert isinstance(answer, Failure) and answer.reason == Reason.TIMEOUT
    assert answer.elapsed < 1.2


@pytest.mark.wallclock
def test_total_deadline_cuts_a_trickle() -> None:
    config = AgentConfig(connect_timeout=0.5, read_timeout=0.5, total_timeout=0.4)
    with LoopbackWeb([Site("127.0.2.3", ROUTES)]) as web, Fetcher(config) as fetcher:
        started = time.monotonic()
        answer = fetcher.retrieve(Retrieve(1, web.url("127.0.2.3", "/trickle")))
        assert isinstance(answer, Failure) and answer.reason == Reason.TIMEOUT
        assert time.monotonic() - started < 1.0


def test_connection_refused(fetcher: Fetcher) -> None:
    url = f"http://127.0.2.9:{closed_port('127.0.2.9')}/"
    answer = fetcher.retrieve(Retrieve(3, url))
    assert isinstance(answer, Failure) and answer.reason == Reason.REFUSED and answer.job_id == 3


def test_robots_meta_and_header(fetcher: Fetcher, web: LoopbackWeb) -> None:
    meta = get(fetcher, web, "/meta")
    assert meta.noindex and meta.links == ()
    header = get(fetcher, web, "/header-robots")
    assert header.noindex and len(header.links) == 1


def test_validators(fetcher: Fetcher, web: LoopbackWeb) -> None:
    doc = get(fetcher, web, "/validators")
    assert (doc.last_modified, doc.etag) == ("Tue, 01 Nov 1994 00:00:00 GMT", '"abc"')


def test_x_robots_tag_parsing() -> None:
    assert x_robots_tag("noindex", "WebCrawler") == (True, False)
    assert x_robots_tag("otherbot: none", "WebCrawler") == (False, False)
    assert x_robots_tag("otherbot: noindex, webcrawler: nofollow", "WebCrawler") == (False, True)
    assert x_robots_tag("unavailable_after: 1 Jan 2000, none", "WebCrawler") == (True, True)


# robots.txt


def test_robots_after_five_redirects(fetcher: Fetcher, web: LoopbackWeb) -> None:
    answer = get(fetcher, web, "/hop/5", "robots")
    assert isinstance(answer, RobotsFile)
    assert (answer.status, answer.body) == (200, "User-agent: *\nDisallow: /private\n")


def test_robots_six_redirects_is_too_many(fetcher: Fetcher, web: LoopbackWeb) -> None:
    answer = get(fetcher, web, "/hop/6", "robots")
    assert (answer.status, answer.reason) == (None, Reason.TOO_MANY_REDIRECTS)


def test_robots_redirect_loop(fetcher: Fetcher, web: LoopbackWeb) -> None:
    answer = get(fetcher, web, "/loop", "robots")
    assert (answer.status, answer.reason) == (None, Reason.TOO_MANY_REDIRECTS)
    web.log.settle()
    assert web.log.paths().count("/loop") == 6


def test_robots_redirect_to_another_host(fetcher: Fetcher, web: LoopbackWeb) -> None:
    answer = get(fetcher, web, "/robots-other-host", "robots")
    assert (answer.status, answer.body) == (200, "User-agent: *\nDisallow:\n")


def test_robots_cap_and_bom(fetcher: Fetcher, web: LoopbackWeb) -> None:
    answer = get(fetcher, web, "/big-robots", "robots")
    assert answer.status == 200
    assert len(answer.body) == 500 * KIB - 3 and set(answer.body) == {"#"}


def test_robots_redirect_to_utf8_location(fetcher: Fetcher, web: LoopbackWeb) -> None:
    answer = get(fetcher, web, "/robots-moved-utf8", "robots")
    assert (answer.status, answer.body) == (200, "User-agent: *\nDisallow: /summer\n")


def test_robots_bom_cut_short_is_dropped(fetcher: Fetcher, web: LoopbackWeb) -> None:
    answer = get(fetcher, web, "/robots-cut-bom", "robots")
    assert (answer.status, answer.body) == (200, "User-agent: *\nDisallow: /x\n")


@pytest.mark.parametrize("path, status", [("/robots-404", 404), ("/robots-500", 500)])
def test_robots_error_statuses(fetcher: Fetcher, web: LoopbackWeb, path: str, status: int) -> None:
    answer = get(fetcher, web, path, "robots")
    assert (answer.status, answer.body, answer.reason) == (status, "", "")


def test_robots_gzip(fetcher: Fetcher, web: LoopbackWeb) -> None:
    assert get(fetcher, web, "/robots-gz", "robots").body == "User-agent: *\nAllow: /\n"


def test_robots_unreachable(fetcher: Fetcher) -> None:
    url = f"http://127.0.2.9:{closed_port('127.0.2.9')}/robots.txt"
    answer = fetcher.retrieve(Retrieve(4, url, "robots"))
    assert isinstance(answer, RobotsFile)
    assert (answer.status, answer.reason) == (None, Reason.REFUSED)


def _wait_for_hit(web: LoopbackWeb, path: str, timeout: float = 3.0):
    """The access-log entry for `path`, which appears when the server's handler finishes."""
    hits = wait_until(lambda: [h for h in web.log.snapshot() if h.path == path], timeout,
                      f"a request for {path} finishing", interval=0.02)
    return hits[-1]
