"""The toolkit's view of a page's markup: its tags with their offsets, and its links.

SPHINX gave crawlers the page's HTML parse tree, its links with the element
each came from, and positions in the page for regions. Tag expressions need
the sequence of tags with where each one is in `Page.html`, so this is a small
regular-expression scanner rather than a tree builder: it never raises, skips
comments and the contents of <script> / <style>, and on malformed markup (an
unclosed quote, a stray "<", a tag cut off at the end) keeps what it can read.

It does no I/O: the agents fetched the page; this only reads the text they sent.
"""

from __future__ import annotations

import html as entities
import re
from dataclasses import dataclass, field

from webcrawler.protocol.urls import try_normalize

_TOKEN = re.compile(
    r"""<!--.*?(?:-->|\Z)"""  # a comment (an unclosed one runs to the end)
    r"""|<[!?][^>]*>?"""  # doctype, processing instruction
    r"""|<(/?)([a-zA-Z][^\s/>]*)((?:[^>"']|"[^"]*"|'[^']*')*)>""",  # a tag
    re.S,
)
_ATTRIBUTE = re.compile(r"""([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?""")
_RAW_TEXT = ("script", "style")
_SPACE = re.compile(r"\s+")
LINK_ATTRIBUTES = {"a": "href", "area": "href", "img": "src", "frame": "src",
                   "iframe": "src", "form": "action"}


@dataclass(frozen=True, slots=True)
class Tag:
    """One tag: `html[start:end]` is its markup; `closing` for </name>."""

    name: str
    start: int
    end: int
    closing: bool = False
    attributes: dict[str, str] = field(default_factory=dict)


def tags(html: str) -> list[Tag]:
    """The tags of `html` in order, names and attribute names lower-cased; never raises."""
    found: list[Tag] = []
    position = 0
    while True:
        match = _TOKEN.search(html, position)
        if match is None:
            return found
        position = match.end()
        name = match.group(2)
        if name is None:
            continue
        name = name.lower()
        closing = bool(match.group(1))
        found.append(Tag(name, match.start(), match.end(), closing,
                         {} if closing else attributes(match.group(3))))
        if name in _RAW_TEXT and not closing:
            end = re.compile(rf"</{name}\s*>", re.I).search(html, position)
            position = end.start() if end else len(html)


def attributes(text: str) -> dict[str, str]:
    """`href="x" class=y checked` -> {"href": "x", "class": "y", "checked": ""} (first wins)."""
    found: dict[str, str] = {}
    for match in _ATTRIBUTE.finditer(text):
        name = match.group(1).lower()
        value = next((g for g in match.group(2, 3, 4) if g is not None), "")
        found.setdefault(name, entities.unescape(value))
    return found


def text_between(html: str, start: int, end: int) -> str:
    """The visible words of `html[start:end]`, tags dropped, entities decoded, spaces collapsed."""
    chunk = _TOKEN.sub(" ", html[start:end])
    return _SPACE.sub(" ", entities.unescape(chunk)).strip()


@dataclass(frozen=True, slots=True)
class MarkupLink:
    """A link in the markup: its absolute URL, anchor text, element, and where it starts."""

    url: str
    anchor: str
    element: str
    start: int
    nofollow: bool = False


def links(html: str, page_url: str, found: list[Tag] | None = None) -> list[MarkupLink]:
    """Every link of the page in order: <a>/<area> href, <img>/<frame>/<iframe> src, <form>
    action; relative to <base href> when the page has one. URLs that are not crawlable
    (mailto:, javascript:, ...) are left out; a page whose robots meta says nofollow, or a
    rel=nofollow link, yields links marked `nofollow`."""
    found = tags(html) if found is None else found
    base, page_nofollow = _head(found, page_url)
    out: list[MarkupLink] = []
    for i, tag in enumerate(found):
        key = LINK_ATTRIBUTES.get(tag.name)
        if tag.closing or key is None or not tag.attributes.get(key, "").strip():
            continue
        url = try_normalize(tag.attributes[key].strip(), base)
        if url is None:
            continue
        nofollow = page_nofollow or "nofollow" in tag.attributes.get("rel", "").lower().split()
        out.append(MarkupLink(url, _anchor(html, found, i), tag.name, tag.start, nofollow))
    return out


def _head(found: list[Tag], page_url: str) -> tuple[str, bool]:
    """(the base URL for relative links, whether a robots meta says nofollow)."""
    base, nofollow = page_url, False
    for tag in found:
        if tag.name == "base" and tag.attributes.get("href") and base == page_url:
            base = try_normalize(tag.attributes["href"].strip(), page_url) or page_url
        elif tag.name == "meta" and tag.attributes.get("name", "").lower() in ("robots",):
            content = tag.attributes.get("content", "").lower()
            nofollow = nofollow or "nofollow" in content or "none" in content
    return base, nofollow


def _anchor(html: str, found: list[Tag], index: int) -> str:
    """An <a>'s text up to its </a> (or the next <a>); an image's or area's alt text."""
    tag = found[index]
    if tag.name != "a":
        return tag.attributes.get("alt", "") or tag.attributes.get("title", "")
    end = len(html)
    for later in found[index + 1:]:
        if later.name == "a":
            end = later.start
            break
    return text_between(html, tag.end, end)[:300]
