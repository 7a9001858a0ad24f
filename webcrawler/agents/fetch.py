"""The agent's work: "retrieve this URL" -> the document, a redirect, or why not.

`Fetcher.retrieve` never raises: every outcome, including a bug, is an
answer message, because an exception would cost the engine an agent. Redirects
are answered, not followed (the engine schedules the target like any link),
except for robots.txt, where RFC 9309 asks for up to five hops (a "robots-hop"
request, whose caller decides on each hop, gets its redirect back too). Bodies are
read through body.read_body, under the byte cap and the total deadline;
every other phase (connect, status line, headers, redirect hops) is cut at
the same deadline by the agent's watchdog (deadline.py).
Nothing here writes to disk or to a database.
"""

from __future__ import annotations

import hashlib
import http.cookiejar
import logging
import ssl
import sys
import time
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import requests
import urllib3
from requests.structures import CaseInsensitiveDict

from webcrawler.agents import extract, sitemap
from webcrawler.agents.body import BodyError, read_body
from webcrawler.agents.charset import decode, utf8_bytes
from webcrawler.agents.client import Pools, Response, lean_path, send
from webcrawler.agents.credentials import headers_for, stored_headers
from webcrawler.agents.deadline import AlarmWatchdog, AnyWatchdog, Watchdog, WatchedAdapter
from webcrawler.agents.errors import classify
from webcrawler.agents.page_scope import Gate, PageScope
from webcrawler.agents.parse import (
    Parsed,
    canonical_url,
    parse_html,
    parse_plain,
    robots_directives,
)
from webcrawler.agents.peer_check import peer_check
from webcrawler.agents.render import Renderer, Resource
from webcrawler.agents.retry_after import retry_after
from webcrawler.agents.shell import looks_like_shell
from webcrawler.protocol import addresses, filetypes
from webcrawler.protocol.messages import (
    KIND_OF_TYPE,
    ROBOTS_HOP,
    AgentConfig,
    Answer,
    Document,
    Failure,
    NotModified,
    Outlink,
    Reason,
    Redirect,
    Retrieve,
    RobotsFile,
)
from webcrawler.protocol.robots import decode_body
from webcrawler.protocol.urls import ParamNames, strip_params, try_normalize

log = logging.getLogger(__name__)

ACCEPT = "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.1"
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
MAX_ROBOTS_REDIRECTS = 5  # RFC 9309 section 2.3.1.2
ROBOTS_KINDS = ("robots", ROBOTS_HOP)  # answered with a RobotsFile (or a hop's Redirect)


@dataclass(frozen=True, slots=True)
class _Hop:
    """Where a robots.txt redirect chain ended: a response status or a failure."""

    url: str
    status: int | None
    body: bytes = b""
    reason: str = ""
    detail: str = ""
    location: str = ""  # a redirect not followed (robots-hop): where it leads
    retry_after: float | None = None


