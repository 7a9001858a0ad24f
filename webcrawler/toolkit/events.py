"""Crawl events: what a personal crawl broadcasts to whoever listens (SPHINX section 3.2).

"When some interesting event occurs in the crawl -- such as following a link
or retrieving a page -- the crawler sends an event to all registered
visualizations." The Workbench streams these. Each listener gets
one argument, the event's subject:

    crawl-started   the Crawler           crawl-finished  the Summary
    link-queued     the Link              link-skipped    the Link (attributes["skipped"] says why)
    page-retrieved  the Page (classified, not yet visited)
    page-visited    the Page (after visit)
    page-failed     the Link (attributes["failure"], ["detail"])

A callback that raises - a listener, a classifier, should_visit or visit -
is reported (logged with the page's URL, kept in `errors`) and the crawl goes on.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from webcrawler.errors import ToolkitError

log = logging.getLogger(__name__)

EVENTS = ("crawl-started", "link-queued", "link-skipped", "page-retrieved", "page-visited",
          "page-failed", "crawl-finished")


@dataclass(frozen=True, slots=True)
class CallbackError:
    """A callback that raised: which one, on which URL, and what it said."""

    callback: str
    url: str
    error: str

    def __str__(self) -> str:
        return f"{self.callback} raised on {self.url}: {self.error}"


class Events:
    """Listeners by event name, and the errors callbacks raised."""

    def __init__(self) -> None:
        self._listeners: dict[str, list[Callable[[Any], object]]] = {name: [] for name in EVENTS}
        self.errors: list[CallbackError] = []

    def on(self, event: str, callback: Callable[[Any], object]) -> None:
        """Call `callback(subject)` on every `event` (ValueError naming the events otherwise)."""
        if event not in self._listeners:
            raise ToolkitError(f"unknown event {event!r}: choose from {', '.join(EVENTS)}")
        self._listeners[event].append(callback)

    def listeners(self) -> list[Callable[[Any], object]]:
        """Every listener of every event (a run asks its actions for a store: recording.py)."""
        return [listener for listeners in self._listeners.values() for listener in listeners]

    def emit(self, event: str, subject: Any, url: str = "") -> None:
        for listener in self._listeners[event]:
            self.guard(f"{event} listener", url, listener, subject)

    def guard(self, name: str, url: str, callback: Callable[..., Any], *args: Any) -> Any:
        """`callback(*args)`, or None after reporting what it raised."""
        try:
            return callback(*args)
        except Exception as exc:  # noqa: BLE001 - one bad callback must not stop the crawl
            error = CallbackError(name, url, f"{type(exc).__name__}: {exc}")
            self.errors.append(error)
            log.warning("%s", error)
            return None
