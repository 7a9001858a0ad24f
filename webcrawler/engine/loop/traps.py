"""Crawler traps: URL spaces without end that a depth limit alone would let cost hundreds of
requests. Two shapes are caught, each refused with the reason `trap`:

- a link loop: a relative link that grows its own path (`/loop/a/` links to `a/`, giving
  `/loop/a/a/`, `/loop/a/a/a/`, ...), or a sequence of segments that repeats: a path in which
  one segment occurs more than `trap_repeats` times is refused where it is found
  (`loop_in`, used by the scope);
- an endless date sequence: a calendar's "next month" links. URLs of one server that differ
  only in their digits, where the digits hold a year, share one pattern (`Calendars`, asked
  when a URL is about to be requested). Three rules, cheapest first:
  - a date more than a year ahead of today (`HORIZON_DAYS`) is a calendar's, not an
    archive's: refused;
  - a chain of pages that differ only by their date: once `SAME_PAGES` pages of a pattern
    have said the same thing with their digits, month and weekday names left out ("Events
    on 2026-11-29: none"), the rest of the pattern is refused, whatever year its URLs hold;
  - at most `trap_budget` pages of a pattern are fetched, for a calendar whose pages do
    differ (each day's events) and runs into the past.
  A real archive (a blog's months over ten years, 120 pages) passes: its dates are past and
  its pages list different posts. Paginations and numbered pages without a year are not
  capped: their count is the site's, not a calendar's.
"""

from __future__ import annotations

import datetime
import hashlib
import re
from collections import Counter
from collections.abc import Iterable

HORIZON_DAYS = 366  # a date further ahead than this is a calendar's
SAME_PAGES = 8  # pages of one pattern alike but for their dates: a chain without end

_DIGITS = re.compile(r"[0-9]+")
# a year 1900-2199 standing alone, or starting a yyyymm / yyyymmdd run
_YEAR = re.compile(r"(?<![0-9])(?:19|20|21)[0-9]{2}(?:(?:0[1-9]|1[0-2])(?:[0-3][0-9])?)?(?![0-9])")
# the same, with its month and day when written (2026-11, 2026/11/29, 20261129, 2026-1)
_DATE = re.compile(r"(?<![0-9])((?:19|20|21)[0-9]{2})(?:(?:[-/_.](1[0-2]|0?[1-9])|(1[0-2]|0[1-9]))"
                   r"(?:[-/_.]?([12][0-9]|3[01]|0?[1-9]))?)?(?![0-9])")
_NAMES = re.compile(r"\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|"
                    r"aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|"
                    r"mon(?:day)?|tue(?:s(?:day)?)?|wed(?:nesday)?|thu(?:rs(?:day)?)?|"
                    r"fri(?:day)?|sat(?:urday)?|sun(?:day)?)\b", re.IGNORECASE)


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


def date_in(path: str) -> datetime.date | None:
    """The latest date a URL's path names (a year alone: its first day), or None."""
    dates = []
    for year, month, packed, day in _DATE.findall(path):
        try:
            dates.append(datetime.date(int(year), int(month or packed or 1), int(day or 1)))
        except ValueError:  # 2026-02-31: not a date
            continue
    return max(dates, default=None)


def likeness(title: str, text: str, links: Iterable[str]) -> str:
    """What a page says with its dates left out: equal for two days of an empty calendar."""
    words = " ".join([title, text, *links])
    bare = _NAMES.sub("", _DIGITS.sub("", words))
    return hashlib.blake2b(" ".join(bare.split()).encode(), digest_size=12).hexdigest()


class Calendars:
    """Each server's dated URL patterns: pages asked for, and what they said."""

    def __init__(self, budget: int, today: datetime.date | None = None) -> None:
        self.budget = budget
        self.horizon = (today or datetime.date.today()) + datetime.timedelta(days=HORIZON_DAYS)
        self._spent: dict[tuple[str, str], set[int]] = {}
        self._said: dict[tuple[str, str], Counter[str]] = {}
        self._chains: set[tuple[str, str]] = set()  # patterns found to be endless

    def allows(self, origin: str, path: str, doc_id: int) -> bool:
        """May this page be requested? Spends one of its pattern's pages when it may."""
        if self.budget <= 0:
            return True
        if self._chains and (origin, _DIGITS.sub("#", path)) in self._chains:
            return False  # before 1900 too: a chain running into the past
        pattern = date_pattern(path)
        if pattern is None:
            return True
        spent = self._spent.setdefault((origin, pattern), set())
        if doc_id in spent:  # a retry, or a recrawl, of a page already counted
            return True
        if len(spent) >= self.budget or _beyond(date_in(path), self.horizon):
            return False
        spent.add(doc_id)
        return True

    def answered(self, origin: str, path: str, title: str, text: str, links: Iterable[str]) -> None:
        """A dated page came in: its pattern is a chain once `SAME_PAGES` pages of it said the
        same but for their dates."""
        pattern = date_pattern(path) if self.budget > 0 else None
        if pattern is None:
            return
        said = self._said.setdefault((origin, pattern), Counter())
        key = likeness(title, text, links)
        said[key] += 1
        if said[key] >= SAME_PAGES:
            self._chains.add((origin, pattern))


def _beyond(date: datetime.date | None, horizon: datetime.date) -> bool:
    return date is not None and date > horizon
