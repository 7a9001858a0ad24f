"""The fast link resolver must give exactly what urls.try_normalize gives."""

from __future__ import annotations

import random

import pytest

from webcrawler.agents.resolve import PageResolver, resolve
from webcrawler.protocol.urls import try_normalize

PIECES = ["a", "b", ".", "..", "/", "?", "=", "x=1", "&", "#", "#f", "~", "%41", "%2f", "é",
          " ", ":", "//", "index.html", "-", "_", "+", ";", "@", "!", "\\", "http:", "\t"]
BASES = ["http://h.test/", "http://h.test/d/", "http://h.test/d/e/p.html", "http://h.test/d/p?q=1",
         "https://h.test:8443/a/b/c", "http://h.test/a//b/c", "http://[::1]:8080/x/y"]


@pytest.mark.parametrize("base", BASES)
def test_agrees_with_normalize_on_generated_hrefs(base: str) -> None:
    rng = random.Random(base)
    for _ in range(1500):
        href = "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 6)))
        assert resolve(href, base) == try_normalize(href, base), href


def test_common_cases() -> None:
    base = "http://h.test/docs/guide/intro.html?x=1"
    assert resolve("next.html", base) == "http://h.test/docs/guide/next.html"
    assert resolve("../api/", base) == "http://h.test/docs/api/"
    assert resolve("/", base) == "http://h.test/"
    assert resolve("?page=2", base) == "http://h.test/docs/guide/intro.html?page=2"
    assert resolve("x" * 3000, base) is None


def test_respects_max_length() -> None:
    assert resolve("abc", "http://h.test/", max_length=17) == "http://h.test/abc"
    assert resolve("abcd", "http://h.test/", max_length=17) is None


def test_an_absolute_href_resolves_against_any_base_as_normalize_does() -> None:
    # resolve.py normalises an absolute http(s) href once for all bases of its scheme (cached
    # under a stand-in base): each base must still get what try_normalize gives for it.
    rng = random.Random(36)
    hosts = ["h.test", "H.Test:80", "x.test:8080", "[::1]", "a.test:0", "7", "bücher.test",
             "127.0.1.2:8080", "10.0.0.1", "01.2.3.4", "h.test:443", "a.1", "h.test."]
    for _ in range(400):
        tail = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 5)))
        href = f"{rng.choice(['http', 'https'])}://{rng.choice(hosts)}{tail}"
        for base in (*BASES, "https://h.test/", "http://other.test/x?y#z"):
            assert resolve(href, base) == try_normalize(href, base), (href, base)


@pytest.mark.parametrize("base", BASES)
def test_a_page_resolver_agrees_with_normalize_on_generated_hrefs(base: str) -> None:
    """Its cache is keyed by the base's directory: pages of one directory (and the same page
    twice) must each get what normalize gives them."""
    rng = random.Random(base)
    hrefs = ["".join(rng.choice(PIECES) for _ in range(rng.randint(1, 6))) for _ in range(800)]
    siblings = [base, base.rpartition("/")[0] + "/other.html", base.rpartition("/")[0] + "/?q=2",
                base.rpartition("/")[0] + "/z?x=/y/z"]
    for page in (*siblings, base):
        resolver = PageResolver(page)
        for href in hrefs:
            assert resolver(href) == try_normalize(href, page), (href, page)
    short = PageResolver(base, max_length=20)
    for href in hrefs:
        assert short(href) == try_normalize(href, base, 20), href


def test_an_absolute_href_that_is_already_normal_is_its_own_url() -> None:
    """Unless urljoin changes it against a base of its scheme: a trailing ";" goes."""
    for base in ("http://h.test/d/p.html", "https://h.test/"):
        assert resolve("https://x.test/a/b?c=d#e", base) == "https://x.test/a/b?c=d"
        assert resolve("http://x.test/a;", base) == try_normalize("http://x.test/a;", base)
    assert resolve("http://x.test/a;", "http://h.test/") == "http://x.test/a"
    assert resolve("http://x.test/a;", "https://h.test/") == "http://x.test/a;"