class Fetcher:
    """Retrieves documents and robots.txt files over one HTTP session (kept-alive connections)."""

    def __init__(self, config: AgentConfig, robots_token: str = "WebCrawler",
                 alarm: bool = False) -> None:
        """`alarm`: the deadlines cut by SIGALRM (`deadline.AlarmWatchdog`), for a process whose
        main thread alone fetches and which owns its SIGALRM (an agent); else by a thread."""
        self.config = config
        self.robots_token = robots_token
        self.watchdog: AnyWatchdog = AlarmWatchdog() if alarm else Watchdog()
        self.session = _session(config, self.watchdog)
        self._headers = _checked(self.session.headers)  # None: every GET goes through requests
        self._pools = Pools()  # the lean GET's pool per origin, as the adapter chose it
        self.param_names = ParamNames(config.strip_params)
        self.renderer = Renderer(
            config.render_timeout, max_bytes=config.max_bytes, memory_bytes=config.memory_mb << 20,
        ) if config.render != "never" else None
        self.page_scope = PageScope(config, robots_token)  # what a rendered page may fetch

    def close(self) -> None:
        if self.renderer is not None:
            self.renderer.close()
        self._pools.clear()
        self.session.close()
        self.watchdog.close()

    def __enter__(self) -> Fetcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def retrieve(self, request: Retrieve) -> Answer:
        """The answer to a `Retrieve`; never raises, never outlives the total timeout by much.

        The watchdog cuts the sockets at the deadline; whatever the cut
        made of the answer (an error, or a response ended early), it is
        a timeout.
        """
        started = time.monotonic()
        self.watchdog.arm(started + self.config.total_timeout)
        try:
            answer = self._answer(request, started)
        finally:
            cut = self.watchdog.disarm()
        if cut:
            detail = f"no complete answer within {self.config.total_timeout:g} s"
            return self._failed(request, Reason.TIMEOUT, detail, started)
        return answer

    def _answer(self, request: Retrieve, started: float) -> Answer:
        try:
            if request.kind in ROBOTS_KINDS:
                return self._robots(request, started)
            return self._document(request, started)
        except Exception as exc:  # noqa: BLE001 - errors travel as data
            reason, detail = classify(exc)
            log.debug("%s: %s (%s)", request.url, reason, detail)
            return self._failed(request, reason, detail, started)

    def _failed(self, request: Retrieve, reason: str, detail: str, started: float) -> Answer:
        """Why `request` failed, as the answer its kind expects."""
        elapsed = time.monotonic() - started
        if request.kind in ROBOTS_KINDS:
            return RobotsFile(request.job_id, request.url, None, reason=reason,
                              detail=detail, elapsed=elapsed)
        return Failure(request.job_id, request.url, reason, detail, elapsed=elapsed)

    # documents

    def _document(self, request: Retrieve, started: float) -> Answer:
        raw = request.kind == "file"  # any type, body only: the toolkit's images
        listing = request.kind == "sitemap"  # XML, text or gzip: agents/sitemap.py reads it
        if not (raw or listing) and filetypes.unindexable_url(request.url, self.config.types):
            return Failure(request.job_id, request.url, Reason.UNINDEXABLE, "file extension")
        deadline = started + self.config.total_timeout
        with self._get(request.url, deadline, _conditional(request)) as response:
            early = self._early_answer(request, response, started)
            if early is not None:
                return early
            try:
                body = read_body(response.raw, response.headers.get("Content-Encoding", ""),
                                 sitemap.MAX_BYTES if listing else self.config.max_bytes, deadline,
                                 reject=None if raw or listing else self._unwanted_bytes)
            except BodyError as exc:
                return self._failure(request, response, exc.reason, str(exc), started)
            if raw:
                return self._make_file(request, response, body, started)
            if listing:
                return self._sitemap(request, response, body, started)
            if filetypes.document_magic(body[:8], self.config.types):
                return self._extracted(request, response, body, started)
            return self._make_document(request, response, body, started)

    def _unwanted_bytes(self, head: bytes) -> bool:
        """Binary, and not a PDF or office file the crawl extracts text from."""
        return filetypes.binary_bytes(head) and not filetypes.document_magic(head, self.config.types)

    def _early_answer(
        self, request: Retrieve, response: Response, started: float
    ) -> Answer | None:
        """A redirect or a failure known from the status line and headers alone, else None."""
        status = response.status_code
        if status == 304 and _conditional(request):
            return NotModified(request.job_id, request.url, response.headers.get("ETag", ""),
                               response.headers.get("Last-Modified", ""),
                               elapsed=time.monotonic() - started)
        if 300 <= status < 400 and (status in REDIRECT_STATUSES or "Location" in response.headers):
            return self._redirect(request, response, started)
        if not 200 <= status < 300:
            return self._failure(request, response, Reason.HTTP_ERROR, f"HTTP {status}", started)
        mime = filetypes.mime_type(response.headers.get("Content-Type"))
        if request.kind not in ("file", "sitemap") and filetypes.wanted_type(
                mime, request.url, self.config.types) is False:
            return self._failure(request, response, Reason.UNINDEXABLE, mime, started)
        length = _content_length(response)
        encoded = response.headers.get("Content-Encoding", "").strip().lower()
        cap = sitemap.MAX_BYTES if request.kind == "sitemap" else self.config.max_bytes
        if length is not None and length > cap and encoded in ("", "identity"):
            return self._failure(request, response, Reason.TOO_LARGE,
                                 f"Content-Length {length}", started)
        return None

    def _redirect(self, request: Retrieve, response: Response, started: float) -> Answer:
        location = _location(response)
        target = try_normalize(location, response.url or request.url, self.config.max_url_length)
        if not location or target is None:
            return self._failure(request, response, Reason.BAD_REDIRECT,
                                 f"Location {location[:200]!r}", started)
        target = strip_params(target, self.param_names)
        return Redirect(request.job_id, request.url, response.status_code, target,
                        elapsed=time.monotonic() - started)

    def _failure(
        self, request: Retrieve, response: Response, reason: str, detail: str,
        started: float,
    ) -> Failure:
        return Failure(
            request.job_id, request.url, reason, detail, status=response.status_code,
            content_type=filetypes.mime_type(response.headers.get("Content-Type")),
            elapsed=time.monotonic() - started, retry_after=retry_after(response.headers),
        )

    def _make_document(
        self, request: Retrieve, response: Response, body: bytes, started: float
    ) -> Document:
        header = response.headers.get("Content-Type")
        mime = filetypes.mime_type(header) or sniff_type(body)
        text, charset = decode(body, header)
        final_url = try_normalize(response.url or request.url) or request.url
        parsed = self._parse(mime, text, final_url, utf8_bytes(body, text, charset))
        digest = b""  # the checksum's input: the body, or what the scripts wrote
        if self._wants_render(request, mime, text, parsed):
            rendered = self._render(final_url, text, started, self.page_scope.gate(request))
            if rendered is not None:  # one shell may serve many pages: they differ rendered
                text, parsed = rendered, self._parse(mime, rendered, final_url)
                digest = rendered.encode("utf-8", "replace")
        return self._document_of(request, response, body, started, mime, charset, parsed,
                                 text if request.kind == "page" else "", digest, final_url)

    def _wants_render(self, request: Retrieve, mime: str, text: str, parsed: Parsed) -> bool:
        """--render always: every HTML page; auto: a page that looks like a script shell
        (shell.py). Never a page that asked not to be indexed."""
        if self.renderer is None or request.kind not in ("document", "page") or parsed.noindex:
            return False
        if KIND_OF_TYPE.get(mime) != "html":
            return False
        return self.config.render == "always" or looks_like_shell(text, parsed.text)

    def _render(self, url: str, html: str, started: float, gate: Gate) -> str | None:
        """The page after its scripts ran (render.py), within the retrieval's deadline; what
        they ask for is fetched only if a link to it could be (`gate`, page_scope.py)."""
        assert self.renderer is not None
        deadline = started + self.config.total_timeout
        rendered = self.renderer.render(
            url, html, lambda sub: self._subresource(sub, deadline, gate), deadline - 1.0)
        log.debug("%s: %s", url, "rendered" if rendered is not None else "not rendered")
        return rendered

    def _subresource(self, url: str, deadline: float, gate: Gate) -> Resource | None:
        """A script or data file the rendered page asked for, fetched like any request (the
        scope, robots.txt, the address checks, the server's credentials, the byte cap, the
        deadline); None when refused or failed."""
        refused = gate.why_not(url)
        if refused is not None:
            log.debug("%s: not fetched for a rendered page (%s)", url, refused)
            return None
        try:
            with self._get(url, deadline) as response:
                body = b""
                if 200 <= response.status_code < 300:
                    body = read_body(response.raw, response.headers.get("Content-Encoding", ""),
                                     self.config.max_bytes, deadline)
                return Resource(response.status_code, response.headers.get("Content-Type", ""),
                                body)
        except Exception as exc:  # noqa: BLE001 - the page renders without it
            log.debug("%s: subresource failed (%s)", url, exc)
            return None

    def _extracted(
        self, request: Retrieve, response: Response, body: bytes, started: float
    ) -> Document | Failure:
        """A PDF, DOCX or ODT: its title and text (extract.py), or why there are none."""
        kind = "pdf" if body.startswith(b"%PDF-") else extract.zip_kind(body)
        if kind not in self.config.types:
            detail = f"{kind} is not in the crawl's types" if kind else "a zip, neither DOCX nor ODT"
            return self._failure(request, response, Reason.UNINDEXABLE, detail, started)
        try:
            found = extract.extract(kind, body, started + self.config.total_timeout,
                                    self.config.max_bytes)
        except extract.ExtractError as exc:
            return self._failure(request, response, Reason.EXTRACT, str(exc), started)
        parsed = Parsed(title=found.title, text=found.text)
        return self._document_of(request, response, body, started, filetypes.TYPE_OF_KIND[kind],
                                 "", parsed, "")

    def _document_of(
        self, request: Retrieve, response: Response, body: bytes, started: float,
        mime: str, charset: str, parsed: Parsed, html: str, digest: bytes = b"",
        final_url: str = "",
    ) -> Document:
        header_noindex, header_nofollow = x_robots_tag(
            response.headers.get("X-Robots-Tag", ""), self.robots_token)
        return Document(
            job_id=request.job_id, url=request.url,
            final_url=final_url or try_normalize(response.url or request.url) or request.url,
            status=response.status_code, content_type=mime, charset=charset,
            title=parsed.title, text=parsed.text, headings=parsed.headings,
            links=() if header_nofollow else parsed.links,
            length=len(body),
            checksum=hashlib.blake2b(digest or body, digest_size=16).hexdigest(),
            elapsed=time.monotonic() - started, noindex=parsed.noindex or header_noindex,
            last_modified=response.headers.get("Last-Modified", ""),
            etag=response.headers.get("ETag", ""),
            canonical=self._canonical(response, request.url) or parsed.canonical,
            html=html,
            sketch=_sketch(parsed.text) if request.sketch else b"",
            headers=self._stored_headers(request, response) if request.body else (),
            body=zlib.compress(body, 1) if request.body else b"",
            rendered=bool(digest),  # a digest of what scripts wrote: the page was rendered
        )

    def _make_file(
        self, request: Retrieve, response: Response, body: bytes, started: float
    ) -> Document:
        """A file of any type (kind "file"): its bytes in `body`, nothing decoded or parsed."""
        return Document(
            job_id=request.job_id, url=request.url,
            final_url=try_normalize(response.url or request.url) or request.url,
            status=response.status_code, charset="",
            content_type=filetypes.mime_type(response.headers.get("Content-Type")) or "",
            title="", text="", length=len(body),
            checksum=hashlib.blake2b(body, digest_size=16).hexdigest(),
            elapsed=time.monotonic() - started,
            headers=self._stored_headers(request, response),
            body=zlib.compress(body, 1),
        )

    def _stored_headers(self, request: Retrieve, response: Response
                        ) -> tuple[tuple[str, str], ...]:
        """The response's headers as they may be kept: a credentialed fetch's without its
        session (credentials.stored_headers)."""
        sent = headers_for(request.url, self.config.credentials, self.config.insecure_hosts)
        return stored_headers(tuple(response.raw.headers.items()), sent)

    def _parse(self, mime: str, text: str, final_url: str, utf8: bytes | None = None) -> Parsed:
        """The page parsed as its type says; `utf8`, when given, is `text` encoded as UTF-8
        (`charset.utf8_bytes`: the body itself), which the HTML parser reads instead."""
        if mime == "text/plain":
            return parse_plain(text)
        return parse_html(text if utf8 is None else utf8, final_url, self.robots_token, self.config.max_links,
                          self.config.max_url_length, self.param_names, self.config.main_content)

    def _canonical(self, response: Response, url: str) -> str:
        """The `Link: <...>; rel="canonical"` header's URL ("" when none): it names the
        canonical URL of any type of file, a PDF's too."""
        if "canonical" not in response.headers.get("Link", "").lower():
            return ""
        target = response.links.get("canonical", {}).get("url", "")
        return canonical_url(target, url, self.config.max_url_length, self.param_names)

    # sitemaps

    def _sitemap(
        self, request: Retrieve, response: Response, body: bytes, started: float
    ) -> Answer:
        """A sitemap's URLs as the links of a noindex document (agents/sitemap.py)."""
        try:
            found = sitemap.parse(body, request.url, self.param_names, self.config.max_url_length)
        except sitemap.SitemapError as exc:
            return self._failure(request, response, Reason.DECODE, f"sitemap: {exc}", started)
        if found.dropped:
            log.info("%s: %d URLs past the sitemap protocol's %d dropped", request.url,
                     found.dropped, sitemap.MAX_URLS)
        links = tuple(Outlink(url) for url in (*found.urls, *found.sitemaps))
        return Document(
            job_id=request.job_id, url=request.url, final_url=request.url,
            status=response.status_code,
            content_type=sitemap.SITEMAP_TYPE, charset="", title="", text="", links=links,
            length=len(body), checksum=hashlib.blake2b(body, digest_size=16).hexdigest(),
            elapsed=time.monotonic() - started, noindex=True,
            last_modified=response.headers.get("Last-Modified", ""),
            etag=response.headers.get("ETag", ""), sitemaps=found.sitemaps, lastmods=found.lastmods,
            changefreqs=found.changefreqs)

    # robots.txt

    def _robots(self, request: Retrieve, started: float) -> RobotsFile | Redirect:
        hop = self._follow_robots(request.url, started + self.config.total_timeout,
                                  follow=request.kind == "robots")
        if hop.location and hop.status is not None:
            return Redirect(request.job_id, request.url, hop.status, hop.location,
                            elapsed=time.monotonic() - started)
        body = decode_body(hop.body)
        return RobotsFile(request.job_id, request.url, hop.status, body, hop.reason, hop.detail,
                          elapsed=time.monotonic() - started, retry_after=hop.retry_after)

    def _follow_robots(self, url: str, deadline: float, follow: bool = True) -> _Hop:
        """GET robots.txt, following up to five redirects (or, `follow` False, none: the first
        one's usable target comes back as `location`); the body only of a 2xx answer."""
        for _ in range(MAX_ROBOTS_REDIRECTS + 1):
            with self._get(url, deadline) as response:
                status = response.status_code
                if status not in REDIRECT_STATUSES:
                    return _Hop(url, status, self._robots_body(response, deadline),
                                retry_after=retry_after(response.headers))
                target = try_normalize(_location(response), url)
                if target is None or not addresses.robots_hop(url, target):
                    return _Hop(url, None, reason=Reason.BAD_REDIRECT,
                                detail=f"HTTP {status} without a usable robots.txt Location")
                if not follow:
                    return _Hop(url, status, location=target)
                url = target
        return _Hop(url, None, reason=Reason.TOO_MANY_REDIRECTS,
                    detail=f"more than {MAX_ROBOTS_REDIRECTS} redirects")

    def _robots_body(self, response: Response, deadline: float) -> bytes:
        if not 200 <= response.status_code < 300:
            return b""
        return read_body(response.raw, response.headers.get("Content-Encoding", ""),
                         self.config.max_robots_bytes, deadline, truncate=True)

    # HTTP

    def _get(self, url: str, deadline: float,
             headers: dict[str, str] | None = None) -> Response:
        """Send the GET and return once the headers are in; the body is left unread.

        A normalised URL with no headers of its own goes to the pool directly (client.py);
        any other GET through the session's adapter with a request prepared here:
        `Session.request` merged, for every request, cookies (the policy keeps none, so none
        are ever sent), hooks and environment settings (trust_env is off) into a copy of the
        session's settings. No redirect is followed either way.
        """
        remaining = max(0.001, deadline - time.monotonic())
        timeout = (min(self.config.connect_timeout, remaining),
                   min(self.config.read_timeout, remaining))
        own = {**(headers or {}), **headers_for(url, self.config.credentials,  # the server's own
                                                self.config.insecure_hosts)}
        if self._headers is not None and not own and (target := lean_path(url)) is not None:
            adapter = self.session.get_adapter(url)
            assert isinstance(adapter, WatchedAdapter)  # _session mounts no other kind
            return send(adapter, url, target, self._headers, timeout, self.session.verify,
                        self.session.cert, self._pools)
        prepared = requests.PreparedRequest()  # what Session.request would prepare, cookies aside
        prepared.prepare_method("GET")
        prepared.prepare_url(url, None)
        merged = CaseInsensitiveDict(self.session.headers)
        merged.update(own)
        prepared.prepare_headers(merged)
        prepared.prepare_body(None, None)
        prepared.prepare_auth(None, url)  # user:password in the URL, as requests does
        prepared.prepare_hooks({})
        return Response.of(self.session.get_adapter(url).send(
            prepared, stream=True, timeout=timeout, verify=self.session.verify,
            cert=self.session.cert, proxies={}))


