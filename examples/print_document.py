"""Print a multi-page document: SPHINX's Figure 1 (Miller and Bharat 1998, section 3).

Crawl a document divided into pages, only below its own folder (the paper's
regular expression on URLs: the document also links outside itself), and
concatenate the pages, in crawl order, into one HTML file with a page break
between pages, ready to print.

    python examples/print_document.py [FIRST-PAGE [OUT.html]]
"""

from __future__ import annotations

import re
import sys
from typing import Any

from webcrawler.toolkit import Crawler, Limits, Link, Page, Regexp
from webcrawler.toolkit.actions import Concatenate


class PrintDocument(Crawler):
    """Visit the pages under the first root's folder, breadth-first, and concatenate them."""

    limits = Limits(pages=200, depth=5, seconds=120)
    order = "bfs"

    def __init__(self, out: str = "document.html", **options: Any) -> None:
        super().__init__(**options)
        self.book = Concatenate(out, title="Printable document")

    def inside(self) -> Regexp:
        """The paper's "regular expression on URLs": the first root's folder and below
        (read when the crawl runs: `webcrawler crawl --root` sets the roots after __init__)."""
        return Regexp("^" + re.escape(self.roots[0].rsplit("/", 1)[0] + "/"))

    def should_visit(self, link: Link) -> bool:
        return "hyperlink" in link.labels and self.inside().matches(link.url)

    def visit(self, page: Page) -> None:
        self.book(page)

    def run(self, *args: Any, **kwargs: Any) -> Any:
        with self.book:  # the document is written when the crawl ends, however it ends
            return super().run(*args, **kwargs)


if __name__ == "__main__":
    from webcrawler.demoweb.toolkitweb import roots_or_web

    with roots_or_web(sys.argv[1:2], "/manual/index.html") as roots:
        crawler = PrintDocument(out=sys.argv[2] if len(sys.argv) > 2 else "document.html",
                                roots=roots)
        print(crawler.run().line(), file=sys.stderr)
        print(crawler.book.close())
