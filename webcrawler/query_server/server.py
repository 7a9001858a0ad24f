"""Serving the app with waitress, the production WSGI server (never Flask's dev server).

    make_server(app, host, port, threads) -> a bound, not yet running server
    serve(data_dir, host, port, db_url, threads)  blocks until interrupted

A port that is busy raises PortInUseError, any other failure to listen
ServeError, each with a one-line message for the CLI to print.
"""

from __future__ import annotations

import errno
import logging
import socket
from pathlib import Path
from typing import Any

from flask import Flask
from waitress.server import create_server

log = logging.getLogger(__name__)


class ServeError(Exception):
    """The server could not start; str(error) is a one-line message for the user."""


class PortInUseError(ServeError):
    """Another program is listening on the port."""


def make_server(app: Flask, host: str = "127.0.0.1", port: int = 5000, threads: int = 8) -> Any:
    """A waitress server listening on host:port (0 = any free port; see `.effective_port`),
    not yet running: call `.run()` (blocks) and `.close()`."""
    sock = _bind(host, port)  # bound here, so a failure leaks neither socket nor threads
    try:
        return create_server(app, sockets=[sock], threads=threads, ident="webcrawler")
    except BaseException:
        sock.close()
        raise


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


def serve(
    data_dir: Path,
    host: str = "127.0.0.1",
    port: int = 5000,
    db_url: str | None = None,
    threads: int = 8,
) -> None:
    """Serve searches of `data_dir` until interrupted (Ctrl-C)."""
    from webcrawler.query_server import create_app

    app = create_app(Path(data_dir), db_url=db_url)
    server = make_server(app, host=host, port=port, threads=threads)
    print(f"Search at http://{_url_host(host)}:{server.effective_port}/", flush=True)
    try:
        server.run()
    except KeyboardInterrupt:
        log.info("query server interrupted")
    finally:
        server.close()
        app.extensions["webcrawler.sources"].close()


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host
