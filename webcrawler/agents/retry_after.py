"""A server's Retry-After header (RFC 9110 10.2.3) as seconds to wait, reported as data.

The header is a number of seconds or an HTTP date. A date is measured against the server's
own Date header when it sent one (its clock, not ours, set the date), else against this
host's clock. The engine decides what to do with the figure (engine/loop/retries.py).
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Mapping


def retry_after(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """Seconds the server asks us to wait, or None when it did not say (or said nonsense)."""
    value = (headers.get("Retry-After") or "").strip()
    if not value:
        return None
    if value.isdigit():
        return float(value)
    when = _date(value)
    if when is None:
        return None
    base = _date(headers.get("Date") or "")
    return max(0.0, when - (base if base is not None else time.time() if now is None else now))


def _date(text: str) -> float | None:
    try:
        parsed = email.utils.parsedate_to_datetime(text.strip())
    except (TypeError, ValueError, IndexError):
        return None
    return parsed.timestamp() if parsed.tzinfo is not None else None
