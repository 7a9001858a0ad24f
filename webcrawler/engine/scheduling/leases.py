"""Politeness across processes: one request in flight per server, and the delay between two.

The scheduler keeps a crawl polite within one process. A real-time search
beside `webcrawler index` on the same data directory is another process with
another scheduler, so the two would double the load on a server. Each
server gets a small lock file in ``DATA/leases/``: the engine takes an
exclusive `flock` on it, without waiting, before it hands a URL of that
server to an agent, and holds it until the answer is in; on release it writes
the wall-clock time the request ended into the file. A process that finds
the file locked, or finds the last end less than its delay ago, leaves the
server for later. The kernel drops the lock when a process dies, so a killed
crawl never leaves a server locked.

Costs per request: one open, one non-blocking flock, one 32-byte read, and
on release one write and a close.

    ServerLeases(directory).acquire(origin, delay) -> None, or seconds to wait
    ServerLeases.release(origin)
    ServerLeases.close()
"""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from webcrawler.engine.records import ServerState
    from webcrawler.engine.scheduling.scheduler import Scheduler

try:
    import fcntl
except ImportError:  # not POSIX: politeness holds within each process only
    fcntl = None  # type: ignore[assignment]

RETRY = 0.05  # seconds before a server locked by another process is tried again
_END = 32  # bytes of the file that hold the last request's end time


class ServerLeases:
    """The leases this process holds, one lock file per server under `directory`."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._held: dict[str, int] = {}  # origin -> open, locked file descriptor
        self._paths: dict[str, str] = {}  # origin -> its lock file (named once, opened each time)
        self._made = False

    def acquire(self, origin: str, delay: float) -> float | None:
        """Take the server's lease: None when taken (send now), else seconds to wait first."""
        if fcntl is None:
            return None
        fd = self._open(origin)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return RETRY
        wait = _last_end(fd) + delay - time.time()
        if wait > 0:
            os.close(fd)  # closing unlocks
            return wait
        self._held[origin] = fd
        return None

    def release(self, origin: str, requested: bool = True) -> None:
        """The request to `origin` is over (`requested` False: none was made): note when it
        ended, and let others have the server."""
        fd = self._held.pop(origin, None)
        if fd is None:
            return
        try:
            if requested:
                os.pwrite(fd, f"{time.time():<{_END - 1}.6f}\n".encode()[:_END], 0)
        finally:
            os.close(fd)

    def close(self) -> None:
        for origin in list(self._held):
            self.release(origin)

    def _open(self, origin: str) -> int:
        if not self._made:
            self.directory.mkdir(parents=True, exist_ok=True)
            self._made = True
        path = self._paths.get(origin)
        if path is None:
            name = hashlib.blake2b(origin.encode(), digest_size=12).hexdigest()
            path = self._paths[origin] = str(self.directory / name)
        return os.open(path, os.O_RDWR | os.O_CREAT, 0o644)


def next_leased_server(scheduler: Scheduler, leases: ServerLeases, delay: float,
                       now: float) -> ServerState | None:
    """The scheduler's next server whose lease this process now holds, or None.

    A server another process is asking (or just asked) is deferred until its lease may be
    free.
    """
    while (server := scheduler.next_server(now)) is not None:
        wait = leases.acquire(server.origin, server.wait(delay))
        if wait is None:
            return server
        scheduler.defer(server, now + wait)
    return None


def _last_end(fd: int) -> float:
    try:
        return float(os.pread(fd, _END, 0).decode("ascii").strip() or 0.0)
    except (ValueError, UnicodeDecodeError):
        return 0.0
