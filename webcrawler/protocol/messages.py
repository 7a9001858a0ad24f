"""The messages that cross the engine/agent process boundary.

The paper's interface: the engine says "retrieve this URL"; the agent answers
with the document or with an explanation of why it could not be retrieved.
Every message is a frozen, slotted dataclass of plain types (a page's links are
named tuples), so it pickles under any multiprocessing start method and prints
well in a log. Errors travel
as data (`Failure`), never as exceptions.

Redirects are not followed by agents (except for robots.txt, RFC 9309 asks for
up to five hops): an agent answers `Redirect` and the engine schedules the
target like any discovered URL. That way every hop passes the robots rules,
politeness and the "never fetch a URL twice" check.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from itertools import repeat
from operator import attrgetter
from typing import Any, NamedTuple

from webcrawler.protocol.urls import TRACKING_PARAMETERS

# The kinds of document a crawl can fetch and index (`--types`): protocol/filetypes.py, extract.py.
DOCUMENT_TYPES = ("html", "pdf", "docx", "odt", "text")
SITEMAP_TYPE = "application/x-sitemap"  # the content type a sitemap is stored with
# Content-Type -> the kind of document it announces.
KIND_OF_TYPE = {
    "text/html": "html", "application/xhtml+xml": "html", "text/plain": "text",
    "application/pdf": "pdf", "application/x-pdf": "pdf",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
    "application/vnd.oasis.opendocument.text": "odt",
}


class Reason:
    """Why a URL was not retrieved or not indexed: short stable codes, stored in the database."""

    ROBOTS = "robots"  # excluded by the server's robots.txt
    UNINDEXABLE = "unindexable-type"  # picture, sound, archive, binary, ...
    HTTP_ERROR = "http-error"  # 4xx / 5xx status
    TIMEOUT = "timeout"  # connect or read timeout, or the page did not finish in time
    TOO_LARGE = "too-large"  # body (after decompression) over the cap
    DNS = "dns"  # host name did not resolve
    REFUSED = "connection-refused"
    CONNECTION = "connection-error"  # reset, TLS failure, protocol error, ...
    TOO_MANY_REDIRECTS = "too-many-redirects"
    BAD_REDIRECT = "bad-redirect"  # Location missing or not http(s)
    DECODE = "decode-error"  # content could not be decoded / decompressed
    EXTRACT = "extract-error"  # a PDF/DOCX/ODT without usable text: encrypted, cut short, a bomb
    AGENT_DIED = "agent-died"  # the agent process crashed while holding the URL
    AGENT_HUNG = "agent-hung"  # the agent did not answer before its deadline
    AGENT_MEMORY = "agent-memory"  # the agent grew past its memory limit
    NOINDEX = "noindex"  # <meta name=robots content=noindex>
    EXCLUDED = "excluded"  # include/exclude pattern, depth, URL length, per-server cap
    DUPLICATE = "duplicate"  # same content as another document already fetched
    PRIVATE = "private-address"  # loopback, private, link-local, ... refused by --deny-private
    POLICY = "policy"  # a toolkit crawl's request policy refused the request: it never went out
    TRAP = "trap"  # a link loop or an endless date sequence (engine/loop/traps.py)
    NOT_CHOSEN = "not-chosen"  # a toolkit crawl fetched it; its AddToIndex did not take it


ROBOTS_HOP = "robots-hop"  # Retrieve.kind: one robots.txt request, its redirect answered as data


@dataclass(frozen=True, slots=True)
class Retrieve:
    """"Retrieve this URL." `kind` is "document", "robots", "page" (a document whose
    answer also carries its decoded markup, for the personal-crawler toolkit), "file"
    (any type, an image say: the answer's `body` holds the bytes, nothing is parsed) or
    "robots-hop" (robots.txt without following its redirects: a usable one comes back as
    `Redirect`, so that a request policy decides on, and audits, every hop) or "sitemap"
    (a noindex document whose links are the sitemap's URLs: agents/sitemap.py).

    A recrawl passes the validators the last answer carried (`etag`, `last_modified`):
    the agent makes the GET conditional, and a 304 comes back as `NotModified`. `sketch`
    asks for the text's shingle sketch (a cost per page: only incremental crawls pay it).
    """

    job_id: int
    url: str
    kind: str = "document"
    etag: str = ""
    last_modified: str = ""
    sketch: bool = False  # make the text's shingle sketch (an incremental crawl compares them)
    body: bool = False  # send the raw headers and body back (the crawl stores responses)
    # The server's robots.txt as the engine obeys it, (status, body), when the agent may render
    # the page: what the page's scripts ask for passes the same rules (agents/fetch.py).
    # None: no rules were sent, and a rendered page may fetch nothing.
    robots: tuple[int | None, str] | None = None

    def __reduce__(self) -> tuple[type[Retrieve], tuple]:
        """Pickled as its constructor's arguments, read in C: a slots dataclass's generic
        state lists its fields in Python at every pickle, and a job crosses a pipe per URL."""
        return (Retrieve, _RETRIEVE_VALUES(self))


class Outlink(NamedTuple):
    """An outbound link as found in a page: absolute, normalised URL and its anchor text. A
    named tuple, not a dataclass like the other messages: a page brings dozens, each made
    again from the pipe's bytes in the engine, and a frozen dataclass's constructor cost
    twice a tuple's (docs/measurements.md)."""

    url: str
    anchor: str = ""


@dataclass(frozen=True, slots=True)
class Document:
    """A retrieved document.

    `text` is the decoded visible text (no markup); `links` are absolute,
    normalised, de-duplicated, in page order, without rel=nofollow links (and
    empty when the page says <meta name=robots content=nofollow>). `noindex`
    is True when the page asks not to be indexed.
    """

    job_id: int
    url: str
    final_url: str
    status: int
    content_type: str
    charset: str
    title: str
    text: str
    links: tuple[Outlink, ...] = ()
    length: int = 0  # bytes received, after decompression
    checksum: str = ""  # hex digest of the body bytes
    elapsed: float = 0.0  # seconds spent retrieving and parsing
    noindex: bool = False
    last_modified: str = ""
    etag: str = ""
    html: str = ""  # the decoded body, only for `Retrieve(kind="page")` (the toolkit's Page.html)
    sketch: bytes = b""  # the text's shingle sketch (webcrawler/text/shingles.py) when Retrieve asked
    headers: tuple[tuple[str, str], ...] = ()  # the response headers as received
    body: bytes = b""  # the body after content decoding, zlib-compressed (level 1)
    sitemaps: tuple[str, ...] = ()  # a sitemap index's sitemaps (kind "sitemap"; also in `links`)
    canonical: str = ""  # the canonical URL the page declares (tag or Link header), normalised
    headings: tuple[str, ...] = ()  # the texts of its h1-h3 headings (agents/parse.py)
    lastmods: tuple[tuple[str, float], ...] = ()  # a sitemap's pages' lastmod: (URL, Unix time)
    changefreqs: tuple[tuple[str, str], ...] = ()  # a sitemap's pages' changefreq: (URL, word)
    rendered: bool = False  # its scripts ran in Chromium (--render) before its text was read

    def __reduce__(self) -> tuple[object, tuple]:
        """Pickled as its constructor's arguments with its links as two columns (URLs, anchors):
        every page's answer crosses the agent's pipe, and pickling a link object by object
        cost more than the rest of the document (docs/measurements.md)."""
        values = list(_DOCUMENT_VALUES(self))
        values[_LINKS] = tuple(zip(*self.links, strict=True)) or ((), ())  # transposed in C
        return (_unpickled_document, tuple(values))


_RETRIEVE_VALUES = attrgetter(*(f.name for f in fields(Retrieve)))
_DOCUMENT_VALUES = attrgetter(*(f.name for f in fields(Document)))
_LINKS = [f.name for f in fields(Document)].index("links")


def _unpickled_document(*values: Any) -> Document:
    """The Document `Document.__reduce__` pickled, its links made again from their columns."""
    fields_ = list(values)
    urls, anchors = fields_[_LINKS]
    fields_[_LINKS] = tuple(map(tuple.__new__, repeat(Outlink), zip(urls, anchors, strict=True)))  # made in C
    return Document(*fields_)


@dataclass(frozen=True, slots=True)
class NotModified:
    """The server answered 304 to a conditional GET: the stored copy is current, no body came."""

    job_id: int
    url: str
    etag: str = ""
    last_modified: str = ""
    elapsed: float = 0.0


@dataclass(frozen=True, slots=True)
class Redirect:
    """The server answered 3xx with a Location: the engine decides whether to follow."""

    job_id: int
    url: str
    status: int
    location: str  # absolute, normalised target
    elapsed: float = 0.0


@dataclass(frozen=True, slots=True)
class Failure:
    """The URL could not be retrieved (or is not indexable): `reason` is a `Reason` code."""

    job_id: int
    url: str
    reason: str
    detail: str = ""
    status: int | None = None
    content_type: str = ""
    elapsed: float = 0.0
    retry_after: float | None = None  # seconds the server asked us to wait (Retry-After)


@dataclass(frozen=True, slots=True)
class RobotsFile:
    """The answer to a robots.txt retrieval (`Retrieve(kind="robots")`).

    `status` is the final HTTP status after up to five redirects, or None when
    the server could not be reached (then `reason` says why). `body` holds at
    most the first 500 KiB, decoded as UTF-8 with a byte-order mark removed.
    """

    job_id: int
    url: str
    status: int | None
    body: str = ""
    reason: str = ""
    detail: str = ""
    elapsed: float = 0.0
    retry_after: float | None = None  # seconds the server asked us to wait (Retry-After)


@dataclass(frozen=True, slots=True)
class Credential:
    """A header sent only to one server (`host`, or `host:port`) on one scheme (https unless
    the operator says http): HTTP Basic or any header. The value never shows in a repr, so
    never in a log line or a traceback."""

    host: str
    header: str  # e.g. "Authorization"
    value: str = field(repr=False)
    scheme: str = "https"


Answer = Document | NotModified | Redirect | Failure | RobotsFile


@dataclass(frozen=True, slots=True)
class AgentConfig:
    """What every agent needs to know, sent once when the agent starts."""

    user_agent: str = "WebCrawler/0.1 (+https://github.com/webcrawler)"
    connect_timeout: float = 10.0
    read_timeout: float = 20.0
    total_timeout: float = 60.0  # a page that never finishes is cut off after this
    deadline: float = 0.0  # seconds an agent may hold one URL (Settings.deadline); 0: total + 15
    max_bytes: int = 1 << 20
    max_robots_bytes: int = 500 * 1024
    max_links: int = 5000
    max_url_length: int = 2048
    extra_headers: tuple[tuple[str, str], ...] = field(default_factory=tuple)
    deny_private: bool = False  # refuse to connect to non-public addresses (protocol/addresses.py)
    allowed_hosts: tuple[str, ...] = ()  # ... except these hosts, named by the crawl's scope,
    allowed_patterns: tuple[str, ...] = ()  # ... and servers its include patterns match
    exclude: tuple[str, ...] = ()  # the scope's exclude patterns (allowed_patterns: its includes),
    #                                which a rendered page's requests must pass too
    ca_bundle: str = ""  # PEM file of certificate authorities trusted besides the system's
    ca_bundle_only: bool = False  # ... or instead of them
    client_cert: str = ""  # PEM client certificate
    client_key: str = ""  # its key, when not in client_cert
    insecure_hosts: tuple[str, ...] = ()  # --insecure-skip-tls-verify: certificates unchecked
    credentials: tuple[Credential, ...] = field(default_factory=tuple, repr=False)
    strip_params: tuple[str, ...] = TRACKING_PARAMETERS  # dropped from every URL found (urls.py)
    types: tuple[str, ...] = DOCUMENT_TYPES  # the kinds of document fetched and indexed
    main_content: bool = True  # index a page's main content, its boilerplate dropped (parse.py)
    render: str = "never"  # run a page's scripts in Chromium: never, auto (script shells), always
    render_timeout: float = 10.0  # seconds a page may take in the browser (agents/render.py)
    memory_mb: int = 512  # the agent's memory budget, its browser's included (agents/footprint.py)
