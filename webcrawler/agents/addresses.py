"""The --deny-private safety: which addresses a crawl may connect to.

A page on the Web can link to ``http://127.0.0.1:6379/`` or to a name whose
DNS answer is ``10.0.0.5``; a crawler that follows it reaches services that
were never meant to be public (SSRF). With `AgentConfig.deny_private` the
agent checks the peer address of every connection it actually opens, after
DNS resolution and before a byte is sent, so a DNS answer that changes
between a check and the connect (rebinding) gains nothing. The engine makes
the same check on IP literals before it schedules a URL (`refused_literal`).

Hosts the crawl's scope names explicitly (its seeds' hosts, `allowed`) are
exempt, so a crawl of a loopback or intranet web still works.

    is_public(address) -> bool            global unicast, and no private IPv4 inside
    refused_literal(host, allowed) -> bool  an IP literal host the safety refuses
    guard(session, config)                  make a requests session check its peers

This module never resolves names itself and never sends a request.
"""

from __future__ import annotations

import ipaddress
import socket
from typing import Any

import requests
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

from webcrawler.messages import AgentConfig

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


class PrivateAddress(OSError):
    """The connection's peer is loopback, private, link-local, ...: refused before sending."""


def is_public(address: str | Address) -> bool:
    """Is `address` a global unicast address (not loopback, private, link-local,
    unspecified, multicast, reserved or shared), including any IPv4 it embeds?"""
    ip = ipaddress.ip_address(address) if isinstance(address, str) else address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:  # what the socket really reaches
            return is_public(ip.ipv4_mapped)
        embedded = ip.sixtofour or (ip.teredo[1] if ip.teredo else None)
        if embedded is None and ip in _NAT64:
            embedded = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        if embedded is not None and not is_public(embedded):
            return False
    return ip.is_global and not ip.is_multicast and not ip.is_reserved


_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


def refused_literal(host: str, allowed: frozenset[str] | tuple[str, ...]) -> bool:
    """Is `host` (as `urls.normalize` writes it) an IP literal that is not public nor allowed?"""
    if host in allowed:
        return False
    try:
        ip = ipaddress.ip_address(host[1:-1] if host.startswith("[") else host)
    except ValueError:
        return False  # a name: its addresses are checked when the agent connects
    return not is_public(ip)


def guard(session: requests.Session, config: AgentConfig) -> None:
    """Make `session` refuse connections to non-public peers (unless the host is allowed)."""
    if not config.deny_private:
        return
    adapter = _GuardedAdapter(frozenset(config.allowed_hosts))
    session.mount("http://", adapter)
    session.mount("https://", adapter)


def _check_peer(conn: HTTPConnection, sock: socket.socket, allowed: frozenset[str]) -> None:
    host = conn.host.lower().rstrip(".")
    host = f"[{host}]" if ":" in host else host
    if host in allowed:
        return
    peer = sock.getpeername()[0]
    if not is_public(peer.split("%", 1)[0]):
        sock.close()
        raise PrivateAddress(f"{conn.host} is at {peer}, a non-public address (--deny-private)")


class _GuardedHTTPConnection(HTTPConnection):
    allowed: frozenset[str] = frozenset()

    def _new_conn(self) -> socket.socket:
        sock = super()._new_conn()
        _check_peer(self, sock, self.allowed)
        return sock


class _GuardedHTTPSConnection(HTTPSConnection):
    allowed: frozenset[str] = frozenset()

    def _new_conn(self) -> socket.socket:
        sock = super()._new_conn()  # before the TLS handshake: nothing sent yet
        _check_peer(self, sock, self.allowed)
        return sock


class _GuardedAdapter(HTTPAdapter):
    """An adapter whose pools open `_Guarded*Connection`s carrying the allowed hosts."""

    def __init__(self, allowed: frozenset[str]) -> None:
        self._allowed = allowed
        super().__init__()

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        http = type("GuardedHTTP", (_GuardedHTTPConnection,), {"allowed": self._allowed})
        https = type("GuardedHTTPS", (_GuardedHTTPSConnection,), {"allowed": self._allowed})
        self.poolmanager.pool_classes_by_scheme = {
            "http": type("GuardedHTTPPool", (HTTPConnectionPool,), {"ConnectionCls": http}),
            "https": type("GuardedHTTPSPool", (HTTPSConnectionPool,), {"ConnectionCls": https}),
        }
