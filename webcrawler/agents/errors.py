"""Map whatever requests, urllib3, the socket layer or zlib raised to a `Reason` code.

Errors cross the process boundary as data, so every exception an agent can
meet must land on one stable code. requests wraps urllib3, which wraps the
socket error, so the whole chain (__cause__, __context__, MaxRetryError.reason)
is searched, most specific kind first: urllib3's NewConnectionError, raised
for refusals and DNS failures alike, is a subclass of its TimeoutError, so
"timeout" may only win when nothing more specific is in the chain.

The detail is ours too, for the errors a hostile or broken server causes
("not an HTTP response", "a header line longer than 64 KiB", ...): a
library's message ("('Connection aborted.', LineTooLong(...))") says
little to an operator and must never reach a visitor.
"""

from __future__ import annotations

import http.client
import socket
import ssl
import zlib
from collections.abc import Iterator

import requests
import urllib3.exceptions as u3

from webcrawler.agents.body import BodyError
from webcrawler.agents.peer_check import PrivateAddress
from webcrawler.protocol.messages import Reason

_MAX_CHAIN = 12


def classify(exc: BaseException) -> tuple[str, str]:
    """(Reason code, short human detail) for an exception raised while retrieving."""
    if isinstance(exc, BodyError):
        return exc.reason, _detail(exc)
    chain = list(_chain(exc))
    detail = _our_detail(chain) or _detail(exc)
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


# Most specific first: RemoteDisconnected is also a BadStatusLine and a
# ConnectionResetError; InvalidChunkLength is also an IncompleteRead.
_DETAILS: tuple[tuple[tuple[type[BaseException], ...], str], ...] = (
    ((http.client.RemoteDisconnected,), "connection closed without an answer"),
    ((http.client.LineTooLong,), "a status or header line longer than 64 KiB"),
    ((http.client.BadStatusLine,), "not an HTTP response (bad status line)"),
    ((u3.InvalidChunkLength,), "bad chunk size in a chunked body"),
    ((u3.IncompleteRead, http.client.IncompleteRead),
     "body cut short or malformed (Content-Length or chunk sizes)"),
    ((u3.InvalidHeader, requests.exceptions.InvalidHeader), "invalid or contradictory headers"),
    # before the connect timeout: urllib3 files refusals and DNS failures under it
    ((ConnectionRefusedError,), "connection refused"),
    ((socket.gaierror, u3.NameResolutionError), "host name lookup failed"),
    ((u3.ConnectTimeoutError, requests.exceptions.ConnectTimeout),
     "no connection within the connect timeout"),
    ((u3.ReadTimeoutError, requests.exceptions.ReadTimeout), "no data within the read timeout"),
    ((ssl.SSLCertVerificationError,),
     "TLS: the server's certificate is not trusted (--ca-bundle for a private CA)"),
    ((ssl.SSLError,), "TLS handshake or record failed"),
    ((ConnectionResetError,), "connection reset by the server"),
)
# the resolver's answer that the name does not exist (not that it could not answer now)
NO_SUCH_NAME = frozenset({socket.EAI_NONAME, getattr(socket, "EAI_NODATA", socket.EAI_NONAME)})
UNKNOWN_HOST = "unknown host"


def _our_detail(chain: list[BaseException]) -> str | None:
    """Our words for the first known error in the chain, or None."""
    if any(isinstance(e, socket.gaierror) and e.errno in NO_SUCH_NAME for e in chain):
        return UNKNOWN_HOST
    for kinds, detail in _DETAILS:
        if any(isinstance(e, kinds) for e in chain):
            return detail
    for e in chain:
        if type(e) is http.client.HTTPException and "headers" in str(e):
            return "too many header lines"
    return None


def _excluded(exc: BaseException, reason: str) -> bool:
    """urllib3 files NewConnectionError under TimeoutError; it is a timeout only when it says so."""
    if reason != Reason.TIMEOUT or not isinstance(exc, u3.NewConnectionError):
        return False
    return "timed out" not in str(exc).lower()


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """The exception and everything it wraps, each once, breadth first."""
    todo, seen = [exc], set[int]()
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
