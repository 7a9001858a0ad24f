"""What every visit action shares: a page predicate, a summary, and a clean close.

SPHINX's Crawler Workbench offered "built-in visit operations" (save, concatenate,
extract, collect images, collect links, ...), "each parameterized by a page
predicate" that decides whether a visited page is processed at all (Miller and
Bharat 1998, section 3). `VisitAction` is that: call it with a `Page` from a
crawler's `visit` (or hand it to `attach`), and `close()` it when the crawl is
over to write what it gathered and get a one-line summary.

An action never does HTTP: it works on pages the crawler already retrieved
(through the agents, robots.txt and the request policy), and on files under the
folder it was given.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from webcrawler.errors import ToolkitError
from webcrawler.toolkit.model import Page

if TYPE_CHECKING:
    from webcrawler.toolkit.crawler import Crawler

log = logging.getLogger(__name__)

# A page larger than this (characters of HTML) is cut before an action parses it.
MAX_PAGE_CHARS = 5_000_000


PagePredicate = Callable[[Page], bool]


class VisitAction:
    """A reusable `visit` building block: ``action(page)`` processes one page, `close()` finishes.

    `when` is the paper's page predicate: a page for which it returns False is
    skipped (counted in `skipped`). Actions are context managers, so
    ``with Concatenate("book.html") as book: ...`` closes them on any exit.
    """

    def __init__(self, when: PagePredicate | None = None) -> None:
        self.when = when
        self.done = 0  # pages processed
        self.skipped = 0  # pages the predicate turned down
        self.closed = False

    takes_files = False  # pages that are a file's bytes (an image through an <img> link)

    def __call__(self, page: Page) -> None:
        if self.closed:
            raise ToolkitError(f"{type(self).__name__} is closed: it takes no more pages "
                               "(make a new one for another crawl)")
        if page.data and not self.takes_files:
            return  # an image is not a page to save, print or search
        if self.when is not None and not self.when(page):
            self.skipped += 1
            return
        self.handle(page)
        self.done += 1

    def handle(self, page: Page) -> None:
        """Process one page (subclasses)."""
        raise NotImplementedError

    def finish(self) -> str:
        """Write what was gathered; return the summary line (subclasses)."""
        return f"{self.done} pages"

    def close(self) -> str:
        """Finish once; later calls return the same summary."""
        if not self.closed:
            self.closed = True
            self._summary = self.finish()
            log.info("%s: %s", type(self).__name__, self._summary)
        return self._summary

    def attach(self, crawler: Crawler) -> VisitAction:
        """Run this action on every page `crawler` visits and close it when the crawl ends
        (the Workbench's way: no `visit` code to write)."""
        crawler.on("page-visited", self)
        crawler.on("crawl-finished", lambda summary: self.close())
        return self

    def __enter__(self) -> VisitAction:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
