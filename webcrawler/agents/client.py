"""The agent's GET on urllib3's connection pool, without requests' work around each request.

requests prepares every request (the URL parsed, re-quoted and rebuilt, the headers merged
into a case-insensitive dict and checked, user:password looked for, hooks) and wraps every
response (its headers copied into another case-insensitive dict, a cookie jar built and
filled, the text encoding guessed), none of which a crawl's GET of a normalised URL needs.
`send` takes such a GET straight to the pool that the session's adapter picks (so TLS, the
certificate checks, the watchdog's and --deny-private's connection classes are the
adapter's; `Pools` remembers that choice per origin while the pool manager would make it
again), with the same timeouts, no retries, no redirects, the body unread, and urllib3's
errors wrapped as requests wraps them (errors.classify reads the whole chain either way).
`lean_path` says which URLs qualify: those preparation would give back unchanged. Every
other GET, and any with headers of its own (a conditional recrawl's, a server's
credentials), still goes through requests; the caller gets a `Response` either way.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
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
from urllib3.connectionpool import HTTPConnectionPool, port_by_scheme
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
         timeout: tuple[float, float], verify: bool | str, cert: Any,
         pools: Pools | None = None) -> Response:
    """GET `url` (`target`: its `lean_path`) with `headers` as they are, as `adapter.send`
    would send it prepared; its errors raised as requests raises them. `pools`, when given,
    spares a later GET to the same origin the adapter's choice of its pool."""
    request = requests.PreparedRequest()  # what the adapter's TLS and pool choice read: url
    request.method, request.url = "GET", url
    origin = url[:len(url) - len(target)]
    pool = pools.get(adapter, origin, verify, cert) if pools is not None else None
    if pool is None:
        try:
            pool = adapter.get_connection_with_tls_context(request, verify, None, cert)
        except LocationValueError as exc:
            raise InvalidURL(exc, request=request) from exc
        if pools is not None:
            pools.remember(adapter, origin, request, verify, cert, pool)
    adapter.cert_verify(pool, url, verify, cert)
    try:
        raw = pool.urlopen(
            method="GET", url=target, body=None, headers=headers, redirect=False,
            assert_same_host=False, preload_content=False, decode_content=False,
            retries=adapter.max_retries, timeout=_timeout(*timeout),
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


@lru_cache(maxsize=16)
def _timeout(connect: float, read: float) -> Timeout:
    """One `Timeout` per pair of values: the pool works on a clone of it (`_get_timeout`), so
    it can be shared, and a crawl's GETs mostly repeat the configured pair."""
    return Timeout(connect=connect, read=read)


@dataclass(frozen=True, slots=True)
class _Chosen:
    """A pool the adapter chose for an origin, and what that choice depended on."""

    adapter: HTTPAdapter
    manager: Any  # the adapter's PoolManager when it chose
    settings: dict[str, Any]  # a copy of the manager's connection_pool_kw then
    verify: bool | str
    cert: Any
    key: Any  # the manager's key of the pool (its PoolKey)


class Pools:
    """The pool each origin (scheme, host, port as the URL writes them) got from its adapter,
    so that a later GET skips the adapter's choice: the URL parsed again, the proxy looked
    for, the TLS settings and the pool key built anew, for the same answer.

    A remembered pool is used only where the adapter would pick it again: the same adapter and
    pool manager, the same verify and client certificate, the manager's settings unchanged
    (the first HTTPS GET adds the trust context to them, deadline.WatchedAdapter), and the
    pool still the manager's under its key. That last lookup is the one the manager makes
    itself, so a pool it evicted or closed (the adapter closed) is chosen anew, and its least
    recently used order stays what the adapter's choices would make it. The connection
    classes are the pool's own, so the watchdog and --deny-private apply as before. At most
    `limit` origins are kept: then the memory starts over."""

    def __init__(self, limit: int = 64) -> None:
        self.limit = limit
        self._chosen: dict[str, _Chosen] = {}

    def get(self, adapter: HTTPAdapter, origin: str, verify: bool | str,
            cert: Any) -> HTTPConnectionPool | None:
        """The pool the adapter would choose for `origin` now, or None: let it choose."""
        chosen = self._chosen.get(origin)
        if (chosen is None or chosen.adapter is not adapter
                or chosen.manager is not adapter.poolmanager or chosen.verify != verify
                or chosen.cert != cert or chosen.settings != chosen.manager.connection_pool_kw):
            return None
        pools = chosen.manager.pools
        with pools.lock:  # PoolManager.connection_from_pool_key's own lookup
            pool: HTTPConnectionPool | None = pools.get(chosen.key)
        return pool

    def remember(self, adapter: HTTPAdapter, origin: str, request: requests.PreparedRequest,
                 verify: bool | str, cert: Any, pool: HTTPConnectionPool) -> None:
        """Remember the adapter's choice of `pool` for `origin`, if its key, built as the
        adapter's pool manager builds it, is found to lead the manager to that very pool."""
        manager = adapter.poolmanager
        try:
            key = _pool_key(adapter, request, verify, cert)
        except (ValueError, KeyError):  # a URL or scheme the manager would refuse
            return
        with manager.pools.lock:
            if manager.pools.get(key) is not pool:
                return
        if len(self._chosen) >= self.limit:
            self._chosen.clear()
        self._chosen[origin] = _Chosen(adapter, manager, dict(manager.connection_pool_kw),
                                       verify, cert, key)

    def clear(self) -> None:
        self._chosen.clear()


def _pool_key(adapter: HTTPAdapter, request: requests.PreparedRequest, verify: bool | str,
              cert: Any) -> Any:
    """The key under which the adapter's pool manager keeps the pool for `request`: what
    `HTTPAdapter.get_connection_with_tls_context` (no proxy) and
    `PoolManager.connection_from_host` build."""
    host, pool_kwargs = adapter.build_connection_pool_key_attributes(request, verify, cert)
    manager = adapter.poolmanager
    context = dict(manager.connection_pool_kw)
    for name, value in pool_kwargs.items():
        if value is None:
            context.pop(name, None)
        else:
            context[name] = value
    scheme = host["scheme"] or "http"
    port = host["port"]
    context.update(scheme=scheme, host=host["host"],
                   port=port_by_scheme.get(scheme.lower(), 80) if port is None else port)
    return manager.key_fn_by_scheme[scheme.lower()](context)
