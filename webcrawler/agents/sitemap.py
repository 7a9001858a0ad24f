"""Read a sitemap (sitemaps.org): the page URLs it lists, and the sitemaps an index names.

Sites list in sitemaps the pages no link leads to. A sitemap is XML (`<urlset>` of
`<url><loc>`, or a `<sitemapindex>` of `<sitemap><loc>`), gzipped or not, or plain
text with one URL a line. The protocol's limits hold: at most 50,000 URLs and 50 MB
uncompressed a file; a file over the size limit is refused, URLs past the count are
dropped (and counted). Each page's `lastmod` (a W3C datetime) is kept for the
incremental crawl (a newer one makes a stored page due); its `priority` (0.0-1.0,
0.5 when absent) orders the pages, the sitemap's own order breaking ties, so that a
crawl that takes URLs in the order it found them fetches the site's first choices first.
The XML is read by lxml's incremental parser without entities, DTDs, network or
huge-tree mode, each entry cleared once read, so a hostile file costs at most its 50 MB.
URLs are normalised as links are (tracking parameters dropped). Pure functions: the
agent fetches, the engine decides what to do with the URLs.
"""

from __future__ import annotations

import io
import zlib
from dataclasses import dataclass
from datetime import UTC, datetime

from lxml import etree

from webcrawler.errors import FetchError
from webcrawler.protocol.messages import SITEMAP_TYPE
from webcrawler.protocol.urls import ParamNames, strip_params, try_normalize

MAX_URLS = 50_000
MAX_BYTES = 50 * 1024 * 1024
__all__ = ["MAX_BYTES", "MAX_URLS", "SITEMAP_TYPE", "Sitemap", "SitemapError", "inflate", "parse",
           "w3c_datetime"]


class SitemapError(FetchError):
    """Not a sitemap that can be read; str(error) says why."""


DEFAULT_PRIORITY = 0.5  # the protocol's


@dataclass(frozen=True, slots=True)
class Sitemap:
    """What a sitemap names: `urls` (pages, highest priority first), `sitemaps` (an index's
    entries), the pages' `lastmod` as (URL, Unix time) pairs where one was readable, and how
    many URLs were `dropped` past the protocol's count."""

    urls: tuple[str, ...] = ()
    sitemaps: tuple[str, ...] = ()
    dropped: int = 0
    lastmods: tuple[tuple[str, float], ...] = ()


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


class _Reader:
    def __init__(self, url: str, names: ParamNames | None, max_url_length: int,
                 max_urls: int) -> None:
        self.base, self.names, self.max_url_length, self.max_urls = url, names, max_url_length, max_urls
        self.urls: dict[str, float] = {}  # URL -> priority, in the sitemap's order
        self.sitemaps: dict[str, None] = {}
        self.lastmods: dict[str, float] = {}
        self.dropped = 0

    def result(self) -> Sitemap:
        ordered = sorted(self.urls, key=lambda url: -self.urls[url])  # stable: ties keep order
        return Sitemap(tuple(ordered), tuple(self.sitemaps), self.dropped,
                       tuple(self.lastmods.items()))

    def read_xml(self, data: bytes) -> None:
        events = etree.iterparse(io.BytesIO(data), events=("start", "end"), resolve_entities=False,
                                 no_network=True, load_dtd=False, huge_tree=False,
                                 remove_comments=True, remove_pis=True)
        root = ""
        try:
            for event, element in events:
                name = etree.QName(element).localname if isinstance(element.tag, str) else ""
                if event == "start":
                    root = root or name
                    if root not in ("urlset", "sitemapindex"):
                        raise SitemapError(f"XML whose root is <{root}>, not a sitemap")
                elif name in ("url", "sitemap"):
                    self._entry(element, name == "sitemap")
                    element.clear(keep_tail=False)
        except etree.XMLSyntaxError as exc:
            if not (self.urls or self.sitemaps):
                raise SitemapError(f"unreadable XML: {exc}") from None

    def read_text(self, data: bytes) -> None:
        for line in data.decode("utf-8", errors="replace").splitlines():
            if line.strip():
                self._add(line.strip(), sitemap=False)

    def _entry(self, element: etree._Element, sitemap: bool) -> None:
        fields = {etree.QName(child).localname: (child.text or "").strip()
                  for child in element if isinstance(child.tag, str)}
        if fields.get("loc"):
            url = self._add(fields["loc"], sitemap, _priority(fields.get("priority")))
            lastmod = w3c_datetime(fields.get("lastmod", ""))
            if url is not None and not sitemap and lastmod is not None:
                self.lastmods[url] = max(lastmod, self.lastmods.get(url, lastmod))

    def _add(self, loc: str, sitemap: bool, priority: float = DEFAULT_PRIORITY) -> str | None:
        """Keep one URL; the normalised URL, or None when it is dropped or unreadable."""
        if len(self.urls) + len(self.sitemaps) >= self.max_urls:
            self.dropped += 1
            return None
        url = try_normalize(loc, self.base, self.max_url_length)
        if url is None:
            return None
        url = strip_params(url, self.names) if self.names else url
        if sitemap:
            self.sitemaps[url] = None
        else:  # listed twice: its higher priority
            self.urls[url] = max(priority, self.urls.get(url, priority))
        return url
