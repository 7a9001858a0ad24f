"""URL normalisation: one spelling per resource, and the server/document split."""

import pytest

from webcrawler.protocol.urls import InvalidURL, join, normalize, split, try_normalize


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
