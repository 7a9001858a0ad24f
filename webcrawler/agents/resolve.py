"""Resolve a link's href against its page's URL, to the exact string `urls.normalize` gives.

A page has a hundred links or more and `urls.normalize` costs tens of
microseconds each (urljoin, two urlsplits, an escape loop): that was most of
the time spent parsing a page. Most hrefs are plain relative paths, so they
take a fast path (string surgery plus `urls.remove_dot_segments`); anything
unusual (a scheme, "//", "%", non-ASCII, white space, "\\") goes to
`normalize` itself, through a per-process cache since absolute links such as
a site's menu repeat on every page. tests/agents/test_resolve.py checks that
both paths agree on thousands of generated hrefs.

A page's links are resolved by one `PageResolver`: its base is parsed once a page, and a plain
relative href, whose URL depends only on the base's directory, is looked up under that
directory first: the pages of a directory share their menus and sidebars.

Pure functions (and bounded caches): no I/O.
"""

from __future__ import annotations

import re
from functools import lru_cache

from webcrawler.protocol.urls import MAX_URL_LENGTH, is_normal, remove_dot_segments, try_normalize

# Characters that `normalize` leaves as they are in a path or query, minus ":" (a
# colon before the first slash would make the href a scheme) and "%" (escapes).
_PLAIN = re.compile(r"[A-Za-z0-9\-._~!$&'()*+,=@/?]+")
_BASE = re.compile(r"(https?://[^/?#]+)(/[^?#]*)(\?[^#]*)?")
# An href with an http(s) scheme and a host resolves against any base of that scheme alike
# (urljoin keeps only the base's scheme): cached under a stand-in base, a site's links to other
# sites, the same on every page, are normalised once instead of once a page.
_ABSOLUTE = re.compile(r"https?://[A-Za-z0-9\[]")
_STAND_INS = (("https:", "https://a.test/"), ("http:", "http://a.test/"))


def resolve(href: str, base: str, max_length: int = MAX_URL_LENGTH) -> str | None:
    """Exactly `urls.try_normalize(href, base, max_length)`, only faster.

    `base` must already be normalised (the page's final URL or its <base href>).
    """
    href = href.strip()
    fast = _fast_path(href.partition("#")[0], base)
    if fast is None:
        return _normalize_cached(href, _stand_in(href, base), max_length)
    return fast if len(fast) <= max_length else None


def _fast_path(href: str, base: str) -> str | None:
    """The resolved URL of a plain relative href, or None when `normalize` must decide."""
    base_match = _BASE.fullmatch(base)
    if base_match is None or not _PLAIN.fullmatch(href) or "//" in href:
        return None
    origin, base_path, base_query = base_match.groups()
    if "//" in base_path:
        return None
    path, question, query = href.partition("?")
    if not path:
        if not query:
            return None  # urljoin keeps the base's query for a bare "?"
        path = base_path
    elif not path.startswith("/"):
        path = base_path[: base_path.rfind("/") + 1] + path
    if path.endswith(("/.", "/..")) or path in (".", ".."):
        return None
    return origin + remove_dot_segments(path) + (question + query if query else "")


def _stand_in(href: str, base: str) -> str:
    """The base to resolve `href` against: a stand-in of the base's scheme for an absolute
    http(s) href with a host, else the base itself."""
    if _ABSOLUTE.match(href):
        for scheme, stand_in in _STAND_INS:
            if base.startswith(scheme):
                return stand_in
    return base


class PageResolver:
    """`resolve` for the links of one page: `resolver(href)` is `resolve(href, base, max_length)`."""

    __slots__ = ("base", "directory", "max_length")

    def __init__(self, base: str, max_length: int = MAX_URL_LENGTH) -> None:
        self.base, self.max_length = base, max_length
        match = _BASE.fullmatch(base)
        # The origin and path up to the last "/": what a plain relative href's URL depends on.
        self.directory = None if match is None or "//" in match.group(2) else (
            match.group(1) + match.group(2)[: match.group(2).rfind("/") + 1])

    def __call__(self, href: str) -> str | None:
        href = href.strip()
        target = href.partition("#")[0]
        if self.directory is None or not target or target[0] == "?":  # these need the whole base
            return resolve(href, self.base, self.max_length)
        key = (target, self.directory)
        fast = _IN_DIRECTORY.get(key, "")  # "": not looked at yet (no URL is empty)
        if fast == "":
            fast = _fast_path(target, self.base)
            if len(_IN_DIRECTORY) >= _MAX_IN_DIRECTORY:
                _IN_DIRECTORY.clear()
            _IN_DIRECTORY[key] = fast
        if fast is None:
            return _normalize_cached(href, _stand_in(href, self.base), self.max_length)
        return fast if len(fast) <= self.max_length else None


# (href without its fragment, directory) -> `_fast_path`'s URL, or None when `normalize` decides
_IN_DIRECTORY: dict[tuple[str, str], str | None] = {}
_MAX_IN_DIRECTORY = 16384


@lru_cache(maxsize=4096)
def _normalize_cached(href: str, base: str, max_length: int) -> str | None:
    """`try_normalize(href, base, max_length)`; an absolute href that is already normal once
    its fragment is dropped (`urls.is_normal`: a site's links to others mostly are) is its own
    URL. Not one with a ";": urljoin drops a trailing one when the href's scheme is the base's."""
    target = href.partition("#")[0]
    if ";" not in target and is_normal(target, max_length):
        return target
    return try_normalize(href, base, max_length)
