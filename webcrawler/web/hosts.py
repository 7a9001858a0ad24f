"""Which Host headers our servers answer to: the one rule against DNS rebinding, without Flask.

A hostile page whose name is re-pointed at 127.0.0.1 reaches a loopback server with its own
name in `Host`. Every server of ours (the query server and the workbench through guard.py,
the crawl's `--metrics-port` directly) answers only to `localhost`, the loopback addresses and
the names it was told to serve, any port; so a page elsewhere reads nothing. Pure functions,
importing nothing: the crawl loads this without loading Flask.
"""

from __future__ import annotations

DEFAULT_HOSTS = ("localhost", "127.0.0.1", "::1")


def host_name(host: str) -> str | None:
    """The name part of a Host header (no port, no brackets, lower case), or None when malformed."""
    host = host.strip()
    if host.startswith("["):
        name, bracket, rest = host[1:].partition("]")
        if not bracket or (rest and not is_port(rest)):
            return None
        return normal(name)
    name, colon, port = host.partition(":")
    if colon and not is_port(":" + port):
        return None
    return normal(name) if name else None


def answers_to(host: str, names: tuple[str, ...] = ()) -> bool:
    """Does a server that serves `names` (besides the defaults) answer to this Host header?"""
    name = host_name(host)
    return name is not None and name in {normal(n) for n in (*DEFAULT_HOSTS, *names)}


def is_port(text: str) -> bool:
    return text == ":" or (text[1:].isascii() and text[1:].isdigit() and len(text) <= 6)


def normal(name: str) -> str:
    return name.strip().strip("[]").rstrip(".").lower()
