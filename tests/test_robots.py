"""robots.txt rules: RFC 9309's own examples, every place protego departs from it, and the API."""

from __future__ import annotations

import pickle
import time
from pathlib import Path

import pytest
from protego import Protego

from webcrawler.robots import (
    MAX_BYTES,
    InvalidUserAgent,
    RobotsRules,
    check_file,
    format_check,
    product_token,
)

DATA = Path(__file__).parent / "data" / "robots"
RFC_5_1 = (DATA / "rfc9309_5_1.txt").read_text(encoding="utf-8")
RFC_5_2 = "User-Agent: foobot\nAllow: /example/page/\nDisallow: /example/page/disallowed.gif\n"


def allowed(text: str, url: str, token: str = "WebCrawler") -> bool:
    return RobotsRules.from_response(200, text, token).allowed(url)


def star(*rules: str) -> str:
    return "User-agent: *\n" + "".join(f"{rule}\n" for rule in rules)


# (robots.txt, product token, URL or path, RFC 9309 answer)
RFC_EXAMPLES = {
    # Section 5.1: groups, "*" fallback, empty group.
    "5.1 foobot allowed page": (RFC_5_1, "foobot", "/example/page.html", True),
    "5.1 foobot allowed gif": (RFC_5_1, "foobot", "/example/allowed.gif", True),
    "5.1 foobot disallowed rest": (RFC_5_1, "foobot", "/publications/x", False),
    "5.1 foobot case-insensitive": (RFC_5_1, "FooBot", "/example/other", False),
    "5.1 barbot": (RFC_5_1, "barbot", "/example/page.html", False),
    "5.1 bazbot": (RFC_5_1, "bazbot", "/example/page.html", False),
    "5.1 barbot ignores * group": (RFC_5_1, "barbot", "/example/x.gif", True),
    "5.1 quxbot empty group": (RFC_5_1, "quxbot", "/example/page.html", True),
    "5.1 other uses * gif$": (RFC_5_1, "otherbot", "/img/a.gif", False),
    "5.1 other gif$ anchored": (RFC_5_1, "otherbot", "/img/a.gif?x=1", True),
    "5.1 other /example/": (RFC_5_1, "otherbot", "/example/", False),
    "5.1 other allow longer": (RFC_5_1, "otherbot", "/publications/a.gif", True),
    "5.1 other unmatched": (RFC_5_1, "otherbot", "/", True),
    # Section 5.2: longest match.
    "5.2 allowed dir": (RFC_5_2, "foobot", "/example/page/", True),
    "5.2 allowed file": (RFC_5_2, "foobot", "/example/page/other.gif", True),
    "5.2 disallowed gif": (RFC_5_2, "foobot", "/example/page/disallowed.gif", False),
    # Section 2.2.2: matching, precedence, percent-encoding.
    "2.2.2 most octets": (star("Allow: /p", "Disallow: /"), "x", "/page", True),
    "2.2.2 tie allow wins": (star("Allow: /folder", "Disallow: /folder"), "x", "/folder/p", True),
    "2.2.2 tie allow wins reversed": (star("Disallow: /f", "Allow: /f"), "x", "/f", True),
    "2.2.2 wildcard longer": (star("Allow: /page", "Disallow: /*.html"), "x", "/page.html", False),
    "2.2.2 case sensitive": (star("Disallow: /X"), "x", "/x", True),
    "2.2.2 query": (star("Disallow: /foo/bar?baz=quz"), "x", "/foo/bar?baz=quz", False),
    "2.2.2 utf-8 rule": (star("Disallow: /foo/bar/ツ"), "x", "/foo/bar/%E3%83%84", False),
    "2.2.2 utf-8 url": (star("Disallow: /foo/bar/%E3%83%84"), "x", "/foo/bar/ツ", False),
    "2.2.2 lower hex": (star("Disallow: /foo/bar/%e3%83%84"), "x", "/foo/bar/%E3%83%84", False),
    "2.2.2 unreserved": (star("Disallow: /foo/bar/%62%61%7A"), "x", "/foo/bar/baz", False),
    "2.2.2 %3c": (star("Disallow: /a%3cd"), "x", "/a<d", False),
    "2.2.2 %7E rule": (star("Disallow: /%7Efoo"), "x", "/~foo", False),
    "2.2.2 %7E url": (star("Disallow: /~foo"), "x", "/%7efoo", False),
    "2.2.2 %2F is not /": (star("Disallow: /a%2Fb"), "x", "/a/b", True),
    "2.2.2 / is not %2F": (star("Disallow: /a/b"), "x", "/a%2Fb", True),
    "2.2.2 robots.txt allowed": (star("Disallow: /"), "x", "/robots.txt", True),
    "2.2.2 rule before agents": ("Disallow: /x\n" + star("Allow: /y"), "x", "/x", True),
    # Section 2.2.3: special characters.
    "2.2.3 comment": (star("Disallow: /c # not /c#x"), "x", "/c/d", False),
    "2.2.3 $ end": (star("Disallow: /this/path/exactly$"), "x", "/this/path/exactly", False),
    "2.2.3 $ not longer": (star("Disallow: /this/path/exactly$"), "x", "/this/path/exactlyx", True),
    "2.2.3 * any": (star("Disallow: /this/*/exactly"), "x", "/this/a/b/exactly", False),
    "2.2.3 * zero": (star("Disallow: /this/*/exactly"), "x", "/this//exactly", False),
    "2.2.3 literal *": (
        star("Disallow: /path/file-with-a-%2A.html"),
        "x",
        "/path/file-with-a-*.html",
        False,
    ),
    "2.2.3 literal * only": (star("Disallow: /p/a-%2A.html"), "x", "/p/a-b.html", True),
    "2.2.3 literal $": (star("Disallow: /path/foo-%24"), "x", "/path/foo-$", False),
}