def _session(config: AgentConfig, watchdog: AnyWatchdog) -> requests.Session:
    """One session per agent: keep-alive across a server's pages, no cookies, no .netrc.

    trust_env is off so that credentials from ~/.netrc are never sent to
    crawled sites and no environment proxy redirects the crawl. Every
    connection registers its socket with `watchdog` (deadline.py).
    """
    session = _Session()
    adapter = WatchedAdapter(watchdog, peer_check(config),  # and --deny-private
                             _trust(config))
    for prefix in ("http://", "https://"):
        session.mount(prefix, adapter)
    session.trust_env = False
    session.cookies.set_policy(http.cookiejar.DefaultCookiePolicy(allowed_domains=[]))
    session.headers.update({
        "User-Agent": config.user_agent,
        "Accept": ACCEPT,
        "Accept-Encoding": "gzip, deflate",  # br would need a new dependency
    })
    session.headers.update(dict(config.extra_headers))
    _tls(session, config, watchdog)
    return session


def _checked(headers: Mapping[str, str]) -> dict[str, str] | None:
    """The session's headers as requests would send them (its checks passed), or None when
    they fail the checks: then every GET goes through requests, which refuses it as before."""
    prepared = requests.PreparedRequest()
    try:
        prepared.prepare_headers(headers)
    except ValueError:  # requests' InvalidHeader
        return None
    sent = {name: value for name, value in prepared.headers.items() if isinstance(value, str)}
    return sent if len(sent) == len(prepared.headers) else None  # bytes values: requests' way


