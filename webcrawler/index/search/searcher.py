"""The read side: one `Searcher` per query server, shared by its threads.

A lock serialises the Whoosh searcher (its readers share file handles; with the
GIL there is little to gain from more). Word-only queries run term at a time
(`wordsearch.py`: exact top N and exact count in one pass); phrases, site: and
exclusions run through Whoosh's matchers with block-max skipping, and are
counted by walking their matches (the facets need every match anyway). Each
query's ranked list - the top max(page * per_page, `CACHE_DEPTH`) (score, docnum) pairs and the exact total -
is cached until the index changes, so repeated queries cost only the page's
stored fields. Scores are normalised against the query's best document,
whatever the page. The top of a query's list is scored again for the proximity of its
words (`proximity.py`). Every query also counts its matches by site, type and language
(`facets.py`, from per-document arrays, on either path), adds the other forms of
its words (`stemming.py`), and its results are grouped by site (`grouping.py`,
over a ranked list `grouping.DEPTH` times the page's depth) unless it names a site.

New commits: `search()` looks for one at most every `REFRESH_INTERVAL` seconds
(a look costs a directory listing). When there is one, a background thread opens
a searcher on it and reads what its first queries would read (each segment's
document lengths, link priors, facet columns and stored fields' offsets: Whoosh opens a
new reader for every segment of every commit), then swaps it in between two queries;
until then queries run on the previous commit (opening in line made the query that found a commit wait
for the open). `refresh()` is the blocking form, for callers that must see a
commit they know of. The speller and completer (`lexicon.py`) follow the commits this
searcher opens (`suggest()` looks too). This module never writes to the index.

One index's ranking is public - `holding()`, then `statistics`, `forms`, `rank`, `doc_ids`,
`sites`, `proximity_factors` and
`hit` - so that `ShardedSearcher` (sharded.py) composes it over the shards of an index
rather than reaching inside.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from whoosh.collectors import TopCollector
from whoosh.reading import SegmentReader
from whoosh.scoring import BM25F, WeightingModel
from whoosh.searching import Searcher as WhooshSearcher

from webcrawler.index import background, heap
from webcrawler.index.format import stored, vectors
from webcrawler.index.format.opening import open_index
from webcrawler.index.format.schema import CONTENT
from webcrawler.index.models import Hit, QueryError, SearchResults
from webcrawler.index.search import boundfile, facets, grouping, prior, proximity
from webcrawler.index.search.filtered import rank_filtered
from webcrawler.index.search.snippets import snippet
from webcrawler.index.search.weighting import Collection, Peculiarity
from webcrawler.index.search.wordsearch import Ranked, rank_words
from webcrawler.index.words import cooccurrence, stemming
from webcrawler.index.words.lexicon import Lexicon
from webcrawler.index.words.query import ParsedQuery, parse, to_whoosh
from webcrawler.index.words.query import expand as expand_query
from webcrawler.index.words.spelling import correct
from webcrawler.index.words.thesaurus import Thesaurus, default_thesaurus

log = logging.getLogger(__name__)

CACHE_DEPTH = 10  # ranked results collected at least (a deeper page collects more)
CACHE_QUERIES = 512
CACHE_FORMS = 8192  # words whose other forms are remembered until the vocabulary changes
CACHE_CONTEXTS = 64  # completion contexts (the earlier words' documents) kept per commit
REFRESH_INTERVAL = 0.5
MAX_PER_PAGE = 100



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
        stemming: bool = True,
        per_site: int = grouping.PER_SITE,
        proximity: bool = True,
        spelling: bool = True,
    ) -> None:
        heap.keep_freed_memory()  # a query's work arrays reused, not faulted in again
        self._ix = open_index(index_dir, create=False)
        self._lexicon = Lexicon(self._ix)  # speller and completer (lexicon.py)
        self.spelling = spelling  # False: typed words match only themselves
        self._searcher = self._open()
        self._lexicon.notice(_generation(self._searcher))
        self._lock = threading.RLock()
        self._cache: OrderedDict[tuple, Ranked] = OrderedDict()
        self._stats: dict[tuple, tuple] = {}  # whole-index word statistics, until refresh
        self._checked = time.monotonic()
        self._opening: threading.Thread | None = None  # the refresh thread, while it opens
        self._closed = False
        self._thesaurus = thesaurus or default_thesaurus
        # False: Whoosh's matcher path without block skipping, the reference the fast paths
        # (term-at-a-time word queries, block skipping) are tested against.
        self.usequality = usequality
        self._ranking = ranking  # "peculiarity", or "bm25f" (Whoosh's stock model, to compare)
        self._options = dict(weighting_options or {})  # Peculiarity() keyword arguments
        self._cache_queries = cache_queries
        self.stemming = stemming  # False: only the forms typed (the relevance formula's tests)
        self.per_site = per_site  # results of one site in a page's round; 0: no grouping
        self.proximity = proximity and ranking == "peculiarity"  # BM25F: Whoosh's, as it is
        self._forms: dict[str, list[str]] = {}  # word -> its other forms, per vocabulary
        self._forms_generation = -2  # the vocabulary the remembered forms come from
        self._languages: list[str] | None = None  # languages the commit holds, until refresh
        self._contexts: dict[tuple, cooccurrence.Segments] = {}  # completion contexts, until refresh

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
        with background.foreground():  # the lexicon's rebuild waits meanwhile
            return self._search(query, page, per_page, expand, site, started)

    def _search(self, query: str, page: int, per_page: int, expand: bool, site: str | None,
                started: float) -> SearchResults:
        parsed, per_page = self.parse_query(query, page, per_page, expand, site)
        with self.holding():
            stemming.add_forms(parsed, self.forms)
            ranked, total, counts = self.rank(parsed, depth(parsed, page * per_page, self.per_site))
            top = ranked[: proximity.DEPTH]
            ranked = proximity.rescore(top, self.proximity_factors(parsed, [d for _s, d in top])) + \
                ranked[proximity.DEPTH :]
            best = ranked[0][0] if ranked else 0.0
            items = [(score, docnum, site) for (score, docnum), site
                     in zip(ranked, self.sites([d for _s, d in ranked]), strict=True)]
            shown = on_page(parsed, items, page, per_page, counts, self.per_site)
            hits = [self.hit(rank, score, docnum, best, parsed, site, more)
                    for rank, (score, docnum, site), more in shown]
        took = (time.perf_counter() - started) * 1000
        return SearchResults(" ".join(query.split())[:1000], total, took, page, per_page, hits,
                             facets=facets.listed(counts), suggestion=parsed.suggestion,
                             expansions=tuple(parsed.thesaurus_words))

    def forms(self, word: str) -> list[str]:
        """Other forms of `word` in the index's vocabulary (lock held; `stemming.py`),
        remembered until the lexicon reads a newer vocabulary."""
        if not self.stemming:
            return []
        vocabulary = self._lexicon.tools().vocabulary
        if vocabulary.generation != self._forms_generation:
            self._forms.clear()
            self._forms_generation = vocabulary.generation
        found = self._forms.get(word)
        if found is None:
            if self._languages is None:
                self._languages = _languages(self._searcher)
            if len(self._forms) >= CACHE_FORMS:  # bounded: words are what strangers type
                self._forms.clear()
            found = self._forms[word] = stemming.forms(vocabulary, word, self._languages)
        return found

    def parse_query(self, query: str, page: int, per_page: int, expand: bool,
                    site: str | None) -> tuple[ParsedQuery, int]:
        """(the parsed query, the page size allowed); raises QueryError."""
        if page < 1 or per_page < 1:
            raise QueryError("Page numbers and page sizes start at 1.")
        parsed = parse(query, site)
        if expand:
            expand_query(parsed, self._thesaurus)
        if self.spelling:
            correct(parsed, self._lexicon.tools().speller, query)
        return parsed, min(per_page, MAX_PER_PAGE)

    def warm(self) -> threading.Thread:
        """Start building the speller and completer now, in a thread (returned), rather than
        in the first query that needs them (`lexicon.Lexicon.warm`)."""
        return self._lexicon.warm(with_speller=self.spelling)

    def suggest(self, text: str, n: int) -> list[str]:
        """At most `n` completions of the half-typed query `text` (completion.py)."""
        with background.foreground():
            self._look_without_waiting()
            return self._lexicon.tools().completer.complete(text, n, self._together)

    def _together(self, earlier: list[str], candidates: list[str], limit: int) -> list[str]:
        """The first `limit` candidates found in a document beside the earlier words
        (cooccurrence.py)."""
        with self._lock:
            key = tuple(earlier)
            segments = self._contexts.get(key)
            if segments is None:  # kept for the next letters typed, until the next commit
                if len(self._contexts) >= CACHE_CONTEXTS:
                    self._contexts.clear()
                segments = self._contexts[key] = cooccurrence.segments_of(self._searcher, earlier)
            return cooccurrence.together(segments, candidates, limit)

    def frequent_title_words(self) -> tuple[str, ...]:
        """The words most titles of the index hold, most frequent first (may be empty)."""
        return self._lexicon.tools().completer.vocabulary.title_words

    # --- one index's ranking, which `ShardedSearcher` composes over shards: call these
    # inside `holding()`, so that no new commit is swapped in between them.

    @contextlib.contextmanager
    def holding(self) -> Iterator[Searcher]:
        """This index locked, on the newest commit opened so far (a newer one may start
        opening in the background): `statistics`, `rank`, `doc_ids` and `hit` agree."""
        with self._lock:
            self._look_for_commits()
            yield self

    def rank(self, parsed: ParsedQuery, needed: int, collection: Collection | None = None,
             stamp: tuple = ()) -> Ranked:
        """The query's ranked list, at least `needed` deep. A shard of a sharded index is
        given the whole `collection`'s statistics, and their `stamp` (they change with
        other shards)."""
        key = (
            tuple(parsed.words),
            tuple(map(tuple, parsed.phrases)),
            tuple(map(tuple, parsed.excluded)),
            parsed.site,
            tuple(sorted(parsed.expansions)),
            tuple(sorted(parsed.filters.items())),
            tuple(sorted(parsed.variants)),
            stamp,
        )
        cached = self._cache.get(key)
        if cached is not None and (len(cached[0]) >= needed or len(cached[0]) == cached[1]):
            self._cache.move_to_end(key)
            return cached
        weights, n_words = parsed.weights()
        searcher = self._searcher
        limit = max(needed, CACHE_DEPTH)
        if not parsed.words:  # filters alone: their documents, by link prior
            return self._remember(key, rank_filtered(searcher, parsed, limit))
        if self._ranking == "bm25f":
            model: WeightingModel = BM25F()
        else:
            model = Peculiarity(weights, n_words, stats=self._stats, collection=collection,
                                **self._options)
        fast = rank_words(searcher, parsed, model, limit) if self.usequality else None
        if fast is not None:
            return self._remember(key, fast)
        context = searcher.context(weighting=model)
        query = to_whoosh(parsed)
        collector = TopCollector(limit=limit, usequality=self.usequality)
        try:
            searcher.search_with_collector(query, collector, context=context)
        except IndexError:  # whoosh-reloaded 2.7.5: a union's block skip can step past a list's
            log.debug("query %r: Whoosh's block skipping failed, ranked without it", parsed.words)
            collector = TopCollector(limit=limit, usequality=False)  # end; the same, unskipped
            searcher.search_with_collector(query, collector, context=context)
        ranked = [(score, docnum) for score, docnum in collector.results().top_n]
        # every match, for the facets: a short top list already holds them all
        matched = [d for _s, d in ranked] if len(ranked) < limit else list(searcher.docs_for_query(query))
        return self._remember(key, (ranked, len(matched), facets.count_global(searcher, matched)))

    def statistics(self, words: list[str]) -> tuple[int, int, dict[bytes, float]]:
        """This index's part of the collection statistics of `words`: total
        content length, documents (deleted ones too, as Whoosh's average length counts
        them) and each word's frequency: what `Peculiarity` reads of the whole index."""
        searcher = self._searcher
        frequencies = {w.encode(): searcher.frequency(CONTENT, w.encode()) for w in words}
        return searcher.field_length(CONTENT), searcher.doc_count_all(), frequencies

    def doc_ids(self, docnums: list[int]) -> list[int]:
        """The doc_ids of documents by number in the commit queries run on."""
        if not docnums:
            return []
        column = self._searcher.reader().column_reader("doc_id")
        return [int(column[n]) for n in docnums]

    def _remember(self, key: tuple, ranked: Ranked) -> Ranked:
        self._cache[key] = ranked
        while len(self._cache) > self._cache_queries:
            self._cache.popitem(last=False)
        return ranked

    def hit(self, rank: int, score: float, docnum: int, best: float, parsed: ParsedQuery,
            site: str = "", more: bool = False) -> Hit:
        """The result at `rank` (1 first), its score normalised against the `best` one."""
        fields = self._searcher.stored_fields(docnum)
        normalized = round(1000 * score / best) if best > 0 else 0
        return Hit(
            rank=rank,
            score=normalized,
            doc_id=int(fields["doc_id"]),
            url=fields.get("url", ""),
            title=fields.get("title", ""),
            snippet=snippet(fields.get("text", ""), parsed.highlight_words),
            site=site,
            more=more,
            kind=facets.values_of(self._searcher, "kind", [docnum])[0] or "html",
        )

    def proximity_factors(self, parsed: ParsedQuery, docnums: list[int]) -> list[float]:
        """The proximity factors of documents by number (lock held; `proximity.py`)."""
        if not self.proximity:
            return [1.0] * len(docnums)
        return proximity.factors(self._searcher, parsed, docnums)

    def sites(self, docnums: list[int]) -> list[str]:
        """The site of documents by number in the commit queries run on (lock held)."""
        return facets.site_of(self._searcher, docnums)

    def refresh(self) -> None:
        """Pick up new commits now (cheap when there are none); drops the result cache."""
        replaced = None
        with self._lock:
            self._checked = time.monotonic()
            if not self._searcher.up_to_date():
                replaced = self._swap(self._open())
        if replaced is not None:
            replaced.close()

    def _look_without_waiting(self) -> None:
        """Look for a new commit (for the lexicon, which follows this searcher's) unless a
        query holds the lock: it is looking itself."""
        if self._lock.acquire(blocking=False):
            try:
                self._look_for_commits()
            finally:
                self._lock.release()

    def _look_for_commits(self) -> None:
        """At most every REFRESH_INTERVAL: if there is a newer commit, start opening it in a
        thread (unless one is opening already). Lock held."""
        if time.monotonic() - self._checked <= REFRESH_INTERVAL:
            return
        self._checked = time.monotonic()
        if self._opening is not None or self._closed:
            return
        try:
            if self._searcher.up_to_date():
                return
        except OSError as error:  # the writer replaced the TOC as we read it: look again later
            log.debug("could not check for a new commit: %s", error)
            return
        self._opening = threading.Thread(target=self._open_and_swap, name="index-refresh", daemon=True)
        self._opening.start()

    def _open_and_swap(self) -> None:
        try:
            fresh = self._open()
        except Exception as error:  # a merge deleted a segment while it opened: next look retries
            log.warning("could not open the index's newest commit (will retry): %s", error)
            fresh = None
        with self._lock:
            self._opening = None
            if fresh is None:
                return
            if self._closed or _generation(fresh) <= _generation(self._searcher):
                replaced = fresh  # closing, or refresh() got a newer commit meanwhile
            else:
                replaced = self._swap(fresh)
        replaced.close()  # not under the lock: unmapping a commit's segments takes milliseconds

    def _open(self) -> WhooshSearcher:
        """A searcher on the newest commit, with each segment's document lengths read.

        Not Whoosh's refresh(): whoosh-reloaded 2.7.5 `reader(reuse=...)` keeps the
        segments a merge replaced, so merged documents would count twice."""
        fresh = self._ix.searcher(weighting=Peculiarity())
        for sub, _offset in fresh.leaf_searchers():
            reader = sub.reader()
            if isinstance(reader, SegmentReader):  # a reader per segment and commit: read
                vectors.lengths(reader, CONTENT)  # what each query reads of it, here
                prior.factors(reader)
                facets.warm(reader)
                stored.open_stored(reader)  # its directory of stored documents, remembered
                boundfile.warm(reader)  # its window bounds and block tables, remembered
        return fresh

    def _swap(self, fresh: WhooshSearcher) -> WhooshSearcher:
        """Make `fresh` the searcher queries use (lock held); returns the one it replaces,
        for the caller to close once it has let go of the lock (no query can reach it then:
        queries hold the lock while they use a searcher)."""
        old, self._searcher = self._searcher, fresh
        self._lexicon.notice(_generation(fresh))
        self._cache.clear()
        self._stats.clear()
        self._languages = None
        self._contexts = {}
        return old

    def doc_count(self) -> int:
        """Documents in the commit queries run on (a newer one is opened as search() would)."""
        with self._lock:
            self._look_for_commits()
            return self._searcher.doc_count()

    def size_bytes(self) -> int:
        """Bytes the index's files take on disk."""
        storage = self._ix.storage
        return sum(storage.file_length(name) for name in storage.list())

    def close(self) -> None:
        with self._lock:
            self._closed = True
            opening = self._opening
        if opening is not None:
            opening.join(timeout=60)
        self._lexicon.close()
        with self._lock:
            self._searcher.close()
            self._ix.close()

    def __enter__(self) -> Searcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def depth(parsed: ParsedQuery, needed: int, per_site: int) -> int:
    """How many ranked results a page that ends at result `needed` is drawn from."""
    return needed if parsed.site or not per_site else needed * grouping.DEPTH


