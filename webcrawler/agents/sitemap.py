"""Read a sitemap (sitemaps.org): the page URLs it lists, and the sitemaps an index names.

Sites list in sitemaps the pages no link leads to. A sitemap is XML (`<urlset>` of
`<url><loc>`, or a `<sitemapindex>` of `<sitemap><loc>`), gzipped or not, or plain
text with one URL a line. The protocol's limits hold: at most 50,000 URLs and 50 MB
uncompressed a file; a file over the size limit is refused, URLs past the count are
dropped (and counted): every entry read counts, a URL listed again too. Each page's
`lastmod` (a W3C datetime) is kept for the incremental crawl (a newer one makes a stored
page due); its `priority` (0.0-1.0, 0.5 when absent) orders the pages, the sitemap's own
order breaking ties, so that a crawl that takes URLs in the order it found them fetches the
site's first choices first.
The XML is read by lxml's parser (into a target: no tree) without entities, DTDs, network or
huge-tree mode, and nothing is kept of an entry once read, nor of whatever else a file holds,
so a hostile file costs at most its 50 MB.
URLs are normalised as links are (tracking parameters dropped). Pure functions: the
agent fetches, the engine decides what to do with the URLs.
"""

from __future__ import annotations

import io
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from lxml import etree

from webcrawler.errors import FetchError
from webcrawler.protocol.messages import SITEMAP_TYPE
from webcrawler.protocol.urls import ParamNames, strip_params, try_normalize

MAX_URLS = 50_000
MAX_BYTES = 50 * 1024 * 1024
_CHUNK = 1 << 16
__all__ = ["MAX_BYTES", "MAX_URLS", "SITEMAP_TYPE", "Sitemap", "SitemapError", "inflate", "parse",
           "read_entries", "w3c_datetime"]


class SitemapError(FetchError):
    """Not a sitemap that can be read; str(error) says why."""


DEFAULT_PRIORITY = 0.5  # the protocol's


@dataclass(frozen=True, slots=True)
class Sitemap:
    """What a sitemap names: `urls` (pages, highest priority first), `sitemaps` (an index's
    entries), the pages' `lastmod` as (URL, Unix time) pairs where one was readable, their
    `changefreq` as written (the recrawl groups pages by it: recrawl/priors.py), and how many
    URLs were `dropped` past the protocol's count."""

    urls: tuple[str, ...] = ()
    sitemaps: tuple[str, ...] = ()
    dropped: int = 0
    lastmods: tuple[tuple[str, float], ...] = ()
    changefreqs: tuple[tuple[str, str], ...] = ()  # the pages' changefreq as written (lower case)


def w3c_datetime(value: str) -> float | None:
    """A sitemap's W3C datetime (YYYY, YYYY-MM, YYYY-MM-DD, or a date and time with a zone;
    UTC when none is given) as a Unix time; None when unreadable."""
    value = value.strip()
    if len(value) == 4 and value.isdigit():
        value += "-01-01"
    elif len(value) == 7 and value[4] == "-":
        value += "-01"
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def _priority(value: str | None) -> float:
    try:
        priority = float(value) if value else DEFAULT_PRIORITY
    except ValueError:
        return DEFAULT_PRIORITY
    return min(1.0, max(0.0, priority)) if priority == priority else DEFAULT_PRIORITY


def parse(body: bytes, url: str, names: ParamNames | None = None, max_url_length: int = 2048,
          max_urls: int = MAX_URLS, max_bytes: int = MAX_BYTES) -> Sitemap:
    """The sitemap at `url` whose body (gzipped or not) is `body`; SitemapError if unreadable."""
    data = inflate(body, max_bytes)
    reader = _Reader(url, names, max_url_length, max_urls)
    if data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<"):
        reader.read_xml(data)
    else:
        reader.read_text(data)
    return reader.result()


def inflate(body: bytes, max_bytes: int = MAX_BYTES) -> bytes:
    """The body, gunzipped when it is gzip; over `max_bytes` either way is an error."""
    if body[:2] == b"\x1f\x8b":
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            body = inflater.decompress(body, max_bytes + 1)
        except zlib.error as exc:
            raise SitemapError(f"bad gzip: {exc}") from None
    if len(body) > max_bytes:
        raise SitemapError(f"over the protocol's {max_bytes:,} bytes uncompressed")
    return body


_FIELDS = frozenset({"loc", "lastmod", "changefreq", "priority"})
_MAX_CHANGEFREQ = 16  # characters: the longest of the protocol's words is 7
_MAX_FIELD = 1 << 16  # characters of one field: a longer loc is no URL anyone serves


