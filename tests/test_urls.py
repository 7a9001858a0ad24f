"""URL normalisation: one spelling per resource, and the server/document split."""

import random

import pytest

from webcrawler.protocol.urls import (
    MAX_URL_LENGTH,
    InvalidURL,
    _normalized,
    is_normal,
    join,
    normalize,
    split,
    try_normalize,
)


@pytest.mark.parametrize(("raw", "expected"), [
    ("HTTP://Example.COM/", "http://example.com/"),
    ("http://example.com", "http://example.com/"),
    ("http://example.com:80/a", "http://example.com/a"),
    ("https://example.com:443/a", "https://example.com/a"),
    ("http://example.com:8080/a", "http://example.com:8080/a"),
    ("http://example.com/a#section", "http://example.com/a"),
    ("http://example.com/a/./b/../c", "http://example.com/a/c"),
    ("http://example.com/a/b/..", "http://example.com/a/"),
    ("http://example.com/../../x", "http://example.com/x"),
    ("http://example.com/%7euser/%41", "http://example.com/~user/A"),
    ("http://example.com/a%2fb", "http://example.com/a%2Fb"),
    ("http://example.com/a b", "http://example.com/a%20b"),
    ("http://example.com/caf\u00e9?q=\u00fc", "http://example.com/caf%C3%A9?q=%C3%BC"),
    ("http://example.com/p?", "http://example.com/p"),
    ("http://example.com./p", "http://example.com/p"),
    ("http://b\u00fccher.example/", "http://xn--bcher-kva.example/"),
    ("http://user:pw@example.com/", "http://example.com/"),
    ("http://[::1]:8080/x", "http://[::1]:8080/x"),
])
def test_normalize(raw, expected):
    assert normalize(raw) == expected


@pytest.mark.parametrize("raw", [
    "http://h/%2e%2e/%2e%2e/etc/passwd", "http://h/%2E%2E/%2E%2E/etc/passwd", "http://h/.%2e/etc/passwd",
    "http://h/a/%2e%2E/../etc/./passwd", "http://h/a/%2e/../../etc/%2e/passwd", "http://h/%2e/etc/passwd",
])
def test_dot_segments_go_after_their_escapes_are_decoded(raw):
    assert normalize(raw) == "http://h/etc/passwd"
    assert normalize("%2e%2e/%2e%2e/etc/passwd", "http://h/a/b/c/d") == "http://h/a/etc/passwd"


def test_relative_links_resolve_against_the_base():
    assert normalize("../c?x=1#f", "http://h/a/b/page.html") == "http://h/a/c?x=1"
    assert normalize("//other:81/p", "https://h/") == "https://other:81/p"


@pytest.mark.parametrize("raw", [
    "ftp://example.com/", "mailto:a@b.c", "javascript:alert(1)", "http://", "http://exa mple.com/",
    "http://example.com:99999/", "http://example.com:port/",
])
def test_only_crawlable_http_urls(raw):
    assert try_normalize(raw) is None
    with pytest.raises(InvalidURL):
        normalize(raw)


def test_maximum_length():
    assert try_normalize("http://h/" + "a" * 100, max_length=50) is None


def test_split_and_join_round_trip():
    for url in ["http://h/", "http://h:81/p?q=1", "https://[::1]:8443/x/y"]:
        server, document = split(url)
        assert join(server, document) == url
    assert split("http://h:81/p?q") == ("http://h:81", "/p?q")


