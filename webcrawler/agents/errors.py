"""Map whatever requests, urllib3, the socket layer or zlib raised to a `Reason` code.

Errors cross the process boundary as data, so every exception an agent can
meet must land on one stable code. requests wraps urllib3, which wraps the
socket error, so the whole chain (__cause__, __context__, MaxRetryError.reason)
is searched, most specific kind first: urllib3's NewConnectionError, raised
for refusals and DNS failures alike, is a subclass of its TimeoutError, so
"timeout" may only win when nothing more specific is in the chain.
"""

from __future__ import annotations

import socket
import ssl
import zlib
from collections.abc import Iterator

import requests
import urllib3.exceptions as u3

from webcrawler.agents.addresses import PrivateAddress
from webcrawler.agents.body import BodyError
from webcrawler.messages import Reason

_MAX_CHAIN = 12


def classify(exc: BaseException) -> tuple[str, str]:
    """(Reason code, short human detail) for an exception raised while retrieving."""
    detail = _detail(exc)
    if isinstance(exc, BodyError):
        return exc.reason, detail
    chain = list(_chain(exc))
    for kinds, reason in _RULES:
        if any(isinstance(e, kinds) and not _excluded(e, reason) for e in chain):
            return reason, detail
    return Reason.CONNECTION, detail


_RULES: tuple[tuple[tuple[type[BaseException], ...], str], ...] = (
    ((PrivateAddress,), Reason.PRIVATE),
    ((socket.gaierror, u3.NameResolutionError), Reason.DNS),
    ((ConnectionRefusedError,), Reason.REFUSED),
    ((ssl.SSLError, u3.SSLError, requests.exceptions.SSLError), Reason.CONNECTION),
    ((requests.exceptions.Timeout, u3.TimeoutError, TimeoutError), Reason.TIMEOUT),
    ((requests.exceptions.TooManyRedirects,), Reason.TOO_MANY_REDIRECTS),
    ((zlib.error, UnicodeError, u3.DecodeError, requests.exceptions.ContentDecodingError),
     Reason.DECODE),
)


def _excluded(exc: BaseException, reason: str) -> bool:
    """urllib3 files NewConnectionError under TimeoutError; it is a timeout only when it says so."""
    if reason != Reason.TIMEOUT or not isinstance(exc, u3.NewConnectionError):
        return False
    return "timed out" not in str(exc).lower()


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """The exception and everything it wraps, each once, breadth first."""
    todo, seen = [exc], set()
    while todo and len(seen) < _MAX_CHAIN:
        current = todo.pop(0)
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        wrapped = [current.__cause__, current.__context__, getattr(current, "reason", None)]
        wrapped += [arg for arg in current.args if isinstance(arg, BaseException)]
        todo += [w for w in wrapped if isinstance(w, BaseException)]


def _detail(exc: BaseException) -> str:
    """A one-line description, short enough to store."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return f"{type(exc).__name__}: {text}"[:300]
