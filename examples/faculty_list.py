"""The faculty list: SPHINX's first example crawler (Miller and Bharat 1998, section 2.1).

Visit a department's faculty pages and list the home pages, whose URLs follow
one pattern. Run it on the bundled loopback web, or on your own roots:

    python examples/faculty_list.py [ROOT ...]
    webcrawler crawl examples/faculty_list.py --root http://127.0.13.1:PORT/faculty/
"""

from __future__ import annotations

import sys

from webcrawler.toolkit import Crawler, Limits, Link, Page, Wildcard


class FacultyList(Crawler):
    """Follow links inside the faculty folder; print each home page's URL and title."""

    home = Wildcard("http*://*/faculty/*/home.html")
    limits = Limits(pages=200, depth=3, seconds=120)

    def should_visit(self, link: Link) -> bool:
        return "local" in link.labels and "/faculty/" in link.url

    def visit(self, page: Page) -> None:
        if self.home.matches(page.url):
            print(page.url, page.title)


if __name__ == "__main__":
    from webcrawler.demoweb.toolkitweb import roots_or_web

    with roots_or_web(sys.argv[1:], "/faculty/") as roots:
        print(FacultyList(roots=roots).run().line(), file=sys.stderr)