def _trust(config: AgentConfig) -> Callable[[], ssl.SSLContext]:
    """What makes the trust context when HTTPS first needs it (deadline.WatchedAdapter): the
    system's store then; a configured CA bundle or client certificate is read now, so that a
    bad file stops the agent at its start, as it always did."""
    if config.ca_bundle or config.client_cert:
        context = trust_context(config)
        return lambda: context
    return lambda: trust_context(config)


def trust_context(config: AgentConfig) -> ssl.SSLContext:
    """Whom HTTPS trusts: the operating system's trust store, plus --ca-bundle's authorities
    (an intranet CA and the public web both verify); only the bundle's with --ca-bundle-only.
    The client certificate, when one is configured. Built once per agent: nothing per request.

    On Linux the store is OpenSSL's default paths (the distribution's bundle, not certifi's
    copy), loaded once here; truststore does the same there but reloads them at every
    connection (27 ms of CPU each, measured), so it serves only macOS and Windows, whose stores
    are not files."""
    context: ssl.SSLContext
    if config.ca_bundle and config.ca_bundle_only:
        context = ssl.create_default_context(cafile=config.ca_bundle)
    else:
        if sys.platform in ("darwin", "win32"):
            import truststore

            context = truststore.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        else:
            context = ssl.create_default_context()  # the system's default verify paths
        if config.ca_bundle:
            context.load_verify_locations(cafile=config.ca_bundle)
    if config.client_cert:
        context.load_cert_chain(config.client_cert, config.client_key or None)
    return context


