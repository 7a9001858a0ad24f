"""A crawl's events, spilled to its folder as JSON lines instead of kept in memory.

A crawled site chooses how many links it has, so a crawl's events cannot live in
the workbench's memory for the server's life: each goes to `events.jsonl` in the
crawl's folder as it arrives, and the event stream reads them back from there (so
a finished crawl, even one from before a restart, still replays). The file is
bounded too: past `max_events` events or `max_bytes` bytes the rest are only
counted (`dropped`), except the crawl's last event ("finished"), always kept.

    EventLog(path, max_events, max_bytes)
        append(event) -> bool      False: counted, not kept
        count, dropped, close()
    open_reader(path, after)       a reader positioned after the first `after` events
    read_lines(reader, most)       the whole lines written so far
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import IO, Any

FILE_NAME = "events.jsonl"
MAX_BYTES = 64 * 1024 * 1024  # per crawl


class EventLog:
    """The events of one running crawl, appended to its folder (one writer: the collector)."""

    def __init__(self, path: Path, max_events: int, max_bytes: int = MAX_BYTES) -> None:
        self.path, self.max_events, self.max_bytes = path, max_events, max_bytes
        self.count = self.dropped = self.bytes = 0
        self._out: IO[str] | None = path.open("a", encoding="utf-8")

    def append(self, event: dict[str, Any]) -> bool:
        line = json.dumps(event, separators=(",", ":")) + "\n"
        last = event.get("t") == "finished"
        if self._out is None or (not last and (self.count >= self.max_events or
                                               self.bytes + len(line) > self.max_bytes)):
            self.dropped += 1
            return False
        try:
            self._out.write(line)
            self._out.flush()
        except OSError:  # a full disk: the crawl goes on, its events are counted
            self.dropped += 1
            return False
        self.count += 1
        self.bytes += len(line)
        return True

    def close(self) -> None:
        if self._out is not None:
            try:
                self._out.close()
            except OSError:
                pass
            self._out = None


def open_reader(path: Path, after: int) -> tuple[IO[bytes], int] | None:
    """The events file, positioned after its first `after` events (fewer if it has fewer),
    and how many it skipped; None when there is no file."""
    try:
        reader = path.open("rb")
    except OSError:
        return None
    skipped = 0
    while skipped < after and read_lines(reader, 1):
        skipped += 1
    return reader, skipped


def read_lines(reader: IO[bytes], most: int) -> list[str]:
    """Up to `most` whole lines (a line still being written is left for the next call)."""
    lines: list[str] = []
    while len(lines) < most:
        line = reader.readline()
        if not line.endswith(b"\n"):
            reader.seek(-len(line), 1)
            break
        lines.append(line.decode("utf-8", "replace").rstrip("\n"))
    return lines


def count_lines(path: Path) -> int:
    """Events in a finished crawl's file (0 when there is none)."""
    try:
        with path.open("rb") as lines:
            return sum(1 for _ in lines)
    except OSError:
        return 0
