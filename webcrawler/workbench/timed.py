"""A definition's patterns, matched under a time bound and without regard to case.

A visitor's regular expression runs on pages a crawled site chooses: `(a+)+$` over
5,000 `a`s backtracks for longer than anyone waits, and while Python's `re` is in C
no signal is handled, so Stop waits with it. The `regex` library takes a `timeout`
on every search, so each match here gives up after SECONDS and counts as no match
(and the crawl says how many did). Wildcards are translated as the toolkit's
`Wildcard` does, and run the same way: `*a*a*a*b` backtracks too.

Workbench patterns ignore case unless the definition asks ("case": true): a person
looking for `*manual*` means the pages titled "... Manual ...".

    TimedPattern(match)   a toolkit Pattern: matches(text), find(page), timeouts
"""

from __future__ import annotations

import logging
from typing import Any

import regex

from webcrawler.toolkit.model import Page, Region
from webcrawler.toolkit.patterns import Pattern, wildcard_regex
from webcrawler.workbench.definition import Match

log = logging.getLogger(__name__)

SECONDS = 0.25  # the longest one match may take (the library overshoots it, up to twice)


def compile_match(match: Match) -> regex.Pattern[str]:
    """The pattern as `regex` runs it (raises regex.error for a bad one)."""
    flags = regex.S | (0 if match.case else regex.I)
    if match.regexp:
        return regex.compile(match.text, flags)
    return regex.compile(wildcard_regex(match.text), flags)


class TimedPattern(Pattern):
    """A definition's wildcard (the whole text) or regular expression (anywhere), bounded."""

    def __init__(self, match: Match, seconds: float = SECONDS) -> None:
        self.source, self.match, self.seconds = match.text, match, seconds
        self._re = compile_match(match)
        self.timeouts = 0

    def matches(self, text: str) -> bool:
        try:
            if self.match.regexp:
                return self._re.search(text, timeout=self.seconds) is not None
            return self._re.fullmatch(text, timeout=self.seconds) is not None
        except TimeoutError:
            self._timed_out()
            return False

    def find(self, page: Page | str) -> list[Region]:
        text = page if isinstance(page, str) else page.html
        label = "regexp" if self.match.regexp else "wildcard"
        regions: list[Region] = []
        try:
            for found in self._re.finditer(text, timeout=self.seconds):
                if found.end() > found.start():
                    regions.append(Region(found.start(), found.end(), {label}, {}))
        except TimeoutError:
            self._timed_out()
        return regions

    def _timed_out(self) -> None:
        self.timeouts += 1
        if self.timeouts == 1:
            log.warning("pattern %r took longer than %g s: counted as no match", self.source,
                        self.seconds)

    def __repr__(self) -> str:
        return f"TimedPattern({self.match!r})"


def timeouts(patterns: Any) -> int:
    """How many matches of these patterns gave up."""
    return sum(p.timeouts for p in patterns if isinstance(p, TimedPattern))
