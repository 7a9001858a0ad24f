"""The --deny-private check every connection an agent opens makes on its peer.

The rules (which addresses are public, which servers the scope names) are
protocol/addresses.py's, shared with the engine, which refuses IP literals before it
schedules a URL; this is the agent's half: the peer address of every connection it
actually opens, after DNS resolution and before a byte is sent, so a DNS answer that
changes between a check and the connect (rebinding) gains nothing.
"""

from __future__ import annotations

import socket
from collections.abc import Callable

from urllib3.connection import HTTPConnection, HTTPSConnection

from webcrawler.errors import FetchError
from webcrawler.protocol.addresses import Exempt, is_public
from webcrawler.protocol.messages import AgentConfig
from webcrawler.protocol.urls import DEFAULT_PORTS, origin


class PrivateAddress(FetchError, OSError):
    """The connection's peer is loopback, private, link-local, ...: refused before sending."""


PeerCheck = Callable[[HTTPConnection, socket.socket], None]


def peer_check(config: AgentConfig) -> PeerCheck | None:
    """With --deny-private, the check a connection makes on its socket right after connecting
    (before TLS or any byte is sent): a non-public peer is refused unless the scope names the
    server. None without --deny-private. deadline.WatchedAdapter's connections call it."""
    if not config.deny_private:
        return None
    exempt = Exempt(config.allowed_hosts, config.allowed_patterns)

    def check(conn: HTTPConnection, sock: socket.socket) -> None:
        _check_peer(conn, sock, "https" if isinstance(conn, HTTPSConnection) else "http", exempt)

    return check


def _check_peer(conn: HTTPConnection, sock: socket.socket, scheme: str, exempt: Exempt) -> None:
    host = conn.host.lower().rstrip(".")
    server = origin(scheme, f"[{host}]" if ":" in host else host, conn.port or DEFAULT_PORTS[scheme])
    if exempt.names(server):
        return
    peer = sock.getpeername()[0]
    if not is_public(peer.split("%", 1)[0]):
        sock.close()
        raise PrivateAddress(f"{conn.host} is at {peer}, a non-public address (--deny-private)")
