"""Exceptions from requests/urllib3/sockets land on stable Reason codes (no real DNS lookups)."""

from __future__ import annotations

import socket
import zlib

import pytest
import requests
import urllib3.exceptions as u3

from webcrawler.agents.body import BodyTooLarge
from webcrawler.agents.errors import classify
from webcrawler.protocol.messages import Reason


def _wrapped(reason: Exception) -> requests.exceptions.ConnectionError:
    """What requests raises: ConnectionError(MaxRetryError(reason=...)), chained."""
    retry = u3.MaxRetryError(None, "/", reason)  # type: ignore[arg-type]
    error = requests.exceptions.ConnectionError(retry)
    error.__context__ = retry
    return error


def test_dns_failure() -> None:
    gai = socket.gaierror(socket.EAI_NONAME, "Name or service not known")
    resolution = u3.NameResolutionError("nowhere.invalid", None, gai)  # type: ignore[arg-type]
    resolution.__cause__ = gai
    assert classify(_wrapped(resolution)) == (Reason.DNS, "unknown host")
    again = socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")
    resolution = u3.NameResolutionError("busy.example", None, again)  # type: ignore[arg-type]
    resolution.__cause__ = again
    assert classify(_wrapped(resolution)) == (Reason.DNS, "host name lookup failed")


def test_connection_refused() -> None:
    refused = ConnectionRefusedError(111, "Connection refused")
    new = u3.NewConnectionError(None, "Failed to establish a new connection: refused")  # type: ignore[arg-type]
    new.__cause__ = refused
    assert classify(_wrapped(new)) == (Reason.REFUSED, "connection refused")  # not a timeout


@pytest.mark.wallclock
def test_timeouts() -> None:
    assert classify(requests.exceptions.ConnectTimeout("slow"))[0] == Reason.TIMEOUT
    assert classify(requests.exceptions.ReadTimeout("slow"))[0] == Reason.TIMEOUT
    assert classify(u3.ReadTimeoutError(None, "/", "read timed out"))[0] == Reason.TIMEOUT  # type: ignore[arg-type]
    assert classify(TimeoutError())[0] == Reason.TIMEOUT


def test_other_kinds() -> None:
    assert classify(requests.exceptions.SSLError("bad cert"))[0] == Reason.CONNECTION
    assert classify(u3.ProtocolError("reset", ConnectionResetError()))[0] == Reason.CONNECTION
    assert classify(requests.exceptions.TooManyRedirects())[0] == Reason.TOO_MANY_REDIRECTS
    assert classify(zlib.error("bad"))[0] == Reason.DECODE
    assert classify(BodyTooLarge("big"))[0] == Reason.TOO_LARGE
    assert classify(RuntimeError("bug"))[0] == Reason.CONNECTION


def test_detail_is_short_and_named() -> None:
    reason, detail = classify(ValueError("x" * 1000))
    assert detail.startswith("ValueError: ") and len(detail) <= 300
