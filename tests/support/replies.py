"""A test web's answer as data, which the loopback servers (`genweb_server.py`) send."""

from __future__ import annotations

from dataclasses import dataclass

HUGE_BYTES = 20 * 1024 * 1024  # a huge page: past any agent's body cap


@dataclass(frozen=True, slots=True)
class Reply:
    """A response, as data. `stream` names a hostile body the server produces itself."""

    status: int
    body: bytes = b""
    content_type: str = "text/html; charset=utf-8"
    headers: tuple[tuple[str, str], ...] = ()
    stream: str = ""  # "", "trickle", "stall", "huge", "huge-stream"
