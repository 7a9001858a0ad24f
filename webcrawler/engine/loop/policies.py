"""The engine's small policy interfaces: which links to follow, what to do with a page.

The crawl loop asks, and never decides these itself, so later work plugs in
without rewriting it: a personal crawler's `should_visit` / `visit` (SPHINX),
an index sink, an incremental recrawl.

- `Scope.should_visit(url, depth)`: follow this link? (include / exclude
  patterns, depth, URL length, link loops (traps.py), file types the index
  cannot use or `--types` leaves out (where the URL's extension names them; the agent
  checks the Content-Type of the others), and with deny_private IP literals that are not public, on servers
  that neither the seeds' hosts nor an include pattern name.)
- `DocumentSink`: receives every retrieved document; `commit` is called right
  after each database commit, `close` at the end (`abort` instead when the disk is full).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from webcrawler.engine.loop.traps import loop_in
from webcrawler.protocol.addresses import Exempt, refused_literal
from webcrawler.protocol.filetypes import unindexable_url
from webcrawler.protocol.messages import DOCUMENT_TYPES, Document, Reason
from webcrawler.protocol.urls import outside_patterns, split

MAX_VERDICTS = 100_000  # URLs whose verdict a Scope remembers (a few MB), forgotten all at once
_UNJUDGED = "unjudged"


class Scope:
    """The part of the Web a crawl may visit."""

    def __init__(self, include: Sequence[str] = (), exclude: Sequence[str] = (),
                 max_depth: int = 50, max_url_length: int = 2048, deny_private: bool = False,
                 allowed_hosts: Sequence[str] = (), trap_repeats: int = 0,
                 types: tuple[str, ...] = DOCUMENT_TYPES) -> None:
        self.include = [re.compile(p) for p in include]
        self.exclude = [re.compile(p) for p in exclude]
        self.max_depth = max_depth
        self.max_url_length = max_url_length
        self.deny_private = deny_private
        self.exempt = Exempt(allowed_hosts, include)
        self.trap_repeats = trap_repeats
        self.types = types  # the kinds of document fetched (--types)
        self._sitemaps: set[str] = set()  # URLs known to be sitemaps: read whatever their extension
        self._verdicts: dict[str, str | None] = {}  # URL -> why_not's reason but for the depth

    def admit_sitemap(self, url: str) -> None:
        """`url` is a sitemap (a robots.txt or a sitemap index named it): admitted whatever its
        extension says (sitemap.xml.gz, a .txt list)."""
        self._sitemaps.add(url)

    def is_sitemap(self, url: str) -> bool:
        return url in self._sitemaps

    def should_visit(self, url: str, depth: int) -> bool:
        return self.why_not(url, depth) is None

    def why_not(self, url: str, depth: int) -> str | None:
        """None when `url` (found `depth` links from a seed) may be visited, else a reason code.

        All but the depth depends on the URL alone, and a site's menus repeat the same links on
        every page: the URL's verdict is remembered (`MAX_VERDICTS` of them; a sitemap admitted
        later still passes)."""
        if depth > self.max_depth:
            return Reason.EXCLUDED
        reason = self._verdicts.get(url, _UNJUDGED)
        if reason is _UNJUDGED:
            if len(self._verdicts) >= MAX_VERDICTS:
                self._verdicts.clear()
            reason = self._verdicts[url] = self._url_reason(url)
        if reason == Reason.UNINDEXABLE and url in self._sitemaps:
            return None  # by the extension: the type itself is the agent's to check
        return reason

    def _url_reason(self, url: str) -> str | None:
        if outside_patterns(url, self.max_url_length, self.include, self.exclude):
            return Reason.EXCLUDED
        if self.trap_repeats and loop_in(split(url)[1], self.trap_repeats):
            return Reason.TRAP
        if self.deny_private and self.refuses_server(split(url)[0]):
            return Reason.PRIVATE
        if unindexable_url(url, self.types):
            return Reason.UNINDEXABLE
        return None

    def refuses_server(self, origin: str) -> bool:
        """Is `origin` (``scheme://host[:port]``) an IP literal that deny_private refuses?"""
        return self.deny_private and refused_literal(origin, self.exempt)


class DocumentSink(Protocol):
    """What happens to a retrieved document besides the database (e.g. the full-text index)."""

    def add(self, doc_id: int, document: Document) -> None:
        """A document to index (not called for noindex pages or duplicates)."""

    def remove(self, doc_id: int) -> None:
        """A document that should no longer be found (gone, or now noindex)."""

    def commit(self) -> None:
        """The database has just committed: make what was added durable too."""

    def close(self) -> None:
        """The crawl is over: flush and release."""

    def abort(self) -> None:
        """The disk is full: release without writing anything more (the crawl resumes later)."""



@runtime_checkable
class ResendingSink(DocumentSink, Protocol):
    """A sink that can be sent indexed documents again (the index's outbox): link refresh
    (pipeline/link_refresh.py) runs with one, on either store."""

    def resend(self, doc_ids: Sequence[int]) -> None:
        """Index these documents again with the next batch (their in-links changed)."""

class NullSink:
    """Keeps nothing: for crawls that only build the link graph."""

    def add(self, doc_id: int, document: Document) -> None:
        pass

    def remove(self, doc_id: int) -> None:
        pass

    def commit(self) -> None:
        pass

    def close(self) -> None:
        pass

    def abort(self) -> None:
        pass
