"""Real HTTP servers on loopback addresses, for tests, benchmarks and the demo.

A `LoopbackWeb` runs one threaded HTTP server per `Site`, each on its own
127.x.y.z address (distinct "servers" to the crawler), and records every
request with its arrival and finish times, so tests can check politeness and
ordering from the server's side, as a site owner would from an access log.

A site answers from `routes`: a mapping of path (with query) to a `Page`, or a
callable taking the path and returning a `Page` or None (404). Only loopback
addresses are accepted: this code must never serve, or invite traffic to,
anything else. A site may speak TLS (`tls`, a server-side SSLContext) and demand
a header (`auth`, e.g. HTTP Basic: 401 without it); a page may drop the
connection instead of answering (`reset`), as real servers do under load.
"""

from __future__ import annotations

import ipaddress
import socket
import ssl
import struct
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass(frozen=True)
class Page:
    """One answer. `body` may be bytes, str (encoded as UTF-8) or an iterable of byte chunks."""

    body: bytes | str | Iterable[bytes] = b""
    status: int = 200
    content_type: str = "text/html; charset=utf-8"
    headers: tuple[tuple[str, str], ...] = ()
    delay: float = 0.0  # seconds before the answer starts
    chunk_delay: float = 0.0  # seconds between chunks of an iterable body
    content_length: bool = True  # send Content-Length (only for bytes/str bodies)
    reset: bool = False  # no answer: the connection is reset (TCP RST)


def html(title: str, body: str = "", links: Iterable[tuple[str, str]] = ()) -> Page:
    """A small HTML page with a title, some text and links (href, anchor)."""
    anchors = "\n".join(f'<a href="{href}">{text}</a>' for href, text in links)
    return Page(
        f"<!DOCTYPE html><html><head><title>{title}</title></head>"
        f"<body><h1>{title}</h1><p>{body}</p>\n{anchors}\n</body></html>"
    )


Routes = Mapping[str, Page] | Callable[[str], Page | None]


@dataclass
class Site:
    """One web server: an address, a port (0 = any free) and its routes."""

    address: str
    routes: Routes
    port: int = 0
    robots_txt: str | None = None  # shortcut for routes["/robots.txt"]
    tls: ssl.SSLContext | None = None  # serve HTTPS with this server-side context
    auth: tuple[str, str] | None = None  # (header, value) every request must carry, else 401

    def answer(self, path: str) -> Page | None:
        if path == "/robots.txt" and self.robots_txt is not None:
            return Page(self.robots_txt, content_type="text/plain")
        if callable(self.routes):
            return self.routes(path)
        return self.routes.get(path)


@dataclass(frozen=True)
class Hit:
    """One request as the server saw it."""

    server: str  # "host:port"
    path: str
    started: float  # time.monotonic() when the request line was read
    # when the answer's last write began (or when it was abandoned): no client can have the
    # whole answer earlier. A stamp after the write could come late: the thread that wrote
    # waits for the GIL of the process serving it, while the client already acts on the answer
    finished: float
    status: int
    user_agent: str
    headers: tuple[tuple[str, str], ...] = ()


@dataclass
class AccessLog:
    """Every request of every site, in arrival order; safe to read from tests while serving."""

    hits: list[Hit] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    active: int = 0  # requests being answered now

    def begin(self) -> None:
        with self.lock:
            self.active += 1

    def add(self, hit: Hit) -> None:
        with self.lock:
            self.hits.append(hit)
            self.active -= 1

    def settle(self, timeout: float = 2.0) -> None:
        """Wait until no request is being answered: a client may read its answer a moment
        before the server has written the request to this log."""
        end = time.monotonic() + timeout
        while self.active and time.monotonic() < end:
            time.sleep(0.01)

    def snapshot(self) -> list[Hit]:
        """The hits in arrival order: each is logged once answered, so a short answer on one
        connection can be logged before a longer one that arrived first (seen under load)."""
        with self.lock:
            return sorted(self.hits, key=lambda hit: hit.started)

    def for_server(self, server: str) -> list[Hit]:
        return [h for h in self.snapshot() if h.server == server]

    def paths(self, server: str | None = None) -> list[str]:
        return [h.path for h in self.snapshot() if server is None or h.server == server]