class _Unverified(WatchedAdapter):
    """The adapter of --insecure-skip-tls-verify's hosts only: their certificates unchecked
    (an SSL context of its own, so the verified one is never changed under it). Both ways a
    GET is sent (the adapter's `send` and client.send) choose the pool and its checks through
    these two hooks (the pool's key through the first, which client.Pools reads too), so
    neither needs telling."""

    def build_connection_pool_key_attributes(self, request: Any, verify: Any,
                                             cert: Any = None) -> Any:
        return super().build_connection_pool_key_attributes(request, False, cert)

    def cert_verify(self, conn: Any, url: str, verify: Any, cert: Any) -> None:
        super().cert_verify(conn, url, False, cert)


def _tls(session: requests.Session, config: AgentConfig, watchdog: AnyWatchdog) -> None:
    """Nobody checked only for --insecure-skip-tls-verify's hosts: an adapter of their own,
    mounted on their URLs' prefixes (any port), so other hosts cost nothing more."""
    if not config.insecure_hosts:
        return
    urllib3.disable_warnings(urllib3.exceptions.InsecureRequestWarning)  # the engine warned once
    adapter = _Unverified(watchdog, peer_check(config))
    for host in config.insecure_hosts:
        name = f"[{host}]" if ":" in host else host
        session.mount(f"https://{name}:", adapter)
        session.mount(f"https://{name}/", adapter)
    if config.client_cert:
        session.cert = ((config.client_cert, config.client_key) if config.client_key
                        else config.client_cert)


