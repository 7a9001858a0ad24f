"""The query server's read-only view of a data directory: the index and the database.

Both are opened lazily and may not exist yet (before the first `webcrawler
index`): then `search` returns None and `engine` returns None, and the pages
say so. The searcher looks for new commits by the indexer in another process
and opens them in the background (`index/search/searcher.py`): new documents show up
within a fraction of a second, and no query waits for the index to reopen. The database
is opened by `readonly.open_readonly`, which creates no file (not even SQLite's
-wal and -shm), and is never created here: a missing SQLite file stays missing.

This module must never write to the index or the database.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from sqlalchemy.engine import Engine, make_url

from webcrawler import index
from webcrawler.query_server.readonly import open_readonly

log = logging.getLogger(__name__)

NO_INDEX = "No index yet: run webcrawler index."

T = TypeVar("T")


class Sources:
    """The index searcher and the database engine, shared by all request threads."""

    def __init__(self, index_dir: Path, db_url: str, stats_ttl: float = 5.0) -> None:
        self.index_dir = Path(index_dir)
        self.db_url = db_url
        self.stats_ttl = stats_ttl
        self._searcher: index.SearchIndex | None = None
        self._engine: Engine | None = None
        self._lock = threading.Lock()  # guards opening; the Searcher and Engine are thread-safe
        self._cache: dict[str, tuple[float, object]] = {}

    def search(
        self, query: str, page: int, per_page: int, expand: bool = False
    ) -> index.SearchResults | None:
        """Run `query` on the newest committed index; None when there is no index yet.
        Raises index.QueryError for a query the index cannot parse."""
        searcher = self._open_searcher()
        if searcher is None:
            return None
        return searcher.search(query, page=page, per_page=per_page, expand=expand)

    def suggest(self, text: str, n: int) -> list[str]:
        """At most `n` completions of the half-typed query `text` ([] with no index yet)."""
        searcher = self._open_searcher()
        return [] if searcher is None else searcher.suggest(text, n)

    def warm(self) -> None:
        """Start building the index's word tools (speller, completer) in the background, so
        that the first visitor does not wait seconds for them (nothing with no index yet)."""
        searcher = self._open_searcher()
        if searcher is not None:
            searcher.warm()

    def placeholder(self) -> str | None:
        """A sample for the empty search box, from the words most titles hold (None: no
        index, or no titles)."""
        searcher = self._open_searcher()
        words = () if searcher is None else searcher.frequent_title_words()
        return "e.g. " + ", ".join(words) if words else None

    def index_size(self) -> tuple[int, int] | None:
        """(documents, bytes) of the index, or None when there is no index yet."""
        searcher = self._open_searcher()
        if searcher is None:
            return None
        for _ in range(3):
            try:
                return searcher.doc_count(), searcher.size_bytes()
            except FileNotFoundError:  # the writer merged segments away while we summed them
                continue
        return searcher.doc_count(), 0

    def engine(self) -> Engine | None:
        """The read-only database engine, or None while the SQLite file does not exist."""
        with self._lock:
            if self._engine is None:
                url = make_url(self.db_url)
                if url.get_backend_name() == "sqlite" and url.database not in (
                    None,
                    "",
                    ":memory:",
                ):
                    if not Path(url.database).is_file():
                        return None  # not created here: look again on the next request
                self._engine = open_readonly(self.db_url)
            return self._engine

    def cached(self, key: str, compute: Callable[[], T]) -> T:
        """compute(), remembered for `stats_ttl` seconds under `key`."""
        now = time.monotonic()
        hit = self._cache.get(key)
        if hit is not None and now - hit[0] < self.stats_ttl:
            return hit[1]  # type: ignore[return-value]
        value = compute()
        self._cache[key] = (now, value)
        return value

    def close(self) -> None:
        with self._lock:
            if self._searcher is not None:
                self._searcher.close()
                self._searcher = None
            if self._engine is not None:
                self._engine.dispose()
                self._engine = None

    def __enter__(self) -> Sources:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _open_searcher(self) -> index.SearchIndex | None:
        with self._lock:
            if self._searcher is None:
                try:
                    self._searcher = index.open_searcher(self.index_dir)
                except FileNotFoundError:
                    return None  # no index yet; look again on the next request
            return self._searcher
