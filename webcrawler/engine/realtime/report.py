"""How a real-time search reads on a terminal, or as JSON lines for a program.

    show_event(event, as_json) -> str | None    one result line (progress: JSON only)
    show_summary(summary, as_json) -> str       fetched, found, time, why it stopped
"""

from __future__ import annotations

import dataclasses
import json

from webcrawler.engine.realtime.search import Found, Progress, RealtimeSummary


def show_event(event: Found | Progress, as_json: bool) -> str | None:
    """A result as `score  new|indexed  title  URL`; progress only in JSON."""
    if as_json:
        kind = "result" if isinstance(event, Found) else "progress"
        return json.dumps({"type": kind, **dataclasses.asdict(event)})
    if isinstance(event, Progress):
        return None
    where = "new" if event.new else "indexed"
    title = " ".join(event.title.split()) or "(untitled)"
    return f"{event.score:4d}  {where:<7}  {title[:60]}  {event.url}"


def show_summary(summary: RealtimeSummary, as_json: bool) -> str:
    if as_json:
        return json.dumps({"type": "summary", "query": summary.query, "fetched": summary.fetched,
                           "found": summary.found, "seconds": round(summary.seconds, 2),
                           "stop_reason": summary.stop_reason})
    return (f"fetched {summary.fetched} documents, found {summary.found} new "
            f"in {summary.seconds:.1f} s ({summary.stop_reason})")
