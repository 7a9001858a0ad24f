"""From an agent's answer to the toolkit's Page: title, text, markup and links with elements.

The agent parsed the page (title, visible text, followable hyperlinks, the
robots directives) and sent its decoded markup; here the markup is scanned
once more for what SPHINX's Link carries and the index does not need: the
element each link came from (<a>, <area>, <img>, <frame>, <iframe>, <form>)
and where it is. A hyperlink the agent did not find followable (rel=nofollow,
a robots meta or X-Robots-Tag nofollow) is labelled `nofollow` and never queued.
"""

from __future__ import annotations

import zlib

from webcrawler.protocol.messages import Document
from webcrawler.toolkit import markup
from webcrawler.toolkit.model import Link, Page

HYPERLINK_ELEMENTS = ("a", "area")


def make_page(doc: Document, origin: Link) -> Page:
    """The Page for `doc`, fetched by following `origin`."""
    page = Page(url=doc.final_url, title=doc.title, text=doc.text, html=doc.html,
                depth=origin.depth, content_type=doc.content_type, length=doc.length,
                status=doc.status, origin=origin, document=doc,
                data=zlib.decompress(doc.body) if origin.element == "img" and doc.body else b"")
    if doc.html and doc.content_type != "text/plain":
        page.links = _links(page, doc)
    return page


def _links(page: Page, doc: Document) -> list[Link]:
    followable = {link.url for link in doc.links}
    depth = page.depth + 1
    out = []
    for found in markup.links(page.html, page.url):
        link = Link(found.url, found.anchor, page, found.element, depth, start=found.start)
        unfollowable = found.element in HYPERLINK_ELEMENTS and found.url not in followable
        if found.nofollow or (unfollowable and found.url != page.url):
            link.labels.add("nofollow")
        out.append(link)
    return out
