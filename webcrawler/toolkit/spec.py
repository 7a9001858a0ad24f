"""What one run of a personal crawler reads of the user's `Crawler` (crawler.py): its
settings of the crawl and its two callbacks. The run (runtime.py) is written against
this, so the `Crawler` that starts a run and the run it starts do not import each other."""

from __future__ import annotations

from typing import Protocol

from webcrawler.toolkit.classifiers import Classifier
from webcrawler.toolkit.events import Events
from webcrawler.toolkit.model import Limits, Link, Page
from webcrawler.toolkit.policy import RequestPolicy


class CrawlerSpec(Protocol):
    """A toolkit `Crawler`, as its run sees it."""

    roots: list[str]
    limits: Limits
    order: str
    classifiers: list[Classifier] | None
    policy: RequestPolicy | None
    aborted: bool
    use_credentials: bool  # the data directory's [[credentials]] are sent (only when said)

    @property
    def events(self) -> Events: ...

    def should_visit(self, link: Link) -> bool: ...

    def visit(self, page: Page) -> None: ...
