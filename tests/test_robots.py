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


@pytest.mark.parametrize(
    ("text", "token", "url", "expected"), RFC_EXAMPLES.values(), ids=list(RFC_EXAMPLES)
)
def test_protego_agrees_on_rfc_examples(text: str, token: str, url: str, expected: bool) -> None:
    # An independent check of the table above.
    assert Protego.parse(text).can_fetch(url, token) is expected


# Grouping and user-agent matching.

SAME_AGENT_TWICE = (
    "User-agent: webcrawler\nDisallow: /a\n\n"
    "User-agent: *\nDisallow: /c\n\n"
    "User-agent: WEBCRAWLER\nDisallow: /b\n"
)


@pytest.mark.parametrize(("url", "expected"), [("/a", False), ("/b", False), ("/c", True)])
def test_groups_naming_the_agent_are_combined(url: str, expected: bool) -> None:
    assert allowed(SAME_AGENT_TWICE, url) is expected


def test_star_groups_are_combined() -> None:
    text = "User-agent: *\nDisallow: /a\n\nUser-agent: x\nDisallow: /b\n\nUser-agent: *\nDisallow: /c\n"
    assert [allowed(text, p) for p in ("/a", "/b", "/c")] == [False, True, False]


@pytest.mark.parametrize(
    "separator", ["\n", "\n\n", "\n# a comment\n", "\n  \t\n#\n\n", "\nSitemap: http://h/s.xml\n"]
)
def test_agent_lines_separated_by_blank_lines_or_comments_form_one_group(separator: str) -> None:
    text = f"User-agent: other{separator}User-agent: WebCrawler\nDisallow: /x\n"
    assert allowed(text, "/x") is False
    assert allowed(text, "/x", "other") is False


def test_rule_ends_the_agent_list() -> None:
    text = "User-agent: WebCrawler\nDisallow: /a\nUser-agent: other\nDisallow: /b\n"
    assert allowed(text, "/a") is False
    assert allowed(text, "/b") is True


def test_empty_disallow_ends_the_agent_list_and_allows_all() -> None:
    text = "User-agent: WebCrawler\nDisallow:\nUser-agent: other\nDisallow: /\n"
    assert allowed(text, "/x") is True
    assert allowed(text, "/x", "other") is False


@pytest.mark.parametrize(
    ("agent_line", "expected"),
    [
        ("WebCrawler", False),
        ("webcrawler", False),
        ("WEBCRAWLER", False),
        ("WebCrawler/2.0", False),
        ("WebCrawler (+http://x)", False),
        ("WebCrawlerPro", True),
        ("Web", True),
        ("Web-Crawler", True),
        ("*WebCrawler", True),
        ("", True),
    ],
)
def test_agent_matching(agent_line: str, expected: bool) -> None:
    assert allowed(f"User-agent: {agent_line}\nDisallow: /\n", "/x") is expected


def test_own_group_beats_star_even_when_empty() -> None:
    text = "User-agent: *\nDisallow: /\n\nUser-agent: WebCrawler\n"
    assert allowed(text, "/x") is True


def test_group_naming_star_and_us_is_ours() -> None:
    text = "User-agent: *\nUser-agent: WebCrawler\nDisallow: /a\n\nUser-agent: *\nDisallow: /b\n"
    assert allowed(text, "/a") is False
    assert allowed(text, "/b") is True


@pytest.mark.parametrize(
    "text", ["", "# nothing\n", "Disallow: /\n", "User-agent: other\nDisallow: /\n"]
)
def test_no_applicable_group_allows_all(text: str) -> None:
    assert allowed(text, "/x") is True


# Lines.


@pytest.mark.parametrize("eol", ["\n", "\r\n", "\r"])
def test_line_endings(eol: str) -> None:
    text = eol.join(["User-agent: *", "Disallow: /x", "Allow: /x/y", ""])
    assert allowed(text, "/x/z") is False
    assert allowed(text, "/x/y") is True


def test_mixed_line_endings() -> None:
    assert allowed("User-agent: *\rDisallow: /a\r\nDisallow: /b\nDisallow: /c", "/c") is False


@pytest.mark.parametrize(
    "line",
    ["DISALLOW: /x", "disallow: /x", "DisAllow : /x", "  \tDisallow:/x", "Disallow:\t/x\t# c"],
)
def test_directive_names_are_case_insensitive_and_whitespace_is_free(line: str) -> None:
    assert allowed(f"USER-AGENT : *\n{line}\n", "/x") is False


def test_non_utf8_bytes_decoded_with_replace() -> None:
    body = b"User-agent: *\nDisallow: /caf\xe9\nDisallow: /\xff\xfe/x\n".decode("utf-8", "replace")
    assert allowed(body, "/caf%EF%BF%BD") is False
    assert allowed(body, "/cafe") is True
    assert allowed(body, "/caf%E9") is True


def test_byte_order_mark_then_crlf() -> None:
    assert allowed("\ufeffUser-agent: *\r\nDisallow: /x\r\n", "/x") is False


# Matching.


@pytest.mark.parametrize(
    ("rule", "url", "expected"),
    [
        ("Disallow: /", "/", False),
        ("Disallow: /*", "/anything", False),
        ("Disallow: *", "/anything", False),
        ("Disallow: /*.php$", "/a/b.php", False),
        ("Disallow: /*.php$", "/a/b.php?x", True),
        ("Disallow: /*.php", "/a/b.php?x", False),
        ("Disallow: /a*b*c", "/a-c-b-c", False),
        ("Disallow: /a*b*c", "/a-c-b", True),
        ("Disallow: /a**b", "/axb", False),
        ("Disallow: /a*b$", "/abab", False),
        ("Disallow: /a*b$", "/abac", True),
        ("Disallow: /ab*b$", "/ab", True),
        ("Disallow: /x$", "/x?", True),
        ("Disallow: /*?", "/a?b", False),
        ("Disallow: /*?", "/a", True),
        ("Disallow: /*?$", "/a?", False),
        ("Disallow: /a$b", "/a$b", False),
        ("Disallow: /a$b", "/ab", True),
        ("Disallow: $", "/", True),
        ("Disallow: private", "/private", True),
        ("Disallow: /a b", "/a%20b", False),
        ("Disallow: /a%", "/a%25", False),
        ("Disallow: /%41", "/A", False),
        ("Disallow: /a%2a", "/a*", False),
        ("Disallow: /a*", "/a%2A", False),
    ],
)
def test_matching(rule: str, url: str, expected: bool) -> None:
    assert allowed(star(rule), url) is expected


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://example.com/private/a", False),
        ("https://example.com:8443/private?x#frag", False),
        ("http://example.com", True),
        ("http://example.com?private", False),  # path "/?private"
        ("http://example.com/?q", False),
        ("/private#x", False),
        ("//private", True),
        ("private", False),
        ("http://example.com/robots.txt", True),
        ("/robots.txt?x", False),
    ],
)
def test_url_forms(url: str, expected: bool) -> None:
    assert allowed(star("Disallow: /private", "Disallow: /?", "Disallow: /r"), url) is expected


def test_pathological_wildcards_stay_fast() -> None:
    rules = RobotsRules.from_response(200, star("Disallow: /" + "*a" * 40 + "*b$"), "x")
    started = time.perf_counter()
    assert rules.allowed("/" + "a" * 20_000) is True
    assert time.perf_counter() - started < 1.0