class _Session(requests.Session):
    """A session that never looks for a redirect target: we follow redirects ourselves.

    Even with allow_redirects=False, requests decodes a 3xx Location as
    UTF-8 to offer `Response.next`, and raises on anything else (a raw
    Latin-1 "é"), which would turn a redirect into a decoding failure.
    """

    def get_redirect_target(self, resp: requests.Response) -> str | None:
        return None


_URL_SAFE = "".join(chr(i) for i in range(0x21, 0x7F))  # printable ASCII, "%" included


def _location(response: Response) -> str:
    """The Location header as the server meant it.

    http.client reads header bytes as Latin-1, but servers put UTF-8 in
    Location (or raw Latin-1): UTF-8 is decoded as such, and any other
    non-ASCII octet is percent-encoded as it is.
    """
    value = response.headers.get("Location", "")
    try:
        raw = value.encode("latin-1")
    except UnicodeEncodeError:
        return value
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return quote(raw, safe=_URL_SAFE)


def _sketch(text: str) -> bytes:
    """The shingle sketch of an incremental crawl's page; imported here, so that the agents of a
    batch crawl never load numpy."""
    from webcrawler.text.shingles import sketch

    return sketch(text)


def _conditional(request: Retrieve) -> dict[str, str]:
    """The headers that make a recrawl's GET conditional (RFC 9110 13.1): both validators when
    both are known (a server honours If-None-Match first)."""
    headers = {}
    if request.etag:
        headers["If-None-Match"] = request.etag
    if request.last_modified:
        headers["If-Modified-Since"] = request.last_modified
    return headers


def _content_length(response: Response) -> int | None:
    try:
        return int(response.headers.get("Content-Length", ""))
    except ValueError:
        return None


def sniff_type(body: bytes) -> str:
    """The media type of a body the server did not label: text/html if it looks like markup."""
    head = body[:1024].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if head.startswith(b"<") or b"<html" in head or b"<body" in head or b"<a href" in head:
        return "text/html"
    return "text/plain"


def x_robots_tag(value: str, robots_token: str) -> tuple[bool, bool]:
    """(noindex, nofollow) from an X-Robots-Tag header, honouring "botname:" prefixes."""
    if not value:
        return False, False
    ours = {robots_token.lower(), "robots"}
    applies, directives = True, set()
    for part in value.split(","):
        name, colon, rest = part.partition(":")
        if colon and name.strip().lower() not in _COLON_DIRECTIVES:
            applies = name.strip().lower() in ours
            part = rest
        if applies:
            directives |= robots_directives(part)
    none = "none" in directives
    return none or "noindex" in directives, none or "nofollow" in directives


_COLON_DIRECTIVES = frozenset({"unavailable_after", "max-snippet", "max-image-preview",
                               "max-video-preview"})