# Cases where protego 0.7 answers differently from RFC 9309 (and from us).
PROTEGO_DEPARTURES = {
    "agent line is a prefix of our token": ("User-agent: Web\nDisallow: /\n", "/x", True),
    "agent line with a version": ("User-agent: WebCrawler/1.0\nDisallow: /\n", "/x", False),
    "agent line with a wildcard": ("User-agent: Web*\nDisallow: /\n", "/x", True),
    "crawl-delay between agent lines": (
        "User-agent: WebCrawler\nCrawl-delay: 1\nUser-agent: other\nDisallow: /x\n",
        "/x",
        False,
    ),
    "unknown record between agent lines": (
        "User-agent: WebCrawler\nFoo: bar\nUser-agent: other\nDisallow: /x\n",
        "/x",
        False,
    ),
    "line without a colon": (star("Disallow /x"), "/x", True),
    "misspelt directive": (star("Dissallow: /x"), "/x", True),
    "user agent without hyphen": ("User agent: *\nDisallow: /x\n", "/x", True),
    "index.html does not allow its folder": (
        star("Disallow: /d/", "Allow: /d/index.html"),
        "/d/",
        False,
    ),
    "$ only anchors": (star("Disallow: /a$"), "/a$b", True),
    "non-UTF-8 escapes differ": (star("Disallow: /%FF"), "/%FE", True),
    "escaped ? is not a query": (star("Disallow: /a%3Fb"), "/a?b", True),
    "U+2028 does not end a line": (star("Disallow: /a\u2028b"), "/abc", True),
    "NEL does not end a line": (star("Disallow: /a\x85b"), "/abc", True),
    "form feed does not end a line": (star("Disallow: /a\x0cb"), "/abc", True),
    "byte-order mark": ("\ufeffUser-agent: *\nDisallow: /x\n", "/x", False),
}


@pytest.mark.parametrize(
    ("text", "token", "url", "expected"), RFC_EXAMPLES.values(), ids=list(RFC_EXAMPLES)
)
def test_rfc9309_examples(text: str, token: str, url: str, expected: bool) -> None:
    assert allowed(text, url, token) is expected


@pytest.mark.parametrize(
    ("text", "url", "expected"), PROTEGO_DEPARTURES.values(), ids=list(PROTEGO_DEPARTURES)
)
def test_protego_departure_is_fixed(text: str, url: str, expected: bool) -> None:
    assert allowed(text, url) is expected


@pytest.mark.parametrize(
    ("text", "url", "expected"), PROTEGO_DEPARTURES.values(), ids=list(PROTEGO_DEPARTURES)
)
def test_protego_still_departs(text: str, url: str, expected: bool) -> None:
    # Evidence for the module docstring. If this fails after a protego upgrade,
    # protego now follows RFC 9309 here: update the docstring and this table.
    assert Protego.parse(text).can_fetch(url, "WebCrawler") is not expected
