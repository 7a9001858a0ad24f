"""Why a real-time job failed, in words of ours fit to show a visitor.

A job's stderr may hold a traceback, a library's message, file paths or
addresses: it goes to the server log only. Visitors see one short reason
chosen from a fixed list, matched on the exit code and a few known phrases.
"""

from __future__ import annotations

USAGE_ERROR = 2  # click's exit code for a usage error (e.g. a query the index refuses)

# (phrase in stderr, lower case) -> the reason shown; the first match wins
KNOWN: tuple[tuple[str, str], ...] = (
    ("--reindex", "the search could not run: the index is damaged or being rebuilt"),
    ("database is locked", "the search could not run: the database is busy, try again shortly"),
    ("no space left", "the search could not run: the server's disk is full"),
    ("not a database", "the search could not run: the database is damaged"),
    ("malformed", "the search could not run: the database is damaged"),
)
STOPPED = "the search stopped unexpectedly"
OVERSTAYED = "the search ran past its time limit and was stopped"
REFUSED = "the search could not run: the query was not accepted"


def visitor_reason(code: int | None, stderr: str, timed_out: bool) -> str:
    """One short sentence for a job that ended without a summary."""
    if timed_out:
        return OVERSTAYED
    text = stderr.lower()
    for phrase, reason in KNOWN:
        if phrase in text:
            return reason
    if code == USAGE_ERROR:
        return REFUSED
    return STOPPED
