"""Serving the app with waitress, the production WSGI server (never Flask's dev server).

    make_server(app, host, port, threads) -> a bound, not yet running server
    make_tls_server(app, host, port, threads, cert, key)   the same over HTTPS (cheroot)
    ServerThread(app, host, port, threads)        in a background thread (tests, demo)
    exposure_warning(host, what)                  what listening beyond loopback exposes

A port that is busy raises PortInUseError, any other failure to listen
ServeError, each with a one-line message for the CLI to print.
"""

from __future__ import annotations

import errno
import ipaddress
import logging
import socket
import threading
from typing import Any

from flask import Flask
from waitress import wasyncore
from waitress.server import create_server

from webcrawler.errors import ServiceError
from webcrawler.web import guard

log = logging.getLogger(__name__)


class ServeError(ServiceError):
    """The server could not start; str(error) is a one-line message for the user."""


class PortInUseError(ServeError):
    """Another program is listening on the port."""


def make_server(app: Flask, host: str = "127.0.0.1", port: int = 5000, threads: int = 8) -> Any:
    """A waitress server listening on host:port (0 = any free port; see `.effective_port`),
    not yet running: call `.run()` (blocks) and `.close()`."""
    guard.allow_host(app, host)  # the server answers to the address it listens on
    sock = _bind(host, port)  # bound here, so a failure leaks neither socket nor threads
    try:
        return create_server(app, sockets=[sock], threads=threads, ident="webcrawler")
    except BaseException:
        sock.close()
        raise


class TLSServer:
    """cheroot's WSGI server with its TLS adapter, bound, not yet running: waitress, the plain
    HTTP server, has no TLS. The same three members as waitress's server."""

    def __init__(self, app: Flask, host: str, port: int, threads: int, cert: str,
                 key: str) -> None:
        from cheroot import wsgi
        from cheroot.ssl.builtin import BuiltinSSLAdapter

        try:
            adapter = BuiltinSSLAdapter(cert, key)
        except (OSError, ValueError) as error:  # unreadable files, a key that is not the cert's
            raise ServeError(f"--tls-cert {cert} / --tls-key {key}: {error}") from None
        self._server = wsgi.Server((host, port), app, numthreads=threads,
                                   server_name="webcrawler")
        self._server.ssl_adapter = adapter
        try:
            self._server.prepare()  # binds
        except OSError as error:
            raise _bind_error(error, host, port) from None
        self.effective_port: int = self._server.socket.getsockname()[1]

    def run(self) -> None:
        self._server.serve()

    def close(self) -> None:
        self._server.stop()


def make_tls_server(app: Flask, host: str, port: int, threads: int, cert: str,
                    key: str) -> TLSServer:
    """`make_server` over HTTPS with the PEM certificate `cert` and its key `key`."""
    guard.allow_host(app, host)
    return TLSServer(app, host, port, threads, cert, key)


def _bind(host: str, port: int) -> socket.socket:
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except socket.gaierror as error:
        raise ServeError(f"cannot listen on {host}: {error.strerror}") from None
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
    except OSError as error:
        sock.close()
        raise _bind_error(error, host, port) from None
    return sock


def _bind_error(error: OSError, host: str, port: int) -> ServeError:
    if error.errno == errno.EADDRINUSE:
        return PortInUseError(
            f"port {port} on {host} is already in use: stop the other server or choose "
            "another port with --port"
        )
    if error.errno in (errno.EACCES, errno.EPERM):
        return ServeError(f"not allowed to listen on {host}:{port}: choose a port above 1023")
    return ServeError(f"cannot listen on {host}:{port}: {error.strerror or error}")


SEARCH = "the search page, the JSON API and the real-time search"


def exposure_warning(host: str, what: str = SEARCH) -> str | None:
    """What binding to `host` exposes (`what`, a server that makes this machine fetch URLs),
    when it is not a loopback address; None when it is. Names other than localhost are not
    resolved (no DNS traffic at start): they get the warning."""
    name = host.strip("[]")
    if name.lower() == "localhost":
        return None
    try:
        if ipaddress.ip_address(name).is_loopback:
            return None
    except ValueError:
        pass
    where = "every network interface" if name in ("", "0.0.0.0", "::") else name
    return (f"warning: listening on {where}, not only on this machine: anyone who can reach it can "
            f"use {what}, which makes this machine "
            "fetch URLs. Name the host names to answer to with --allowed-host.")


def url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


class ServerThread:
    """The app served by waitress from a background thread until `stop()`; a context manager.

    Waitress's loop is not thread-safe, so the loop thread itself closes the
    server and its connections once asked to stop (closing from another thread
    races the loop's select()).
    """

    def __init__(
        self, app: Flask, host: str = "127.0.0.1", port: int = 0, threads: int = 4
    ) -> None:
        self.server = make_server(app, host=host, port=port, threads=threads)
        self.url = f"http://{url_host(host)}:{self.server.effective_port}/"
        self._stopping = threading.Event()
        self._closing = threading.Lock()  # the trigger is pulled before the loop closes it
        self._closed = False
        self._thread = threading.Thread(target=self._loop, name="query-server", daemon=True)

    def __enter__(self) -> ServerThread:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop serving: running requests finish, then every socket is closed."""
        with self._closing:
            self._stopping.set()
            if not self._closed:  # a closed trigger's descriptor may already be someone else's
                self.server.pull_trigger()  # wake the loop from select()
        self._thread.join(timeout)

    def _loop(self) -> None:
        connections = self.server._map  # waitress keeps its sockets here (as webtest relies on)
        try:
            while not self._stopping.is_set():
                wasyncore.loop(timeout=0.5, map=connections, count=1)
        finally:
            with self._closing:
                self._closed = True
                self.server.task_dispatcher.shutdown()
                wasyncore.close_all(connections)
