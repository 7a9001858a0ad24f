"""URL normalisation: one spelling per resource, and the server/document split."""

import pytest

from webcrawler.urls import InvalidURL, join, normalize, split, try_normalize


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
