"""When did a page last change? Its Last-Modified, where the page's own history says it can be
trusted (Cho and Garcia-Molina 2003, "Estimating frequency of change": the estimator that knows
the time of the last change, buckets.change_rate).

A server's Last-Modified may date something other than the page's content: a clock or visitor
counter line (our changing web's is the latest change of either kind, tests/support/changes.py), a
template, the time it was served. So a page's dates are used only while every answer agreed with
what the crawler itself saw of the body:

- a recrawl that saw a real change (shingles differ) carries a date that moved, is not in the
  future and is after the previous fetch: its age is added to the page's sum;
- a recrawl that saw no real change (byte-identical body, a 304, or a change the shingles judged
  trivial) carries the same date as before, or none.

Anything else makes the page's dates untrusted for good: `documents.change_ages` holds
UNTRUSTED (-1) and the page keeps the irregular-interval estimate. The column holds the sum of
the ages (seconds) otherwise; NULL reads as 0 for a page never seen to change, and as untrusted
for one that was (a history older than the column: its sum is missing ages).

A page that changed at every recrawl never has its dates tested by an unchanged one, and a clock
line's date moves at every recrawl too: such a page's ages are used only to slow its estimate
(buckets.change_rate). Its server can vouch for it: a clock or counter line is usually a site's
template, so a server whose pages' dates passed VOUCH_PASSES tests (an unchanged recrawl whose
date stayed put) and failed none (`ServerDates`, `date_test`) dates its content alone, and its
pages' dates are trusted whatever their recrawls saw (`History.dates_vouched`). The tally lives
in memory for one crawl run, as priors.Evidence's does.
"""

from __future__ import annotations

from collections.abc import Hashable
from email.utils import parsedate_to_datetime

UNTRUSTED = -1.0
VOUCH_PASSES = 20  # a server's passed date tests before it vouches (as priors.MIN_RECRAWLS)


def http_date(value: str | None) -> float | None:
    """An HTTP date as a Unix time; None when absent or unreadable."""
    if not value:
        return None
    try:
        return parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


def stored_ages(column: float | None, changes: int) -> float | None:
    """The page's trusted sum of ages from its column, None when untrusted."""
    if column is None:
        return 0.0 if changes == 0 else None
    return None if column < 0 else column


def change_age(dated: float, gap: float) -> float:
    """The last change's age at a fetch from `dated` = fetch time - Last-Modified: HTTP dates
    are whole seconds, rounded down, so the change was 0-1 s later than stated: the middle of
    what is possible (the page's own interval `gap` bounds it: the change came after the last
    fetch)."""
    return min(gap, max(dated - 0.5, dated / 2, 0.0))


def ages_after(ages: float | None, old: str | None, new: str | None, changed: bool,
               now: float, last_fetch: float | None) -> float | None:
    """The sum of ages after this answer (None: untrusted from now on). `old` and `new` are the
    Last-Modified values stored before and received now (a 304 without one: `new` = `old`)."""
    if ages is None:
        return None
    if not changed:
        return ages if not new or new == old else None  # a trivial change or nothing moved it
    dated, before = http_date(new), last_fetch if last_fetch is not None else now
    if dated is None or new == old or dated > now or dated + 1 <= before:
        return None  # no date, or one that did not move with the change, or cannot be its time
    return ages + change_age(now - dated, now - before)


def date_test(before: float | None, after: float | None, changed: bool, new: str | None) -> bool | None:
    """What one recrawl says of its server's dates: True a pass (no real change, and the page's
    trusted date stayed put), False a fail (it made the page's trusted dates untrusted: a date
    that moved without a change, or did not move with one), None no test (the page's dates were
    untrusted already, it carried none, or it changed: a clock line's date moves with a change
    as well as the content's does)."""
    if before is None:
        return None
    if after is None:
        return False
    return True if not changed and new else None


class ServerDates:
    """Each server's date tests, passed and failed, in one crawl run; whether it vouches."""

    def __init__(self) -> None:
        self._tests: dict[Hashable, list[int]] = {}

    def add(self, server: Hashable, test: bool | None) -> None:
        if test is not None:
            self._tests.setdefault(server, [0, 0])[0 if test else 1] += 1

    def vouched(self, server: Hashable) -> bool:
        """Enough passes and no fail: one clock page among a server's pages is one too many."""
        passes, fails = self._tests.get(server, (0, 0))
        return passes >= VOUCH_PASSES and fails == 0
