"""Concatenate visited pages into one printable HTML document, in crawl order.

The Workbench's example task (Miller and Bharat 1998, section 3, Figure 1):
"print a hardcopy of ... a Web document divided into multiple HTML pages": the
crawler visits the document's pages and "concatenate[s] the visited pages
together to make a single page that can be printed". Each page becomes a
``<section>`` headed by its title and URL, with a CSS page break before the
next one; links between concatenated pages become links inside the document,
and ids are prefixed per page so two pages' anchors cannot collide.

Content is cleaned by `sanitize` (no scripts, frames or event handlers) and
only the body is kept, without the pages' own style sheets (one page's CSS
would restyle every other page of the document). Pages are held in memory until `close()`, at most
`max_chars` characters in all; pages beyond that are left out and counted.
"""

from __future__ import annotations

import html
from pathlib import Path

from lxml import etree

from webcrawler.toolkit.actions import files, sanitize
from webcrawler.toolkit.actions.base import PagePredicate, VisitAction
from webcrawler.toolkit.model import Page

MAX_CHARS = 50_000_000
STYLE = """body { font-family: Georgia, serif; max-width: 48rem; margin: auto; }
section.page { break-after: page; page-break-after: always; }
section.page:last-of-type { break-after: auto; page-break-after: auto; }
header.source { border-bottom: 1px solid #999; margin-bottom: 1rem; }
header.source .url { font: .8rem monospace; color: #555; }
img { max-width: 100%; }"""


class Concatenate(VisitAction):
    """``Concatenate("book.html")``: every visited page, in order, in one printable file."""

    def __init__(self, path: str | Path, when: PagePredicate | None = None,
                 title: str = "Concatenated pages", max_chars: int = MAX_CHARS) -> None:
        super().__init__(when)
        self.path = Path(path)
        self.title = title
        self.max_chars = max_chars
        self.order: dict[str, int] = {}  # URL (no fragment) -> section number, crawl order
        self._sections: list[str] = []
        self._chars = 0
        self.left_out = 0

    def handle(self, page: Page) -> None:
        url, _ = sanitize.defrag(page.url)
        if url in self.order:
            return
        number = len(self._sections) + 1
        section = _section(page, url, number)
        if self._chars + len(section) > self.max_chars:
            self.left_out += 1
            return
        self.order[url] = number
        self._sections.append(section)
        self._chars += len(section)

    def finish(self) -> str:
        body = "\n".join(self._relink(section, n) for n, section in enumerate(self._sections, 1))
        self.path.parent.mkdir(parents=True, exist_ok=True)
        files.write_text(self.path.parent, self.path.name, (
            f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>{html.escape(self.title)}'
            f"</title>\n<style>\n{STYLE}\n</style></head>\n<body>\n{body}\n</body></html>\n"))
        more = f" ({self.left_out} left out: over {self.max_chars} characters)" if self.left_out else ""
        return f"{len(self._sections)} pages concatenated into {self.path}{more}"

    def _relink(self, section: str, number: int) -> str:
        """Links to pages of this document point inside it: ``#p3`` or ``#p3-fragment``."""
        root = sanitize.parse(section)
        for element in root.iter("a", "area"):
            target, fragment = sanitize.defrag(element.get("href") or "")
            if not target and fragment:
                element.set("href", f"#p{number}-{fragment}")
            elif target in self.order:
                n = self.order[target]
                element.set("href", f"#p{n}-{fragment}" if fragment else f"#p{n}")
        return "".join(sanitize.to_html(child) for child in sanitize.body_children(root))


def _section(page: Page, url: str, number: int) -> str:
    """The page's body as one ``<section id=pN>``, its ids prefixed with ``pN-``."""
    root = sanitize.clean(sanitize.parse(page.html or ""), url)
    etree.strip_elements(root, "style", "link", with_tail=False)  # one page's CSS would restyle all
    for element in root.iter():
        for name in ("id", "name"):
            value = element.get(name) if isinstance(element.tag, str) else None
            if value and (name == "id" or element.tag == "a"):
                element.set(name, f"p{number}-{value}")
    content = "".join(sanitize.to_html(child) for child in sanitize.body_children(root))
    title = html.escape(page.title or url)
    return (f'<section class="page" id="p{number}"><header class="source"><h1>{title}</h1>'
            f'<div class="url">{html.escape(url)}</div></header>\n{content}\n</section>')