def _check_loopback(address: str) -> None:
    if not ipaddress.ip_address(address).is_loopback:
        raise ValueError(f"{address} is not a loopback address: test webs serve on 127.0.0.0/8 only")


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "LoopbackWeb/1"
    _last_write: float | None = None  # when the answer's last write began: Hit.finished

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - silence stderr
        pass

    def do_HEAD(self) -> None:  # noqa: N802
        self.do_GET()

    def do_GET(self) -> None:  # noqa: N802
        started = time.monotonic()
        self._last_write = None
        web: _SiteServer = self.server  # type: ignore[assignment]
        web.log.begin()
        page = self._page(web.site)
        status = page.status
        try:
            if page.delay:
                time.sleep(page.delay)
            if page.reset:
                status = self._reset()
            else:
                self._write(page)
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            status = -1  # the client went away
            self._last_write = None  # abandoned: when it was
        finally:
            web.log.add(
                Hit(
                    server=web.name,
                    path=self.path,
                    started=started,
                    finished=self._last_write or time.monotonic(),
                    status=status,
                    user_agent=self.headers.get("User-Agent", ""),
                    headers=tuple(self.headers.items()),
                )
            )

    def _page(self, site: Site) -> Page:
        if site.auth is not None and self.headers.get(site.auth[0]) != site.auth[1]:
            return Page("authentication required", status=401, content_type="text/plain",
                        headers=(("WWW-Authenticate", 'Basic realm="test"'),))
        return site.answer(self.path) or Page("not found", status=404, content_type="text/plain")

    def _reset(self) -> int:
        """Drop the connection with a TCP RST (SO_LINGER 0): the client sees a reset."""
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.close_connection = True
        self._last_write = time.monotonic()
        self.connection.close()
        return -2

    def _write(self, page: Page) -> None:
        body = page.body.encode("utf-8") if isinstance(page.body, str) else page.body
        self.send_response(page.status)
        if page.content_type:
            self.send_header("Content-Type", page.content_type)
        for name, value in page.headers:
            self.send_header(name, value)
        if isinstance(body, bytes):
            if page.content_length:
                self.send_header("Content-Length", str(len(body)))
            else:
                self.send_header("Connection", "close")
                self.close_connection = True
            self._end_headers()
            if self.command != "HEAD":
                self._last_write = time.monotonic()
                self.wfile.write(body)
            return
        self.send_header("Connection", "close")
        self.close_connection = True
        self._end_headers()
        if self.command == "HEAD":
            return
        for chunk in body:
            self._last_write = time.monotonic()
            self.wfile.write(chunk)
            self.wfile.flush()
            if page.chunk_delay:
                time.sleep(page.chunk_delay)


    def _end_headers(self) -> None:
        self._last_write = time.monotonic()
        self.end_headers()


class _SiteServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(self, site: Site, log: AccessLog) -> None:
        _check_loopback(site.address)
        self.site = site
        self.log = log
        super().__init__((site.address, site.port), _Handler)
        self.name = f"{site.address}:{self.server_address[1]}"
        if site.tls is not None:
            self.socket = site.tls.wrap_socket(self.socket, server_side=True)

    def handle_error(self, request: object, client_address: object) -> None:
        """A client that hangs up (a crawler cutting off a body) is not an error here."""

    def server_bind(self) -> None:
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        super().server_bind()


class LoopbackWeb:
    """Serve several sites at once; use as a context manager.

    >>> with LoopbackWeb([Site("127.0.1.1", {"/": html("Home")})]) as web:
    ...     web.url("127.0.1.1", "/")
    """

    def __init__(self, sites: Iterable[Site]) -> None:
        self.log = AccessLog()
        self.servers = [_SiteServer(site, self.log) for site in sites]
        self._threads: list[threading.Thread] = []

    def __enter__(self) -> LoopbackWeb:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        for server in self.servers:
            thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                                      name=f"web-{server.name}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def stop(self) -> None:
        for server in self.servers:
            server.shutdown()
            server.server_close()
        for thread in self._threads:
            thread.join(timeout=5)

    def origin(self, address: str) -> str:
        """``http://address:port`` (https for a TLS site) of the site served on `address`."""
        server = self._server(address)
        return f"{'https' if server.site.tls else 'http'}://{server.name}"

    def url(self, address: str, path: str = "/") -> str:
        return self.origin(address) + path

    def name(self, address: str) -> str:
        """``address:port``, as used in the access log."""
        return self._server(address).name

    def __iter__(self) -> Iterator[str]:
        return (server.name for server in self.servers)

    def _server(self, address: str) -> _SiteServer:
        for server in self.servers:
            if server.site.address == address:
                return server
        raise KeyError(address)