class _Entries:
    """lxml parser target: calls `entry(is_sitemap, fields)` at the end of each entry.

    No tree is built: the parser hands over tags and text in document order, and all that is
    kept is the depth and the current entry's fields (the first `loc`, `lastmod` and `priority`
    of each, their own text only), so memory holds one entry however the file is padded
    (millions of `<x/>` among the entries or inside one). Five times faster than iterparse on
    padding, which makes a Python element of every tag (bench/parsers.py measured it).
    """

    def __init__(self, entry: Callable[[bool, dict[str, str]], None]) -> None:
        self.entry = entry
        self.depth = 0
        self.fields: dict[str, list[str]] = {}
        self.field = ""  # the field whose text is being read ("" when none)
        self.length = 0

    def doctype(self, *_declared: object) -> None:
        """Called before the DTD's declarations are read: a parser target is handed entities
        already expanded, so a document with a DTD is refused before any can be declared."""
        raise SitemapError("XML with a DTD (sitemaps have none; its entities are never expanded)")

    def start(self, tag: str, attrib: object) -> None:
        self.depth += 1
        name = tag.rpartition("}")[2]
        if self.depth == 1 and name not in ("urlset", "sitemapindex"):
            raise SitemapError(f"XML whose root is <{name}>, not a sitemap")
        if self.depth == 2:
            self.fields = {}
        elif self.depth == 3 and name in _FIELDS and name not in self.fields:
            self.field, self.length = name, 0
            self.fields[name] = []

    def end(self, tag: str) -> None:
        self.depth -= 1
        if self.depth == 2:
            self.field = ""
        elif self.depth == 1 and tag.rpartition("}")[2] in ("url", "sitemap"):
            fields = {name: "".join(parts).strip() for name, parts in self.fields.items()
                      if sum(map(len, parts)) <= _MAX_FIELD}
            self.fields = {}
            self.entry(tag.endswith("sitemap"), fields)

    def data(self, text: str) -> None:
        if self.field and self.depth == 3 and self.length <= _MAX_FIELD:
            self.fields[self.field].append(text)
            self.length += len(text)

    def close(self) -> None:
        return None


def read_entries(data: bytes, entry: Callable[[bool, dict[str, str]], None]) -> None:
    """Call `entry(is_sitemap, {field: text})` for each `<url>` or `<sitemap>` of an XML sitemap,
    keeping no element once read (`_Entries`). SitemapError for XML that is not a sitemap;
    lxml's XMLSyntaxError for broken XML (after the entries before the break)."""
    parser = etree.XMLParser(target=_Entries(entry), resolve_entities=False, no_network=True,
                             load_dtd=False, huge_tree=False)
    for at in range(0, len(data), _CHUNK):
        parser.feed(data[at:at + _CHUNK])
    parser.close()


class _Reader:
    def __init__(self, url: str, names: ParamNames | None, max_url_length: int,
                 max_urls: int) -> None:
        self.base, self.names, self.max_url_length, self.max_urls = url, names, max_url_length, max_urls
        self.urls: dict[str, float] = {}  # URL -> priority, in the sitemap's order
        self.sitemaps: dict[str, None] = {}
        self.lastmods: dict[str, float] = {}
        self.changefreqs: dict[str, str] = {}
        self.dropped = 0
        self.read = 0  # entries read, duplicates included

    def result(self) -> Sitemap:
        ordered = sorted(self.urls, key=lambda url: -self.urls[url])  # stable: ties keep order
        return Sitemap(tuple(ordered), tuple(self.sitemaps), self.dropped,
                       tuple(self.lastmods.items()), tuple(self.changefreqs.items()))

    def read_xml(self, data: bytes) -> None:
        try:
            read_entries(data, self._entry)
        except etree.XMLSyntaxError as exc:
            if not (self.urls or self.sitemaps):
                raise SitemapError(f"unreadable XML: {exc}") from None

    def read_text(self, data: bytes) -> None:
        for raw in io.BytesIO(data):  # one line at a time: no list of a million lines
            if self.full():
                self.dropped += raw.strip() != b""
                continue
            for line in raw.decode("utf-8", errors="replace").splitlines():
                if line.strip() and self._count():
                    self._add(line.strip(), sitemap=False)

    def full(self) -> bool:
        return self.read >= self.max_urls

    def _count(self) -> bool:
        """Count one entry read against the cap (a URL listed again too: a sitemap of one URL
        repeated a million times costs what a million distinct ones would, so it stops where
        they do); False when it is past the cap, and dropped."""
        if self.full():
            self.dropped += 1
            return False
        self.read += 1
        return True

    def _entry(self, sitemap: bool, fields: dict[str, str]) -> None:
        if self._count() and fields.get("loc"):
            url = self._add(fields["loc"], sitemap, _priority(fields.get("priority")))
            lastmod = w3c_datetime(fields.get("lastmod", ""))
            if url is not None and not sitemap and lastmod is not None:
                self.lastmods[url] = max(lastmod, self.lastmods.get(url, lastmod))
            changefreq = fields.get("changefreq", "").lower()
            if url is not None and not sitemap and 0 < len(changefreq) <= _MAX_CHANGEFREQ:
                self.changefreqs.setdefault(url, changefreq)

    def _add(self, loc: str, sitemap: bool, priority: float = DEFAULT_PRIORITY) -> str | None:
        """Keep one URL; the normalised URL, or None when it is unreadable."""
        url = try_normalize(loc, self.base, self.max_url_length)
        if url is None:
            return None
        url = strip_params(url, self.names) if self.names else url
        if sitemap:
            self.sitemaps[url] = None
        else:  # listed twice: its higher priority
            self.urls[url] = max(priority, self.urls.get(url, priority))
        return url
