r"""The --deny-private safety: which addresses a crawl may connect to.

A page on the Web can link to ``http://127.0.0.1:6379/`` or to a name whose
DNS answer is ``10.0.0.5``; a crawler that follows it reaches services that
were never meant to be public (SSRF). With `AgentConfig.deny_private` the
agent checks the peer address of every connection it actually opens, after
DNS resolution and before a byte is sent (agents/peer_check.py), so a DNS answer
that changes between a check and the connect (rebinding) gains nothing. The engine
makes the same check on IP literals before it schedules a URL (`refused_literal`).
The rules are here, in the protocol room, because the engine and the agents share them.

Servers the crawl's scope names explicitly are exempt, so a crawl of a
loopback or intranet web still works: its seeds' hosts (any port), and the
IP-literal servers an include pattern matches (``^http://127\.0\.5\.[0-9]+:8080/``
names four demo servers; a pattern is tried on ``scheme://host[:port]/``).

    is_public(address) -> bool                  global unicast, no private IPv4 inside
    Exempt(hosts, patterns).names(origin) -> bool  does the scope name this server?
    refused_literal(origin, exempt) -> bool       an IP literal server the safety refuses
    robots_hop(url, target) -> bool               may a robots.txt redirect lead there?

This module never resolves names itself and never sends a request.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable

from webcrawler.protocol.urls import origin_parts, split

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


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


class Exempt:
    """The servers the crawl's scope names explicitly: seeds' hosts, include patterns."""

    def __init__(self, hosts: Iterable[str] = (), patterns: Iterable[str] = ()) -> None:
        self.hosts = frozenset(hosts)
        self.patterns = [re.compile(p) for p in patterns]

    def names(self, server: str) -> bool:
        r"""Is `server` (``scheme://host[:port]``, as `urls.normalize` writes it) named?

        Patterns name IP literals only: a loose pattern (``docs\.example\.org``) must not
        exempt ``docs.example.org.attacker.test``, whose DNS answer the attacker chooses."""
        host = origin_parts(server)[1]
        if host in self.hosts:
            return True
        return _literal(host) is not None and any(p.search(server + "/") for p in self.patterns)


def refused_literal(server: str, exempt: Exempt) -> bool:
    """Is `server`'s host an IP literal that is not public, on a server the scope does not name?"""
    ip = _literal(origin_parts(server)[1])
    if ip is None:
        return False  # a name: its addresses are checked when the agent connects
    return not is_public(ip) and not exempt.names(server)


def _literal(host: str) -> Address | None:
    try:
        return ipaddress.ip_address(host[1:-1] if host.startswith("[") else host)
    except ValueError:
        return None


def robots_hop(url: str, target: str) -> bool:
    """May a robots.txt redirect from `url` lead to `target`? The agent follows those itself,
    unchecked by the engine's scope, so one that leaves the host must ask for another
    ``/robots.txt``: a crawled site cannot make the agent GET any URL of another server."""
    same_host = origin_parts(split(url)[0])[1] == origin_parts(split(target)[0])[1]
    return same_host or split(target)[1] == "/robots.txt"
