"""Which credentials a request may carry: only those of the server and scheme it goes to.

A credential names a host (any port of it) or host:port (that port only), and one scheme:
https unless its table says `scheme = "http"`. So a credential meant for an https intranet is
never sent in clear: not to an `http://` link to the same host, not to the same host:port
named with http:// on another site, not to an https->http redirect. Nor is any credential
sent where TLS verification is skipped (`--insecure-skip-tls-verify`): whoever answers there
need not be the server. The match is on the URL of each request, and agents never follow a
document's redirect themselves (the engine schedules the target as a request of its own), so
a redirect to another host, port or scheme is a request that carries nothing; robots.txt's
redirect hops are checked one by one too.

A response to a credentialed request is kept (`--keep-responses`, incremental crawls) without
the headers that carry a credential or a session: Set-Cookie and its kin, the credential's own
header echoed back, any header whose value holds the secret. So the database and a WARC export
hold no key to the intranet.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from webcrawler.protocol.messages import Credential


def headers_for(url: str, credentials: tuple[Credential, ...],
                verify_tls: bool = True) -> dict[str, str]:
    """The credential headers `url`'s server may see ({} for every other server and scheme,
    and for every server when TLS is not verified)."""
    if not credentials or not verify_tls:
        return {}
    try:
        parts = urlsplit(url)
        host, port = (parts.hostname or "").lower(), parts.port
    except ValueError:
        return {}
    scheme = parts.scheme.lower()
    port = port or {"http": 80, "https": 443}.get(scheme)
    wanted = (host, f"{host}:{port}", f"[{host}]:{port}")
    return {c.header: c.value for c in credentials if c.host in wanted and c.scheme == scheme}


# Headers by which a server hands out a session or proves one: never stored for a fetch that
# carried a credential.
SESSION_HEADERS = frozenset({"set-cookie", "set-cookie2", "authentication-info",
                             "proxy-authentication-info", "authorization", "proxy-authorization",
                             "cookie"})


def stored_headers(headers: tuple[tuple[str, str], ...], sent: dict[str, str]
                   ) -> tuple[tuple[str, str], ...]:
    """`headers` of a response to a request that carried `sent` (headers_for's answer), as they
    may be stored: all of them when nothing was sent."""
    if not sent:
        return headers
    names = SESSION_HEADERS | {name.lower() for name in sent}
    secrets = [value for value in sent.values() if value]
    return tuple((name, value) for name, value in headers
                 if name.lower() not in names and not any(s in value for s in secrets))
