"""Telling a full disk apart from a bug, wherever the database or the index writes.

A full disk is not a bug: the crawl stops, says so in one line, and resumes
when there is room again. The database stays consistent because SQLite
rolls the failed transaction back (everything before the last commit is
kept), and the index because Whoosh's table of contents is written last (a
segment that could not be finished is never listed). So the engine only has
to recognise the condition, stop writing, and say where the space ran out.

    is_disk_full(exc)              True for ENOSPC / EDQUOT / SQLITE_FULL, however wrapped
    StorageFull(path)              the one exception the CLI turns into a message
"""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

from webcrawler.errors import StorageError

_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})
_SQLITE_FULL = 13  # SQLITE_FULL: "database or disk is full"


class StorageFull(StorageError):
    """The disk holding the data directory is full; the crawl stopped at its last commit."""

    def __init__(self, path: Path | str, where: str = "") -> None:
        self.path = Path(path)
        self.where = where
        super().__init__(
            f"disk full: no space left for {self.path}"
            + (f" (while writing the {where})" if where else "")
            + ". The database and the index are consistent up to the last commit; free some "
            "space and run the same command again to resume."
        )


def is_disk_full(exc: BaseException | None) -> bool:
    """Is `exc` (or what caused it: SQLAlchemy wraps the driver's error) a full disk?"""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, StorageFull):
            return True
        if isinstance(exc, OSError) and exc.errno in _FULL_ERRNOS:
            return True
        if isinstance(exc, sqlite3.Error) and _sqlite_full(exc):
            return True
        exc = getattr(exc, "orig", None) or exc.__cause__ or exc.__context__
    return False


def _sqlite_full(exc: sqlite3.Error) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF == _SQLITE_FULL
    return "disk is full" in str(exc)
