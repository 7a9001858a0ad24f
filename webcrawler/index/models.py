"""The index's public value types: what goes in, what comes out, what can go wrong.

Plain frozen dataclasses of plain types, so they pickle across the engine's
process boundary and print well. Nothing here imports whoosh.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Protocol, Self

from webcrawler.errors import DataDamaged, UsageError


class QueryError(UsageError, ValueError):
    """The query cannot be run. The message is for the user: short, clear, no internals."""


@dataclass(frozen=True, slots=True)
class IndexedDocument:
    """One retrieved document as the index sees it.

    `doc_id` is the database's documents.id and the document's unique key in
    the index: adding a document with an id already present replaces it.
    `host` is the URL's host, with ":port" when the URL has one; `site:` matches
    the host with and without the port, and any parent domain of a host name.
    `language` is an ISO 639-1 code ("": not known yet, the writer detects it), `kind` the
    document's type for the `type:` facet ("html", "pdf", ...; "" is "html").
    `anchors` are the texts of links to the document from other servers, `site_anchors`
    those from its own server (navigation), and `inlinks` and `outlinks` count the pages
    linking to it and those it links to (the ranking's prior), as the links table knows
    them when the document is indexed. `headings` are the texts of its h1-h3 headings.
    """

    doc_id: int
    url: str
    title: str
    text: str
    host: str = ""
    language: str = ""
    kind: str = ""
    anchors: tuple[str, ...] = ()
    site_anchors: tuple[str, ...] = ()
    inlinks: int = 0
    outlinks: int = 0
    headings: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Hit:
    """One result. `score` is the relevance normalised to 1000 for the query's best document
    (over the whole result list, not per page). `snippet` is HTML-safe: escaped text with the
    query's words wrapped in <b>..</b>. `site` is the document's host; `more` is True on
    the last hit of a site on its page when the site has more matches than the page shows;
    `kind` is the kind of document (html, pdf, docx, odt, text: the `type:` facet's value)."""

    rank: int
    score: int
    doc_id: int
    url: str
    title: str
    snippet: str
    site: str = ""
    more: bool = False
    kind: str = "html"


@dataclass(frozen=True, slots=True)
class SearchResults:
    """One page of results. `total` counts every document that matched the query; `facets`
    counts them by "site", "type" and "language": (value, count) pairs, most first.
    `suggestion` is the query with its typos corrected (None: nothing to correct);
    `expansions` are the words the thesaurus added, when asked to."""

    query: str
    total: int
    took_ms: float
    page: int
    per_page: int
    hits: list[Hit] = field(default_factory=list)
    suggestion: str | None = None
    expansions: tuple[str, ...] = ()
    facets: dict[str, list[tuple[str, int]]] = field(default_factory=dict)


REINDEX = "rebuild it from the database with `webcrawler index --reindex`"


class IndexDamaged(DataDamaged):
    """The index in `path` cannot be used as it is: damaged, or written in another format.
    The message names the file and says what to do (rebuild with `webcrawler index --reindex`)."""

    def __init__(self, path: object, reason: str, remedy: str = REINDEX) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"the index at {path} {reason}: {remedy}")


class SearchIndex(Protocol):
    """What `open_searcher` gives: one index (`Searcher`) or every shard of one
    (`ShardedSearcher`), searched alike; safe to share between threads."""

    def search(self, query: str, page: int = 1, per_page: int = 10, expand: bool = False,
               site: str | None = None) -> SearchResults: ...

    def suggest(self, text: str, n: int) -> list[str]: ...

    def frequent_title_words(self) -> tuple[str, ...]: ...

    def warm(self) -> threading.Thread: ...

    def refresh(self) -> None: ...

    def doc_count(self) -> int: ...

    def size_bytes(self) -> int: ...

    def close(self) -> None: ...

    def __enter__(self) -> Self: ...

    def __exit__(self, *exc: object) -> None: ...
