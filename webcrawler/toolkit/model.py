"""The crawl graph as a personal crawler sees it: Page, Link, Region, Limits, Summary.

SPHINX section 2 ("Crawling model"): the Web is a directed graph of pages and
links. A `Page` is a retrieved, parsed page; a `Link` knows its target URL and
its source (a page and the HTML element in it). Pages, links and regions carry
a set of labels and string attributes that classifiers write and `should_visit`
/ `visit` read. Regions are ranges of offsets into `Page.html` (SPHINX: "a byte
offset and length in the page"): `page.html[region.start:region.end]`.

Nothing here does I/O; these are plain objects a callback may keep.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from webcrawler.errors import ToolkitError
from webcrawler.protocol.messages import Document


@dataclass(eq=False)
class Region:
    """A part of a page: `html[start:end]`, with the labels and attributes classifiers set."""

    start: int
    end: int
    labels: set[str] = field(default_factory=set)
    attributes: dict[str, str] = field(default_factory=dict)

    def text_of(self, page: Page) -> str:
        """The markup this region covers in `page`."""
        return page.html[self.start:self.end]


@dataclass(eq=False)
class Link:
    """An outgoing link: its target, where it was found, and what classifiers said of it.

    `priority` is the key of the "priority" order: `should_visit` may set it,
    and the highest goes first. `source` is None for the crawl's roots.
    """

    url: str
    anchor: str = ""
    source: Page | None = None
    element: str = "a"
    depth: int = 0
    labels: set[str] = field(default_factory=set)
    attributes: dict[str, str] = field(default_factory=dict)
    priority: float = 0.0
    start: int = -1  # where the element starts in the source's html (-1: not in a page)

    def __repr__(self) -> str:
        return f"Link({self.url!r}, element={self.element!r}, depth={self.depth})"


@dataclass(eq=False)
class Page:
    """A retrieved page: `url` is where it was found after redirects."""

    url: str
    title: str = ""
    text: str = ""
    html: str = ""
    depth: int = 0
    links: list[Link] = field(default_factory=list)
    labels: set[str] = field(default_factory=set)
    attributes: dict[str, str] = field(default_factory=dict)
    regions: list[Region] = field(default_factory=list)
    content_type: str = "text/html"
    length: int = 0  # bytes received
    status: int = 200
    origin: Link | None = None  # the link that led here (None for a root)
    data: bytes = b""  # the bytes of a file fetched through an <img> link (an image); b"" else
    document: Document | None = field(default=None, repr=False)  # the agent's answer, for
    # the engine's document path (AddToIndex: noindex, the checksum, the followable links)

    def __repr__(self) -> str:
        return f"Page({self.url!r}, depth={self.depth}, links={len(self.links)})"


@dataclass(frozen=True)
class Limits:
    """Bounds on a crawl (SPHINX: pages visited, bytes retrieved, wall-clock time, depth).

    None means no bound of that kind; every crawl is bounded in time all the
    same (`seconds` defaults to an hour). Pages at depth `depth` are leaves:
    their links are not followed.
    """

    pages: int | None = None
    depth: int | None = None
    seconds: float | None = 3600.0
    bytes: int | None = None

    def __post_init__(self) -> None:
        """A bound that is not a number, or is negative, is the crawler file's error in one
        line (it used to surface mid-crawl as a TypeError's traceback, or stop it silently)."""
        check_bounds("Limits", {name: getattr(self, name) for name in ("pages", "depth", "seconds", "bytes")})


def check_bounds(owner: str, bounds: dict[str, object]) -> None:
    """ToolkitError naming the first bound that is not None or a number 0 or more (finite)."""
    for name, value in bounds.items():
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                  or not 0 <= value < math.inf):
            raise ToolkitError(f"{owner}({name}={value!r}): give a number, 0 or more, or None")


def as_limits(value: object, owner: str) -> Limits:
    """`value` when it is a Limits; else ToolkitError naming `owner` (the crawler class)."""
    if not isinstance(value, Limits):
        raise ToolkitError(f"{owner}.limits is a {type(value).__name__}: give "
                           "Limits(pages=..., depth=..., seconds=..., bytes=...)")
    return value


STOP_REASONS = ("queue-empty", "limit-pages", "limit-bytes", "limit-time", "aborted")


@dataclass
class Summary:
    """What `Crawler.run()` returns: pages visited, bytes, seconds, and why the crawl stopped."""

    pages: int = 0
    bytes: int = 0
    seconds: float = 0.0
    stop_reason: str = ""
    failed: int = 0
    skipped: int = 0
    requests: int = 0  # requests sent to servers, robots.txt included
    refused: int = 0  # requests the RequestPolicy refused
    callback_errors: int = 0

    @property
    def pages_visited(self) -> int:
        return self.pages

    def __getitem__(self, key: str) -> Any:
        """`summary["stop-reason"]` as well as `summary.stop_reason`."""
        return getattr(self, key.replace("-", "_"))

    def as_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}

    def line(self) -> str:
        """The one-line summary the CLI prints."""
        extra = f", {self.failed} failed" if self.failed else ""
        extra += f", {self.refused} refused by the policy" if self.refused else ""
        extra += f", {self.callback_errors} callback errors" if self.callback_errors else ""
        return (f"{self.pages} pages visited, {self.bytes} bytes in {self.seconds:.1f} s "
                f"({self.requests} requests{extra}); stopped: {self.stop_reason}")
