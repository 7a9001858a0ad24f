"""Read a sitemap (sitemaps.org): the page URLs it lists, and the sitemaps an index names.

Sites list in sitemaps the pages no link leads to. A sitemap is XML (`<urlset>` of
`<url><loc>`, or a `<sitemapindex>` of `<sitemap><loc>`), gzipped or not, or plain
text with one URL a line. The protocol's limits hold: at most 50,000 URLs and 50 MB
uncompressed a file; a file over the size limit is refused, URLs past the count are
dropped (and counted). The XML is read by lxml's incremental parser without entities,
DTDs, network or huge-tree mode, each entry cleared once read, so a hostile file costs
at most its 50 MB. URLs are normalised as links are (tracking parameters dropped).
Pure functions: the agent fetches, the engine decides what to do with the URLs.
"""

from __future__ import annotations

import io
import zlib
from dataclasses import dataclass

from lxml import etree

from webcrawler.errors import FetchError
from webcrawler.messages import SITEMAP_TYPE
from webcrawler.urls import ParamNames, strip_params, try_normalize

MAX_URLS = 50_000
MAX_BYTES = 50 * 1024 * 1024
__all__ = ["MAX_BYTES", "MAX_URLS", "SITEMAP_TYPE", "Sitemap", "SitemapError", "inflate", "parse"]


class SitemapError(FetchError):
    """Not a sitemap that can be read; str(error) says why."""


@dataclass(frozen=True, slots=True)
class Sitemap:
    """What a sitemap names: `urls` (pages), `sitemaps` (an index's entries), and how many
    URLs were `dropped` past the protocol's count. (`lastmod` is not read: nothing uses it yet.)"""

    urls: tuple[str, ...] = ()
    sitemaps: tuple[str, ...] = ()
    dropped: int = 0


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
        self.urls: dict[str, None] = {}
        self.sitemaps: dict[str, None] = {}
        self.dropped = 0

    def result(self) -> Sitemap:
        return Sitemap(tuple(self.urls), tuple(self.sitemaps), self.dropped)

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
            self._add(fields["loc"], sitemap)

    def _add(self, loc: str, sitemap: bool) -> None:
        if len(self.urls) + len(self.sitemaps) >= self.max_urls:
            self.dropped += 1
            return
        url = try_normalize(loc, self.base, self.max_url_length)
        if url is None:
            return
        url = strip_params(url, self.names) if self.names else url
        (self.sitemaps if sitemap else self.urls)[url] = None
