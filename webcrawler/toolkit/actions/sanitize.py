"""Parse a retrieved page's HTML and make it safe to keep: no scripts, absolute links.

Pages saved to disk or concatenated into one document are opened later in a
browser, from a file, where a script would run with the user's rights: so
everything that can execute or fetch by itself goes (script, iframe, object,
embed, event-handler attributes, ``javascript:`` URLs, meta refresh, base).
The charset a page declared no longer holds once the text is ours (we write
UTF-8), so its declarations go too.

Hostile input: HTML is cut at `MAX_PAGE_CHARS`; lone surrogates from odd
decodings are replaced; a page lxml cannot parse becomes an empty body. This
module reads strings and returns trees: no I/O.
"""

from __future__ import annotations

from urllib.parse import urljoin, urlsplit

import lxml.html
from lxml import etree

from webcrawler.toolkit.actions.base import MAX_PAGE_CHARS

DROP_TAGS = ("script", "noscript", "iframe", "frame", "frameset", "object", "embed", "applet",
             "base", "template", "portal")
URL_ATTRIBUTES = ("href", "src", "action", "formaction", "poster", "background", "cite",
                  "longdesc", "data")
SAFE_SCHEMES = ("http", "https", "mailto", "")
_PARSER = lxml.html.HTMLParser(encoding="utf-8", remove_comments=True, remove_pis=True)


def parse(html: str) -> lxml.html.HtmlElement:
    """The page's tree (an empty document for empty or unparsable input)."""
    data = html[:MAX_PAGE_CHARS].encode("utf-8", errors="replace")
    try:
        return lxml.html.document_fromstring(data, parser=_PARSER)
    except (etree.ParserError, ValueError):
        return lxml.html.document_fromstring(b"<html><body></body></html>", parser=_PARSER)


def clean(root: lxml.html.HtmlElement, base_url: str) -> lxml.html.HtmlElement:
    """Remove what runs or fetches by itself; make every link absolute (against `base_url`)."""
    etree.strip_elements(root, *DROP_TAGS, with_tail=False)
    for meta in root.iter("meta"):
        if meta.get("charset") is not None or meta.get("http-equiv", "").lower() in (
                "content-type", "refresh", "set-cookie", "content-security-policy"):
            meta.drop_tree()
    for style in list(root.iter("style")):
        if any(word in (style.text or "").lower() for word in ("javascript:", "expression(")):
            style.drop_tree()  # old browsers ran both from CSS
    for element in root.iter(etree.Element):
        _clean_attributes(element, base_url)
    return root


def _clean_attributes(element: etree._Element, base_url: str) -> None:
    for name in list(element.attrib):
        lower = name.lower()
        if lower.startswith("on") or lower in ("srcdoc", "srcset", "ping", "formaction"):
            del element.attrib[name]
        elif lower.rpartition(":")[2] in URL_ATTRIBUTES:  # xlink:href too
            url = absolute(base_url, element.attrib[name])
            if url is None:
                del element.attrib[name]
            else:
                element.attrib[name] = url
        elif lower == "style" and "url(" in element.attrib[name].lower():
            del element.attrib[name]  # a style attribute must not fetch


def absolute(base_url: str, value: str) -> str | None:
    """`value` resolved against `base_url`, or None for a scheme that could run or leak."""
    value = value.strip()
    if value.startswith("#"):
        return value
    try:
        url = urljoin(base_url, value)
        scheme = urlsplit(url).scheme.lower()
    except ValueError:
        return None
    return url if scheme in SAFE_SCHEMES else None


def body_children(root: lxml.html.HtmlElement) -> list[etree._Element]:
    """The elements inside <body> (the whole tree's children when there is no body)."""
    body = root.find("body")
    return list(body if body is not None else root)


def to_html(element: etree._Element) -> str:
    """Serialise an element as HTML text (tail included)."""
    return lxml.html.tostring(element, encoding="unicode", method="html")


def defrag(url: str) -> tuple[str, str]:
    """(URL without its fragment, the fragment)."""
    base, _, fragment = url.partition("#")
    return base, fragment
