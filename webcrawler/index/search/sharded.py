"""Searching a sharded index (`shards.py`) as if it were one index.

Every query runs on every shard, twice: first each shard reports its part of the
collection statistics the relevance formula reads (`weighting.py`: the total length
N, the document count behind the average length, each query word's frequency cf;
a few lookups, done in turn), which are summed; then each shard ranks its documents
with the summed statistics, in parallel, so a document scores exactly what it would in one index
holding every shard's documents. The shards' top lists are merged best first,
ties broken by doc_id (one index breaks them by document number, which follows
doc_id when documents are added in the order they were fetched), and scores are
normalised to 1000 against the best document of all shards. Match counts and facet
counts add up; the merged list is grouped by site as one index's is (`searcher.on_page`),
and a word's other forms (`stemming.py`) are those of every shard's vocabulary.

In parallel or in turn: the shards are in one process, and under the GIL threads
overlap only waits (pages of a shard on slow storage, numpy): on a small loaded
machine a thread hand-off may cost more than it saves (`bench/shards.py`), so
`parallel=False` ranks the shards in turn.

While a query runs it holds every shard's lock (always in shard order), so no
shard swaps in a new commit between the two rounds or before its hits are read;
the worker threads then touch one shard each. A shard with no index yet (its
writer has not committed) counts as empty until it has one. Never writes.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from webcrawler.index import background
from webcrawler.index.format.opening import has_index
from webcrawler.index.format.version import index_dirs, shard_count
from webcrawler.index.models import SearchIndex, SearchResults
from webcrawler.index.search import facets, proximity
from webcrawler.index.search.searcher import Searcher, depth, on_page
from webcrawler.index.words import stemming
from webcrawler.index.words.query import ParsedQuery

T = TypeVar("T")


@dataclass(frozen=True)
class CollectionStatistics:
    """The summed statistics of every shard; called by `Peculiarity` as its `collection`."""

    total: int  # content words in all shards
    documents: int  # documents in all shards, deleted ones too (Whoosh's average does so)
    frequencies: dict[bytes, float]  # each query word's weighted count in all shards

    def __call__(self, fieldname: str, text: bytes) -> tuple[float, float, float]:
        """(N, cf, average length) as `Peculiarity._collection_stats` computes them."""
        if text not in self.frequencies:
            raise LookupError(f"no collection statistics for {fieldname}:{text!r}")
        average = self.total / (self.documents or 1)
        return self.total or 1, self.frequencies[text], average

    @property
    def stamp(self) -> tuple:
        """What ranked lists depend on: cached lists are reused only with the same."""
        return self.total, self.documents, tuple(sorted(self.frequencies.items()))


def _union(lists: Iterable[list[str]]) -> list[str]:
    return list(dict.fromkeys(word for found in lists for word in found))


def combine(parts: Sequence[tuple[int, int, dict[bytes, float]]]) -> CollectionStatistics:
    """Sum the shards' `Searcher.statistics` (in shard order, for the same sums every time)."""
    frequencies: dict[bytes, float] = {}
    for _total, _documents, found in parts:
        for word, frequency in found.items():
            frequencies[word] = frequencies.get(word, 0.0) + frequency
    return CollectionStatistics(sum(p[0] for p in parts), sum(p[1] for p in parts), frequencies)