# IP literals: every spelling of one address becomes its one canonical form (WHATWG IPv4 parser).
@pytest.mark.parametrize(("raw", "expected"), [
    ("http://2130706433:8080/", "http://127.0.0.1:8080/"),  # decimal
    ("http://0177.0.0.1/", "http://127.0.0.1/"),  # octal
    ("http://0x7f.1/", "http://127.0.0.1/"),  # hex, short
    ("http://0x7f000001/", "http://127.0.0.1/"),
    ("http://0X7F.0.0.1/", "http://127.0.0.1/"),
    ("http://127.1/", "http://127.0.0.1/"),  # short dotted
    ("http://127.0.1/", "http://127.0.0.1/"),
    ("http://127.0.0.1./", "http://127.0.0.1/"),  # trailing dot
    ("http://127.000.000.001/", "http://127.0.0.1/"),  # leading zeros are octal
    ("http://010.0.0.1/", "http://8.0.0.1/"),
    ("http://0x/", "http://0.0.0.0/"),
    ("http://0/", "http://0.0.0.0/"),
    ("http://4294967295/", "http://255.255.255.255/"),
    ("http://0xc0.0250.0x1.0/", "http://192.168.1.0/"),
    ("http://[::ffff:127.0.0.1]:81/", "http://127.0.0.1:81/"),  # IPv4-mapped IPv6
    ("http://[::ffff:7f00:1]/", "http://127.0.0.1/"),
    ("http://[0:0:0:0:0:ffff:7f00:1]/", "http://127.0.0.1/"),
    ("http://[0:0:0:0:0:0:0:1]/", "http://[::1]/"),  # IPv6 compressed
    ("http://[2001:DB8:0:0::1]/x", "http://[2001:db8::1]/x"),
    ("http://\uff11\uff12\uff17.\uff10.\uff10.\uff11/", "http://127.0.0.1/"),  # full-width digits
    ("http://127\u30020\u30020\u30021/", "http://127.0.0.1/"),  # ideographic full stops
    ("http://public@2130706433/", "http://127.0.0.1/"),  # userinfo is dropped, not the host
    ("http://0x7f.example/", "http://0x7f.example/"),  # a name, not a literal
    ("http://1.2.3.example/", "http://1.2.3.example/"),
    ("http://0x7fg.1.example/", "http://0x7fg.1.example/"),
])
def test_ip_literals_have_one_spelling(raw, expected):
    assert normalize(raw) == expected


@pytest.mark.parametrize("raw", [
    "http://1.2.3.4.5/",  # five parts: WHATWG refuses the host
    "http://256.0.0.1/", "http://1.256.1/", "http://4294967296/", "http://1.2.0x1000000/",
    "http://09.1.1.1/", "http://example.0x10/", "http://[::ffff:1.2.3]/",
    "http://[fe80::1%25eth0]/",
])
def test_bad_ip_literals_are_refused(raw):
    assert try_normalize(raw) is None


NORMAL_HOSTS = ["h.test", "H.test", "h.test.", "a.1", "0x7f.1", "h-.x-y.test", "localhost", "x_y.test",
                "127.0.1.2", "10.0.0.255", "1.2.3.256", "01.2.3.4", "1.2.3", "[::1]", "xn--bcher-kva.test",
                "h.test:8080", "h.test:80", "h.test:443", "h.test:08080", "h.test:65535",
                "h.test:65536", "h.test:0", "h.test:", "u@h.test", "h..test", "bücher.test"]
NORMAL_PIECES = ["/", "a", "b.html", ".", "..", "/.", "/..", "?", "q=1", "&", "#", "#f", ";", ";x=1",
                 "%41", "%2f", "é", " ", "\t", ":", "@", "//", "~", "!", "'", "\\", "=", "|", "^"]


def _slow(url: str, max_length: int) -> str | None:
    """What `normalize` gives without its fast exit for URLs that are already normal."""
    try:
        return _normalized(url, None, max_length)
    except InvalidURL:
        return None


def test_is_normal_only_says_so_of_urls_that_normalize_to_themselves() -> None:
    rng = random.Random(36)
    said = 0
    for _ in range(6000):
        tail = "/" * rng.randint(0, 1) + "".join(rng.choice(NORMAL_PIECES)
                                                 for _ in range(rng.randint(0, 4)))
        url = f"{rng.choice(['http', 'https', 'HTTP', 'ftp'])}://{rng.choice(NORMAL_HOSTS)}{tail}"
        for max_length in (MAX_URL_LENGTH, 24):
            slow = _slow(url, max_length)
            if is_normal(url, max_length):
                said += 1
                assert slow == url, (url, max_length)
            assert try_normalize(url, None, max_length) == slow, (url, max_length)
    assert said > 400  # the common case is told apart, not just the safe answer given


def test_is_normal_knows_the_common_urls() -> None:
    for url in ("https://github.com/python/cpython/issues/1", "http://127.0.1.2:8080/docs/x.html",
                "http://h.test/a.b/.c?x=1&y=/z?", "https://h.test/a;b=1"):
        assert is_normal(url) and _normalized(url, None, MAX_URL_LENGTH) == url
    for url in ("http://h.test", "http://h.test/a/./b", "http://h.test:80/", "http://h.test/x#f",
                "http://a.1/", "http://h.test/?", "http://h.test/%7E"):
        assert not is_normal(url)
