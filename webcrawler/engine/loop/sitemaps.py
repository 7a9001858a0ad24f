"""Sitemaps in the crawl: which URLs are sitemaps, and what they found.

Pages that no link reaches are often listed in the site's sitemaps (sitemaps.org). A
server's sitemaps are those its robots.txt names in `Sitemap:` lines, else
`/sitemap.xml`; they are queued as documents of depth 0 once its robots.txt is in, so
robots.txt rules, the crawl's scope and politeness hold for them as for any page. The
agent reads a sitemap (`Retrieve(kind="sitemap")`, agents/sitemap.py) and answers a
noindex document whose links are the sitemap's URLs: the crawl loop stores those as
it stores any page's links, inside the scope. The sitemaps a sitemap index names are
sitemaps too, down to `MAX_NESTING` levels. A URL whose name says sitemap
(`sitemap.xml`, `sitemap-2.txt.gz`) is read as one even when this process did not
see it named (a resumed crawl).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from webcrawler.engine.loop.policies import Scope
from webcrawler.engine.records import FrontierEntry, ServerState
from webcrawler.protocol.filetypes import looks_like_sitemap
from webcrawler.protocol.messages import SITEMAP_TYPE, Document, Reason, RobotsFile
from webcrawler.protocol.urls import try_normalize

MAX_NESTING = 3  # sitemap index -> sitemap (the protocol) and one level of slack
MAX_NAMED = 100  # Sitemap: lines read from one robots.txt


class Sitemaps:
    """Owned by the crawl loop: told of robots.txt answers and of fetched documents."""

    def __init__(self, enabled: bool, scope: Scope, max_url_length: int,
                 queue: Callable[[str, int], int]) -> None:
        self.enabled = enabled
        self.scope = scope
        self.max_url_length = max_url_length
        self._queue = queue
        self._servers: set[str] = set()
        self.files = 0  # sitemaps read
        self.urls = 0  # URLs they listed (pages, not sitemaps)

    def robots_answered(self, server: ServerState, answer: object) -> None:
        """Queue the sitemaps `server`'s robots.txt names, or its /sitemap.xml (once a run)."""
        if not self.enabled or server.origin in self._servers or not _answered(answer):
            return  # robots.txt unavailable: asked again later, and so are its sitemaps
        self._servers.add(server.origin)
        named = named_sitemaps(answer, server.origin, self.max_url_length)
        if named or _found(answer):
            self._add(named or [server.origin + "/sitemap.xml"], 0)

    def kind_of(self, url: str) -> str:
        """The `Retrieve` kind for `url`: "sitemap" or "document"."""
        if self.enabled and (self.scope.is_sitemap(url) or looks_like_sitemap(url)):
            return "sitemap"
        return "document"

    def found(self, entry: FrontierEntry, doc: Document) -> None:
        """A fetched document: when it is a sitemap, count it and remember the sitemaps it names."""
        if doc.content_type != SITEMAP_TYPE:
            return
        self.files += 1
        self.urls += len(doc.links) - len(doc.sitemaps)
        if entry.depth + 1 < MAX_NESTING:
            self._add(doc.sitemaps, entry.depth + 1)

    def _add(self, urls: Sequence[str], depth: int) -> None:
        """Queue sitemaps that the scope admits (a .gz sitemap included)."""
        for url in urls:
            if self.scope.why_not(url, depth) in (None, Reason.UNINDEXABLE):
                self.scope.admit_sitemap(url)
                self._queue(url, depth)

    def line(self) -> str:
        return f"sitemaps {self.files} read, {self.urls} URLs listed" if self.files else ""


def _answered(answer: object) -> bool:
    """Did the server answer robots.txt (any status but 5xx)? RFC 9309 retries the others."""
    status = getattr(answer, "status", None)
    return status is not None and status < 500


def _found(answer: object) -> bool:
    """A robots.txt that exists: only then is /sitemap.xml guessed. A server without one
    seldom keeps a sitemap, and the guess would cost every such server a request (a 404)."""
    status = getattr(answer, "status", None)
    return status is not None and 200 <= status < 300


def named_sitemaps(answer: object, origin: str, max_url_length: int) -> list[str]:
    """The URLs of robots.txt's `Sitemap:` lines (a 2xx robots.txt only), normalised."""
    if not isinstance(answer, RobotsFile) or not answer.status or not 200 <= answer.status < 300:
        return []
    found: list[str] = []
    for line in answer.body.splitlines():
        key, colon, value = line.partition(":")
        if colon and key.strip().lower() == "sitemap":
            url = try_normalize(value.split("#", 1)[0].strip(), origin + "/", max_url_length)
            if url is not None and url not in found:
                found.append(url)
        if len(found) >= MAX_NAMED:
            break
    return found