def on_page(parsed: ParsedQuery, items: list[tuple[float, Any, str]], page: int, per_page: int,
            counts: facets.Counts, per_site: int) -> list[tuple[int, tuple[float, Any, str], bool]]:
    """(rank, item, more from its site?) of the page's items; `items` are (score, ...,
    site), best first. Grouped by site (`per_site` a round) unless the query names one:
    the grouping picks which results a page shows, and the page shows them best first
    (a site's second round, on the page once other sites ran out, is not listed below
    lower scores: results read 1000, 0569, ..., 0405, ..., 0029)."""
    first = (page - 1) * per_page
    if not parsed.site and per_site:
        items = grouping.group(items, [site for *_rest, site in items], per_site)
        shown = sorted(items[first : first + per_page], key=lambda item: -item[0])  # stable
    else:
        shown = items[first : first + per_page]
    site_counts: dict[str, int] = dict(counts.get("site", {})) if not parsed.site else {}
    more = grouping.more_from([site for *_rest, site in shown], site_counts)
    return [(first + i + 1, item, flag) for i, (item, flag) in enumerate(zip(shown, more, strict=True))]


def _languages(searcher: WhooshSearcher) -> list[str]:
    """The languages detected in a commit's documents (those a stemmer exists for)."""
    found: set[str] = set()
    for sub, _offset in searcher.leaf_searchers():
        reader = sub.reader()
        column = facets.column(reader, "lang") if isinstance(reader, SegmentReader) else None
        if column is not None:
            found.update(column[1])
    return sorted(language for language in found if stemming.stemmer(language) is not None)


def _generation(searcher: WhooshSearcher) -> int:
    """The commit a searcher reads (-1: an index with no segments, whose reader says None)."""
    generation = searcher.reader().generation()
    return -1 if generation is None else generation

