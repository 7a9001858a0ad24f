"""Crawler traps: URL spaces without end that a depth limit alone would let cost hundreds of
requests. Two shapes are caught, each refused with the reason `trap`:

- a link loop: a relative link that grows its own path (`/loop/a/` links to `a/`, giving
  `/loop/a/a/`, `/loop/a/a/a/`, ...), or a sequence of segments that repeats: a path in which
  one segment occurs more than `trap_repeats` times is refused where it is found
  (`loop_in`, used by the scope);
- an endless date sequence: a calendar's "next month" links. URLs of one server that differ
  only in their digits, where the digits hold a year, share one pattern, and at most
  `trap_budget` pages of a pattern are fetched (`DateBudget`, asked when a URL is about to be
  requested). Paginations and numbered pages without a year are not capped: their count is
  the site's, not a calendar's.
"""

from __future__ import annotations

import re
from collections import Counter

_DIGITS = re.compile(r"[0-9]+")
# a year 1900-2199 standing alone, or starting a yyyymm / yyyymmdd run
_YEAR = re.compile(r"(?<![0-9])(?:19|20|21)[0-9]{2}(?:(?:0[1-9]|1[0-2])(?:[0-3][0-9])?)?(?![0-9])")


def loop_in(path: str, repeats: int) -> bool:
    """Does one segment of `path` (before any query) occur more than `repeats` times?
    0 turns the check off."""
    if repeats <= 0:
        return False
    segments = path.split("?", 1)[0].split("/")  # every link found is asked: the cheap tests first
    if len(segments) <= repeats + 1 or len(set(segments)) == len(segments):
        return False
    return Counter(s for s in segments if s).most_common(1)[0][1] > repeats


def date_pattern(path: str) -> str | None:
    """The pattern a dated URL shares with the rest of its sequence (digits as '#'), or None
    for a URL with no year in it."""
    if not _YEAR.search(path):
        return None
    return _DIGITS.sub("#", path)


class DateBudget:
    """How many pages of each server's dated URL patterns the crawl has asked for."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self._spent: dict[tuple[str, str], set[int]] = {}

    def allows(self, origin: str, path: str, doc_id: int) -> bool:
        """May this page be requested? Spends one of its pattern's pages when it may."""
        if self.budget <= 0:
            return True
        pattern = date_pattern(path)
        if pattern is None:
            return True
        spent = self._spent.setdefault((origin, pattern), set())
        if doc_id in spent:  # a retry, or a recrawl, of a page already counted
            return True
        if len(spent) >= self.budget:
            return False
        spent.add(doc_id)
        return True
