"""Which credentials a request may carry: only those of the server it goes to.

A credential names a host (any port of it) or host:port (that port only). The match is on
the URL of each request, and agents never follow a document's redirect themselves (the
engine schedules the target as a request of its own), so a redirect to another host or port
is a request that carries nothing; robots.txt's redirect hops are checked one by one too.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from webcrawler.protocol.messages import Credential


def headers_for(url: str, credentials: tuple[Credential, ...]) -> dict[str, str]:
    """The credential headers `url`'s server may see ({} for every other server)."""
    if not credentials:
        return {}
    try:
        parts = urlsplit(url)
        host, port = (parts.hostname or "").lower(), parts.port
    except ValueError:
        return {}
    port = port or {"http": 80, "https": 443}.get(parts.scheme)
    wanted = (host, f"{host}:{port}", f"[{host}]:{port}")
    return {c.header: c.value for c in credentials if c.host in wanted}
