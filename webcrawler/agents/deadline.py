"""Cut a fetch at its total deadline in every phase, even inside a blocking socket read.

requests' timeouts apply to each socket operation: a server that sends its
status line or headers one byte per second never trips a 20-second read
timeout, and http.client reads those lines before we see any of them. So an
agent keeps one `Watchdog` thread, armed with the deadline of the fetch in
progress; every socket the fetch connects or reuses is registered with it
(through `WatchedAdapter`'s connection classes), and when the deadline passes
the watchdog shuts those sockets down. shutdown(2) wakes a blocked recv (it
returns end-of-file) in any phase: connect, TLS handshake, status line,
headers, body, each hop of a redirect chain. The fetch then fails with
whatever error the cut caused, and the caller, seeing `disarm()` return
True, answers "timeout" instead.

Registered sockets are duplicates of the connection's descriptor, so the
watchdog never shuts down a descriptor number that was closed and reused
meanwhile (an agent's pipe to the engine is a socket too); they are closed
at `disarm`. Chosen over SIGALRM because it works in any thread; an agent, whose main
thread alone fetches, uses `AlarmWatchdog`, the same cut by SIGALRM without a thread.

`arm` wakes the thread only when it sleeps past the new deadline (or without one): a thread
still asleep towards an earlier fetch's deadline, which comes first, wakes then and waits on
for the new one. A crawl's deadlines only move later, so the thread wakes about once a total
timeout instead of at every fetch (docs/measurements.md).
"""

from __future__ import annotations

import logging
import signal
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

log = logging.getLogger(__name__)


class Watchdog:
    """Shuts down the sockets of the armed fetch when its deadline passes (one thread)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._deadline: float | None = None  # None: nothing to watch
        self._sockets: list[socket.socket] = []
        self._fired = False
        self._closed = False
        self._until: float | None = None  # what the thread sleeps towards; None: no deadline
        self._thread = threading.Thread(target=self._run, name="fetch-watchdog", daemon=True)
        self._thread.start()

    def arm(self, deadline: float) -> None:
        """Start watching a fetch that must be over by `deadline` (time.monotonic())."""
        with self._cond:
            self._release()
            self._deadline, self._fired = deadline, False
            if self._until is None or deadline < self._until:
                self._cond.notify()

    def watch(self, sock: socket.socket | None) -> None:
        """Register a socket of the armed fetch; one registered after the deadline is cut at once."""
        if sock is None or self._deadline is None or (copy := _duplicate(sock)) is None:
            return
        with self._cond:
            _register(self._sockets, copy, self._fired)

    def disarm(self) -> bool:
        """Stop watching; True if the deadline passed and the fetch's sockets were cut."""
        with self._cond:
            fired = self._fired
            self._deadline, self._fired = None, False
            self._release()
            return fired

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._deadline = None
            self._release()
            self._cond.notify()
        self._thread.join()

    def _run(self) -> None:
        with self._cond:
            while not self._closed:
                if self._deadline is None or self._fired:
                    self._until = None
                    self._cond.wait()
                    continue
                left = self._deadline - time.monotonic()
                if left > 0:
                    self._until = self._deadline
                    self._cond.wait(left)
                    continue
                self._fired = True
                _cut(self._sockets)

    def _release(self) -> None:
        _close_all(self._sockets)


class AlarmWatchdog:
    """`Watchdog`'s cut, by SIGALRM instead of a thread: for a process whose main thread alone
    fetches (an agent). A process that never starts a thread keeps glibc's malloc on its
    single-threaded path, without a lock taken for each allocation and free past its cache,
    and libxml2 allocates and frees some ten thousand times a page (docs/measurements.md).
    The signal interrupts a blocked socket call of the main thread; its handler, which
    Python runs in the main thread before retrying the call, shuts the registered sockets
    down, as the thread would. Linux hands a process's SIGALRM to its main thread first, so
    the cut holds in an agent that renders (render.py starts threads). Made and used in the
    main thread only (signal.signal's rule); the handler it replaces is put back at `close`."""

    def __init__(self) -> None:
        self._deadline: float | None = None
        self._sockets: list[socket.socket] = []
        self._fired = False
        self._previous = signal.signal(signal.SIGALRM, self._on_alarm)

    def arm(self, deadline: float) -> None:
        """Start watching a fetch that must be over by `deadline` (time.monotonic())."""
        self._release()
        self._deadline, self._fired = deadline, False
        left = deadline - time.monotonic()
        if left > 0:
            signal.setitimer(signal.ITIMER_REAL, left)
        else:
            self._fired = True

    def watch(self, sock: socket.socket | None) -> None:
        """Register a socket of the armed fetch; one registered after the deadline is cut at once."""
        if sock is None or self._deadline is None or (copy := _duplicate(sock)) is None:
            return
        _register(self._sockets, copy, self._fired)

    def disarm(self) -> bool:
        """Stop watching; True if the deadline passed and the fetch's sockets were cut."""
        signal.setitimer(signal.ITIMER_REAL, 0)
        fired = self._fired
        self._deadline, self._fired = None, False
        self._release()
        return fired

    def close(self) -> None:
        self.disarm()
        signal.signal(signal.SIGALRM, self._previous)

    def _on_alarm(self, signum: int, frame: Any) -> None:
        if self._deadline is None or self._fired:
            return  # disarmed since: the alarm is stale
        left = self._deadline - time.monotonic()
        if left > 0:  # early: wait on
            signal.setitimer(signal.ITIMER_REAL, left)
            return
        self._fired = True
        _cut(self._sockets)

    def _release(self) -> None:
        _close_all(self._sockets)