class ShardedSearcher:
    """`Searcher`'s interface over every shard of a sharded index; thread-safe."""

    def __init__(self, index_dir: Path, parallel: bool = True, **options: Any) -> None:
        self.index_dir = Path(index_dir)
        self.parallel = parallel  # False: shards ranked in turn in the query's thread
        self._directories = index_dirs(self.index_dir)
        self._options = options
        self._shards: list[Searcher | None] = [None] * len(self._directories)
        self._lock = threading.Lock()  # one query at a time holds the shards (see docstring)
        self._pool = ThreadPoolExecutor(max(1, len(self._directories) - 1), thread_name_prefix="shard")
        if not self._open_new():
            self._pool.shutdown()
            raise FileNotFoundError(f"no shard of the index in {self.index_dir} has an index yet")

    def search(self, query: str, page: int = 1, per_page: int = 10, expand: bool = False,
               site: str | None = None) -> SearchResults:
        """One page of results over all shards; raises QueryError like `Searcher.search`."""
        started = time.perf_counter()
        with background.foreground(), self._holding() as shards:
            parsed, per_page = shards[0].parse_query(query, page, per_page, expand, site)
            stemming.add_forms(parsed, lambda word: _union(shard.forms(word) for shard in shards))
            excluded = [word for part in parsed.excluded for word in part]
            words = list(dict.fromkeys([*parsed.terms(), *excluded]))
            collection = combine([s.statistics(words) for s in shards])  # lookups: cheap
            per_site = shards[0].per_site
            merged, total, counts = self._merge(shards, parsed,
                                                depth(parsed, page * per_page, per_site), collection)
            merged = self._near(shards, parsed, merged[: proximity.DEPTH]) + merged[proximity.DEPTH :]
            best = merged[0][0] if merged else 0.0
            items = [(score, (k, docnum), site) for score, _doc_id, k, docnum, site in merged]
            hits = [shards[k].hit(rank, score, docnum, best, parsed, site, more)
                    for rank, (score, (k, docnum), site), more
                    in on_page(parsed, items, page, per_page, counts, per_site)]
        took = (time.perf_counter() - started) * 1000
        return SearchResults(" ".join(query.split())[:1000], total, took, page, per_page, hits,
                             facets=facets.listed(counts), suggestion=parsed.suggestion,
                             expansions=tuple(parsed.thesaurus_words))

    def suggest(self, text: str, n: int) -> list[str]:
        """Completions from the first shard's vocabulary (a sample of the whole: shards
        split documents by hash), as spelling corrections are."""
        return self._first().suggest(text, n)

    def frequent_title_words(self) -> tuple[str, ...]:
        return self._first().frequent_title_words()

    def warm(self) -> threading.Thread:
        """The first shard's word tools, which spelling and completion use, built now."""
        return self._first().warm()

    def _first(self) -> Searcher:
        with self._lock:
            self._open_new()
            return next(s for s in self._shards if s is not None)

    def _merge(self, shards: list[Searcher], parsed: ParsedQuery, needed: int,
               collection: CollectionStatistics) -> tuple[list[tuple[float, int, int, int, str]],
                                                          int, facets.Counts]:
        """([(score, doc_id, shard, docnum, site), ...] best first, ties by doc_id; the
        total; the facet counts)."""
        def rank(shard: Searcher) -> tuple[list[tuple[float, int, int, str]], int, facets.Counts]:
            ranked, total, counts = shard.rank(parsed, needed, collection, collection.stamp)
            docnums = [docnum for _score, docnum in ranked]
            found = zip(ranked, shard.doc_ids(docnums), shard.sites(docnums), strict=True)
            return [(score, doc_id, docnum, site) for (score, docnum), doc_id, site in found], \
                total, counts

        merged: list[tuple[float, int, int, int, str]] = []
        total = 0
        parts = []
        for k, (ranked, count, counts) in enumerate(self._each(shards, rank)):
            merged += [(score, doc_id, k, docnum, site) for score, doc_id, docnum, site in ranked]
            total += count
            parts.append(counts)
        merged.sort(key=lambda item: (-item[0], item[1]))
        return merged[:needed], total, facets.merge(parts)

    @staticmethod
    def _near(shards: list[Searcher], parsed: ParsedQuery, top: list) -> list:
        """The merged top scored again for proximity, each document by its own shard."""
        factors = [1.0] * len(top)
        for k, shard in enumerate(shards):
            mine = [i for i, item in enumerate(top) if item[2] == k]
            found = shard.proximity_factors(parsed, [top[i][3] for i in mine])
            for i, factor in zip(mine, found, strict=True):
                factors[i] = factor
        return proximity.rescore(top, factors)

    def _each(self, shards: list[Searcher], work: Callable[[Searcher], T]) -> list[T]:
        """work(shard) for every shard, in parallel (the first in this thread: one thread
        hand-off fewer), results in shard order."""
        if not self.parallel:
            return [work(shard) for shard in shards]
        others = [self._pool.submit(work, shard) for shard in shards[1:]]
        first = work(shards[0])
        return [first, *(future.result() for future in others)]

    @contextlib.contextmanager
    def _holding(self) -> Iterator[list[Searcher]]:
        """Every open shard, locked in shard order, each on its newest opened commit."""
        with self._lock, contextlib.ExitStack() as stack:
            self._open_new()
            shards = [s for s in self._shards if s is not None]
            for shard in shards:
                stack.enter_context(shard.holding())
            yield shards

    def _open_new(self) -> int:
        """Open the shards that have an index by now; how many are open."""
        for k, directory in enumerate(self._directories):
            if self._shards[k] is None and has_index(directory):
                self._shards[k] = Searcher(directory, **self._options)
        return sum(s is not None for s in self._shards)

    def refresh(self) -> None:
        """Pick up every shard's new commits now (and shards that appeared)."""
        with self._lock:
            self._open_new()
            for shard in self._shards:
                if shard is not None:
                    shard.refresh()

    def doc_count(self) -> int:
        with self._holding() as shards:
            return sum(s.doc_count() for s in shards)

    def size_bytes(self) -> int:
        return sum(s.size_bytes() for s in self._shards if s is not None)

    def close(self) -> None:
        with self._lock:
            self._pool.shutdown()
            for shard in self._shards:
                if shard is not None:
                    shard.close()

    def __enter__(self) -> ShardedSearcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_searcher(index_dir: Path, **kwargs: Any) -> SearchIndex:
    """A read-only searcher over the index in `index_dir` (or over all its shards).

    Raises FileNotFoundError when `index_dir` holds no index yet (open a writer first).
    """
    if shard_count(index_dir) > 1:
        return ShardedSearcher(index_dir, **kwargs)
    return Searcher(index_dir, **kwargs)
