"""Collect the links of visited pages into a broken-link report.

Link maintenance is the first service the SPHINX paper lists for crawlers
("link maintenance [Fielding94]", Miller and Bharat 1998, section 1), and the
Workbench's "collect links" operation. Every link of every visited page is
recorded (source, target, anchor, element); what became of each target comes
from the crawl: a visited page is fine (its status), a page the crawler could
not retrieve is broken (its status or reason, from the ``page-failed`` event:
`attach` listens to it, or call `failed` yourself). Each link gets a verdict:
"broken" (the target answered 4xx/5xx, its host did not resolve, refused the
connection, timed out, ...), "unchecked" (nobody knows: the crawl never tried it,
or kept it out - robots.txt, its own rules, a private address - or stopped reading
it, as a page over the size cap, which answered 200) or "ok". `close()` writes the
report, CSV or JSON Lines by the file's suffix: the broken links, then the unchecked
ones, or every link with ``everything=True``; its line counts both, so "0 broken" is
never read as "all fine" when most targets were not checked.
"""

from __future__ import annotations

import csv
import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from webcrawler.protocol.messages import Reason
from webcrawler.toolkit.actions import sanitize
from webcrawler.toolkit.actions.base import PagePredicate, VisitAction
from webcrawler.toolkit.actions.extract import csv_cell
from webcrawler.toolkit.model import Link, Page

if TYPE_CHECKING:
    from webcrawler.toolkit.crawler import Crawler

MAX_LINKS = 1_000_000
_STATUS = re.compile(r"\b([1-5][0-9][0-9])\b")
# Reasons that say nothing of whether the target works: the crawl did not try it, kept itself
# from it, or stopped reading it (a page over the size cap answered fine); or its own agent failed.
NOT_FETCHED = "unchecked"  # the report's own reason: no answer of the crawl names the URL
UNCHECKED = frozenset({NOT_FETCHED, Reason.ROBOTS, Reason.UNINDEXABLE, Reason.EXCLUDED, Reason.NOINDEX,
                       Reason.DUPLICATE, Reason.POLICY, Reason.TOO_LARGE, Reason.PRIVATE, Reason.TRAP,
                       Reason.AGENT_DIED, Reason.AGENT_HUNG, Reason.AGENT_MEMORY})
SHOWN = {NOT_FETCHED: "not fetched"}  # a reason as the report's line names it
FIELDS = ("source", "target", "anchor", "element", "status", "reason", "verdict")


@dataclass
class Outcome:
    """What became of a URL: an HTTP status when there was one, and a reason when it failed."""

    status: int | None
    reason: str  # "ok", "unchecked", or why it failed (http-error, timeout, robots, ...)


@dataclass
class Row:
    source: str
    target: str
    anchor: str
    element: str
    status: int | None
    reason: str
    verdict: str = ""  # "broken", "unchecked" or "ok" (from the reason)

    def __post_init__(self) -> None:
        self.verdict = self.verdict or verdict(self.reason)


class LinkReport(VisitAction):
    """``LinkReport("broken.csv")``: the links of visited pages and what became of their targets."""

    def __init__(self, path: str | Path, when: PagePredicate | None = None,
                 everything: bool = False) -> None:
        super().__init__(when)
        self.path = Path(path)
        self.everything = everything
        self.links: list[tuple[str, str, str, str]] = []  # source, target, anchor, element
        self.outcomes: dict[str, Outcome] = {}

    def handle(self, page: Page) -> None:
        self.visited(page)
        for link in page.links:
            if len(self.links) < MAX_LINKS:
                self.links.append((page.url, sanitize.defrag(link.url)[0],
                                   (link.anchor or "")[:300], link.element))

    def visited(self, page: Page) -> None:
        """`page` was retrieved: its URL, and the link that led to it (redirects), are fine."""
        status = getattr(page, "status", 200)
        outcome = Outcome(status, "ok" if status < 400 else "http-error")
        self.outcomes[sanitize.defrag(page.url)[0]] = outcome
        origin = getattr(page, "origin", None)
        for url in _urls_of(origin) if origin is not None else []:
            self.outcomes.setdefault(sanitize.defrag(url)[0], outcome)

    def failed(self, url: str, reason: str = "failed", status: int | None = None) -> None:
        """The crawler could not retrieve `url` (from the ``page-failed`` event)."""
        self.outcomes[sanitize.defrag(url)[0]] = Outcome(status, reason or "failed")

    def attach(self, crawler: Crawler) -> LinkReport:
        crawler.on("page-failed", self.link_failed)
        super().attach(crawler)
        return self

    def link_failed(self, link: Link) -> None:
        """The ``page-failed`` event's subject: the link whose target could not be retrieved
        (`attributes["failure"]` says why, `attributes["status"]` the HTTP status if any)."""
        status = _status(link.attributes)
        reason = link.attributes.get("failure", "failed")
        for url in _urls_of(link):
            self.failed(url, reason, status)

    def rows(self) -> list[Row]:
        """Every link with its target's outcome (broken ones only unless `everything`)."""
        unchecked = Outcome(None, NOT_FETCHED)
        rows = [Row(s, t, a, e, o.status, o.reason) for s, t, a, e in self.links
                for o in [self.outcomes.get(t, unchecked)]]
        if self.everything:
            return rows
        return ([r for r in rows if r.verdict == "broken"] +
                [r for r in rows if r.verdict == "unchecked"])

    def finish(self) -> str:
        rows = self.rows()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("w", encoding="utf-8", newline="") as out:
            if self.path.suffix in (".jsonl", ".json"):
                out.writelines(json.dumps(asdict(r), ensure_ascii=False) + "\n" for r in rows)
            else:
                writer = csv.writer(out)
                writer.writerow(FIELDS)
                writer.writerows([csv_cell(v) for v in asdict(r).values()] for r in rows)
        return (f"{len(self.links)} links from {self.done} pages: {_counted(rows)}; "
                f"report in {self.path}")


def _counted(rows: list[Row]) -> str:
    """"2 broken, 95 not checked (73 not fetched, 20 excluded, 2 too-large)"."""
    broken = sum(1 for r in rows if r.verdict == "broken")
    why: dict[str, int] = {}
    for row in rows:
        if row.verdict == "unchecked":
            why[row.reason] = why.get(row.reason, 0) + 1
    if not why:
        return f"{broken} broken, every target checked"
    named = sorted((-n, SHOWN.get(reason, reason)) for reason, n in why.items())  # most first
    reasons = ", ".join(f"{-n} {name}" for n, name in named)
    return f"{broken} broken, {sum(why.values())} not checked ({reasons})"


def verdict(reason: str) -> str:
    """"ok", "unchecked" (the crawl cannot tell: see UNCHECKED) or "broken" (the target
    answered an error or could not be reached)."""
    if reason == "ok":
        return "ok"
    return "unchecked" if reason in UNCHECKED else "broken"


def _urls_of(link: Link) -> list[str]:
    """The link's URL, and the URL it was redirected from (the one a page links to)."""
    return [link.url, *([link.attributes["redirected-from"]]
                        if link.attributes.get("redirected-from") else [])]


def _status(attributes: dict[str, str]) -> int | None:
    """The HTTP status of a failure: `attributes["status"]`, or one named in its detail."""
    found = _STATUS.search(f'{attributes.get("status", "")} {attributes.get("detail", "")}')
    return int(found[1]) if found else None