AnyWatchdog = Watchdog | AlarmWatchdog  # what `WatchedAdapter`'s connections register with


def _duplicate(sock: socket.socket) -> socket.socket | None:
    """A duplicate of `sock`'s descriptor to register, None if it is closed already."""
    try:
        return socket.fromfd(sock.fileno(), sock.family, sock.type)
    except OSError:
        return None  # already closed: nothing left to cut


def _register(sockets: list[socket.socket], copy: socket.socket, fired: bool) -> None:
    """Keep `copy` to cut; cut it at once when the deadline has passed already."""
    sockets.append(copy)
    if fired:
        _shut(copy)


def _cut(sockets: list[socket.socket]) -> None:
    log.debug("deadline passed: cutting %d socket(s)", len(sockets))
    for sock in sockets:
        _shut(sock)


def _close_all(sockets: list[socket.socket]) -> None:
    for sock in sockets:
        sock.close()
    sockets.clear()


def _shut(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass  # not connected (yet, or any more): nothing to wake


class _Watched:
    """Mixin for urllib3 connections: register every new or reused socket with `watchdog`,
    after `check_peer` (the --deny-private check, peer_check.py) has accepted a new one."""

    watchdog: AnyWatchdog
    check_peer: Callable[[Any, socket.socket], None] | None
    sock: socket.socket | None

    def _new_conn(self) -> socket.socket:
        sock: socket.socket = super()._new_conn()  # type: ignore[misc]
        if self.check_peer is not None:
            self.check_peer(self, sock)
        self.watchdog.watch(sock)
        return sock

    def request(self, *args: Any, **kwargs: Any) -> None:
        self.watchdog.watch(self.sock)  # a kept-alive connection; None for a new one
        super().request(*args, **kwargs)  # type: ignore[misc]


class WatchedAdapter(HTTPAdapter):
    """A requests adapter whose connections register their sockets with `watchdog`."""

    def __init__(self, watchdog: AnyWatchdog,
                 check_peer: Callable[[Any, socket.socket], None] | None = None,
                 trust: Callable[[], Any] | None = None) -> None:
        self.watchdog = watchdog  # before super().__init__, which builds the pool manager
        self.check_peer = check_peer
        self.trust = trust  # makes whom HTTPS trusts (fetch.trust_context); None: requests'
        self.ssl_context: Any = None  # made at the first HTTPS request
        super().__init__()

    def get_connection_with_tls_context(self, request: Any, verify: Any, proxies: Any = None,
                                        cert: Any = None) -> Any:
        """The trust context is made when the first HTTPS request needs it: loading the
        system's certificates costs tens of milliseconds of CPU, which every agent of a crawl
        of plain HTTP sites paid at its start for nothing."""
        if (self.trust is not None and self.ssl_context is None
                and str(request.url).lower().startswith("https:")):
            self.ssl_context = self.trust()
            self.poolmanager.connection_pool_kw["ssl_context"] = self.ssl_context
        return super().get_connection_with_tls_context(request, verify, proxies, cert)

    def cert_verify(self, conn: Any, url: str, verify: Any, cert: Any) -> None:
        """requests points every verified connection at certifi's bundle, which urllib3 would
        load into our context on each connection (certifi's CAs trusted too, and the parse paid
        every time): with a context of our own, its trust is all there is."""
        super().cert_verify(conn, url, verify, cert)
        if self.ssl_context is not None and verify is True:
            conn.ca_certs = conn.ca_cert_dir = None

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        if self.ssl_context is not None:
            kwargs["ssl_context"] = self.ssl_context
        super().init_poolmanager(*args, **kwargs)
        attrs = {"watchdog": self.watchdog, "check_peer": staticmethod(self.check_peer)
                 if self.check_peer else None}
        http = type("WatchedHTTPConnection", (_Watched, HTTPConnection), attrs)
        https = type("WatchedHTTPSConnection", (_Watched, HTTPSConnection), attrs)
        self.poolmanager.pool_classes_by_scheme = {
            "http": type("WatchedHTTPPool", (HTTPConnectionPool,), {"ConnectionCls": http}),
            "https": type("WatchedHTTPSPool", (HTTPSConnectionPool,), {"ConnectionCls": https}),
        }
