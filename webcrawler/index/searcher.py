"""The read side: one `Searcher` per query server, shared by its threads.

A lock serialises the Whoosh searcher (its readers share file handles; with the
GIL there is little to gain from more). Word-only queries run term at a time
(`wordsearch.py`: exact top N and exact count in one pass); phrases, site: and
exclusions run through Whoosh's matchers with block-max skipping, and are
counted by `counting.py`. Each query's ranked list - the top
max(page * per_page, `CACHE_DEPTH`) (score, docnum) pairs and the exact total -
is cached until the index changes, so repeated queries cost only the page's
stored fields. Scores are normalised against the query's best document,
whatever the page. `search()` checks for new commits at most every
`REFRESH_INTERVAL` seconds; the open searcher is kept until then (no reopen per
query). This module never writes to the index.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any

from whoosh.collectors import TopCollector
from whoosh.scoring import BM25F, WeightingModel

from webcrawler.index.counting import count_matches
from webcrawler.index.models import Hit, QueryError, SearchResults
from webcrawler.index.query import ParsedQuery, parse, to_whoosh
from webcrawler.index.query import expand as expand_query
from webcrawler.index.snippets import snippet
from webcrawler.index.thesaurus import Thesaurus, default_thesaurus
from webcrawler.index.weighting import Peculiarity
from webcrawler.index.wordsearch import rank_words
from webcrawler.index.writer import open_index

CACHE_DEPTH = 10  # ranked results collected at least (a deeper page collects more)
CACHE_QUERIES = 512
REFRESH_INTERVAL = 0.5
MAX_PER_PAGE = 100

Ranked = tuple[list[tuple[float, int]], int]  # ([(score, docnum), ...] best first, total)


class Searcher:
    """Runs queries against the committed index (read-only); safe to share between threads."""

    def __init__(
        self,
        index_dir: Path,
        thesaurus: Thesaurus | None = None,
        usequality: bool = True,
        ranking: str = "peculiarity",
        weighting_options: dict[str, Any] | None = None,
        cache_queries: int = CACHE_QUERIES,
    ) -> None:
        self._ix = open_index(index_dir, create=False)
        self._searcher = self._ix.searcher(weighting=Peculiarity())
        self._lock = threading.RLock()
        self._cache: OrderedDict[tuple, Ranked] = OrderedDict()
        self._stats: dict[tuple, tuple] = {}  # whole-index word statistics, until refresh
        self._checked = time.monotonic()
        self._thesaurus = thesaurus or default_thesaurus
        # False: Whoosh's matcher path without block skipping, the reference the fast paths
        # (term-at-a-time word queries, block skipping) are tested against.
        self.usequality = usequality
        self._ranking = ranking  # "peculiarity", or "bm25f" (Whoosh's stock model, to compare)
        self._options = dict(weighting_options or {})  # Peculiarity() keyword arguments
        self._cache_queries = cache_queries

    def search(
        self,
        query: str,
        page: int = 1,
        per_page: int = 10,
        expand: bool = False,
        site: str | None = None,
    ) -> SearchResults:
        """One page of results for `query`; raises `QueryError` for a query that cannot run."""
        started = time.perf_counter()
        if page < 1 or per_page < 1:
            raise QueryError("Page numbers and page sizes start at 1.")
        per_page = min(per_page, MAX_PER_PAGE)
        parsed = parse(query, site)
        if expand:
            expand_query(parsed, self._thesaurus)
        with self._lock:
            if time.monotonic() - self._checked > REFRESH_INTERVAL:
                self.refresh()
            ranked, total = self._ranked(parsed, page * per_page)
            first = (page - 1) * per_page
            best = ranked[0][0] if ranked else 0.0
            hits = [
                self._hit(first + i + 1, score, docnum, best, parsed)
                for i, (score, docnum) in enumerate(ranked[first : first + per_page])
            ]
        took = (time.perf_counter() - started) * 1000
        return SearchResults(" ".join(query.split())[:1000], total, took, page, per_page, hits)

    def _ranked(self, parsed: ParsedQuery, needed: int) -> Ranked:
        key = (
            tuple(parsed.words),
            tuple(map(tuple, parsed.phrases)),
            tuple(map(tuple, parsed.excluded)),
            parsed.site,
            tuple(sorted(parsed.expansions)),
        )
        cached = self._cache.get(key)
        if cached is not None and (len(cached[0]) >= needed or len(cached[0]) == cached[1]):
            self._cache.move_to_end(key)
            return cached
        weights, n_words = parsed.weights()
        searcher = self._searcher
        limit = max(needed, CACHE_DEPTH)
        if self._ranking == "bm25f":
            model: WeightingModel = BM25F()
        else:
            model = Peculiarity(weights, n_words, stats=self._stats, **self._options)
        fast = rank_words(searcher, parsed, model, limit) if self.usequality else None
        if fast is not None:
            return self._remember(key, fast)
        collector = TopCollector(limit=limit, usequality=self.usequality)
        context = searcher.context(weighting=model)
        query = to_whoosh(parsed)
        searcher.search_with_collector(query, collector, context=context)
        ranked = [(score, docnum) for score, docnum in collector.results().top_n]
        full = len(ranked) >= collector.limit
        total = count_matches(searcher, parsed, query) if full else len(ranked)
        return self._remember(key, (ranked, total))

    def _remember(self, key: tuple, ranked: Ranked) -> Ranked:
        self._cache[key] = ranked
        while len(self._cache) > self._cache_queries:
            self._cache.popitem(last=False)
        return ranked

    def _hit(self, rank: int, score: float, docnum: int, best: float, parsed: ParsedQuery) -> Hit:
        fields = self._searcher.stored_fields(docnum)
        normalized = round(1000 * score / best) if best > 0 else 0
        return Hit(
            rank=rank,
            score=normalized,
            doc_id=int(fields["doc_id"]),
            url=fields.get("url", ""),
            title=fields.get("title", ""),
            snippet=snippet(fields.get("text", ""), parsed.highlight_words),
        )

    def refresh(self) -> None:
        """Pick up new commits (cheap when there are none); drops the result cache."""
        with self._lock:
            self._checked = time.monotonic()
            if not self._searcher.up_to_date():
                # Not Whoosh's refresh(): whoosh-reloaded 2.7.5 `reader(reuse=...)` keeps the
                # segments a merge replaced, so merged documents would count twice.
                old, self._searcher = self._searcher, self._ix.searcher(weighting=Peculiarity())
                old.close()
                self._cache.clear()
                self._stats.clear()

    def doc_count(self) -> int:
        with self._lock:
            return self._searcher.doc_count()

    def size_bytes(self) -> int:
        """Bytes the index's files take on disk."""
        storage = self._ix.storage
        return sum(storage.file_length(name) for name in storage.list())

    def close(self) -> None:
        with self._lock:
            self._searcher.close()
            self._ix.close()

    def __enter__(self) -> Searcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_searcher(index_dir: Path, **kwargs: object) -> Searcher:
    """A read-only searcher over the index in `index_dir`.

    Raises FileNotFoundError when `index_dir` holds no index yet (open a writer first).
    """
    return Searcher(index_dir, **kwargs)  # type: ignore[arg-type]
