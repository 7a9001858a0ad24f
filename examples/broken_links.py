"""A broken-link checker: link maintenance, the service crawlers were first built for
(Miller and Bharat 1998, section 1, after Fielding's MOMspider).

Crawl one site; check every hyperlink of its pages, including links to other
servers (fetched once, never followed further); report the links whose target
answered an error or could not be reached (verdict "broken": source, target, anchor,
status, reason), then those it could not tell about (verdict "unchecked": not fetched,
kept out by robots.txt, too large to read whole).

    python examples/broken_links.py [ROOT [REPORT.csv]]
"""

from __future__ import annotations

import sys
from typing import Any
from urllib.parse import urlsplit

from webcrawler.toolkit import Crawler, Limits, Link, Page
from webcrawler.toolkit.actions import LinkReport


class BrokenLinks(Crawler):
    """Visit every page of the roots' servers and the pages they link to; report broken links."""

    limits = Limits(pages=1000, depth=10, seconds=300)

    def __init__(self, report: str = "broken-links.csv", **options: Any) -> None:
        super().__init__(**options)
        self.report = LinkReport(report).attach(self)  # sees visited and failed pages

    def should_visit(self, link: Link) -> bool:
        """Check hyperlinks found on our own site; pages elsewhere are checked, not explored."""
        source = link.source.url if link.source is not None else ""
        site = {urlsplit(root).netloc for root in self.roots}  # roots may be set after __init__
        return "hyperlink" in link.labels and urlsplit(source).netloc in site

    def visit(self, page: Page) -> None:
        pass  # the report listens to the crawl's events


if __name__ == "__main__":
    from webcrawler.demoweb.toolkitweb import roots_or_web

    with roots_or_web(sys.argv[1:2], "/") as roots:
        crawler = BrokenLinks(report=sys.argv[2] if len(sys.argv) > 2 else "broken-links.csv",
                              roots=roots)
        print(crawler.run().line(), file=sys.stderr)
        print(crawler.report.close())
        for row in crawler.report.rows():
            if row.verdict == "broken":
                print(f"{row.source} -> {row.target} ({row.anchor!r}): {row.status or ''} "
                      f"{row.reason}")
