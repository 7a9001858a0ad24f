"""The agent's GET on urllib3's connection pool, without requests' work around each request.

requests prepares every request (the URL parsed, re-quoted and rebuilt, the headers merged
into a case-insensitive dict and checked, user:password looked for, hooks) and wraps every
response (its headers copied into another case-insensitive dict, a cookie jar built and
filled, the text encoding guessed), none of which a crawl's GET of a normalised URL needs.
`send` takes such a GET straight to the pool that the session's adapter picks (so TLS, the
certificate checks, the watchdog's and --deny-private's connection classes are the
adapter's), with the same timeouts, no retries, no redirects, the body unread, and urllib3's
errors wrapped as requests wraps them (errors.classify reads the whole chain either way).
`lean_path` says which URLs qualify: those preparation would give back unchanged. Every
other GET, and any with headers of its own (a conditional recrawl's, a server's
credentials), still goes through requests; the caller gets a `Response` either way.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import requests
from requests.adapters import HTTPAdapter
from requests.exceptions import (
    ConnectTimeout,
    InvalidHeader,
    InvalidURL,
    ProxyError,
    ReadTimeout,
    RetryError,
    SSLError,
)
from requests.utils import parse_header_links
from urllib3 import Timeout
from urllib3.exceptions import (
    ClosedPoolError,
    ConnectTimeoutError,
    HTTPError,
    LocationValueError,
    MaxRetryError,
    NewConnectionError,
    ProtocolError,
    ReadTimeoutError,
    ResponseError,
)
from urllib3.exceptions import InvalidHeader as Urllib3InvalidHeader
from urllib3.exceptions import ProxyError as Urllib3ProxyError
from urllib3.exceptions import SSLError as Urllib3SSLError

# What requests' preparation (urllib3's parse_url, then requote_uri) gives back as it is: a
# lower-case name or IPv4 host, a port without leading zeros, a path and a non-empty query of
# characters that need no quoting ("%" left out: escapes are re-cased and unreserved ones
# decoded), no user:password, no fragment. Dot segments are checked apart.
_LEAN_URL = re.compile(r"https?://[a-z0-9][a-z0-9.\-]*(?::([1-9][0-9]{0,4}))?"
                       r"(/[A-Za-z0-9\-._~!$&'()*+,;=:@/]*(?:\?[A-Za-z0-9\-._~!$&'()*+,;=:@/?]+)?)")


def lean_path(url: str) -> str | None:
    """The path and query to send for `url` when it can skip requests' preparation, else None."""
    match = _LEAN_URL.fullmatch(url)
    if match is None:
        return None
    port, target = match.groups()
    if port is not None and int(port) > 65535:
        return None
    path = target.partition("?")[0]
    if "/." in path and any(s in (".", "..") for s in path.split("/")):
        return None  # urllib3 would remove them
    return target


class Response:
    """What the agent reads of an HTTP response, the body left in `raw` (urllib3's, unread);
    closed as requests closes a streamed response."""

    __slots__ = ("headers", "raw", "status_code", "url")

    def __init__(self, status_code: int, headers: Mapping[str, str], url: str, raw: Any) -> None:
        self.status_code = status_code
        self.headers = headers  # case-insensitive, repeated fields joined by ", "
        self.url = url
        self.raw = raw

    @classmethod
    def of(cls, response: requests.Response) -> Response:
        return cls(response.status_code, response.headers, response.url or "", response.raw)

    @property
    def links(self) -> dict[str, dict[str, str]]:
        """The Link header's links by rel, as `requests.Response.links`."""
        header = self.headers.get("link")
        found: dict[str, dict[str, str]] = {}
        for link in parse_header_links(header) if header else ():
            key = link.get("rel") or link.get("url")
            if key is not None:
                found[key] = link
        return found

    def close(self) -> None:
        """As `requests.Response.close` of a body not consumed through requests."""
        self.raw.close()
        release = getattr(self.raw, "release_conn", None)
        if release is not None:
            release()

    def __enter__(self) -> Response:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def send(adapter: HTTPAdapter, url: str, target: str, headers: Mapping[str, str],
         timeout: tuple[float, float], verify: bool | str, cert: Any) -> Response:
    """GET `url` (`target`: its `lean_path`) with `headers` as they are, as `adapter.send`
    would send it prepared; its errors raised as requests raises them."""
    request = requests.PreparedRequest()  # what the adapter's TLS and pool choice read: url
    request.method, request.url = "GET", url
    try:
        pool = adapter.get_connection_with_tls_context(request, verify, None, cert)
    except LocationValueError as exc:
        raise InvalidURL(exc, request=request) from exc
    adapter.cert_verify(pool, url, verify, cert)
    try:
        raw = pool.urlopen(
            method="GET", url=target, body=None, headers=headers, redirect=False,
            assert_same_host=False, preload_content=False, decode_content=False,
            retries=adapter.max_retries, timeout=Timeout(connect=timeout[0], read=timeout[1]),
            chunked=False)
    except (ProtocolError, OSError) as exc:
        raise requests.ConnectionError(exc, request=request) from exc
    except MaxRetryError as exc:
        raise _wrapped(exc, request) from exc
    except ClosedPoolError as exc:
        raise requests.ConnectionError(exc, request=request) from exc
    except Urllib3ProxyError as exc:
        raise ProxyError(exc) from exc
    except (Urllib3SSLError, HTTPError) as exc:
        if isinstance(exc, Urllib3SSLError):
            raise SSLError(exc, request=request) from exc
        if isinstance(exc, ReadTimeoutError):
            raise ReadTimeout(exc, request=request) from exc
        if isinstance(exc, Urllib3InvalidHeader):
            raise InvalidHeader(exc, request=request) from exc
        raise
    return Response(raw.status, raw.headers, url, raw)


def _wrapped(exc: MaxRetryError, request: requests.PreparedRequest) -> requests.RequestException:
    """requests' exception for urllib3's MaxRetryError (`HTTPAdapter.send`'s choice)."""
    reason = exc.reason
    if isinstance(reason, ConnectTimeoutError) and not isinstance(reason, NewConnectionError):
        return ConnectTimeout(exc, request=request)
    if isinstance(reason, ResponseError):
        return RetryError(exc, request=request)
    if isinstance(reason, Urllib3ProxyError):
        return ProxyError(exc, request=request)
    if isinstance(reason, Urllib3SSLError):
        return SSLError(exc, request=request)
    return requests.ConnectionError(exc, request=request)
