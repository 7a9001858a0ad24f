"""Who may talk to our servers (the query server, the workbench): the Host they answer to,
and who may change state.

Two defences run before every request:

- DNS rebinding: a hostile page whose name is re-pointed at 127.0.0.1 reaches
  the server with its own name in `Host`. The server answers only to the names
  it was told to serve (the `allowed_hosts` option, plus `localhost` and the
  address it is bound to, any port: hosts.py); others get 421 and a short plain
  answer that reflects nothing.
- Cross-site requests: a state-changing request (anything but GET, HEAD and
  OPTIONS: starting or cancelling a real-time search) must come from the
  server's own origin (`Origin`, or `Sec-Fetch-Site` when there is no Origin)
  and, when it has a body, carry JSON. A page elsewhere can send a form or
  text/plain POST without a CORS preflight, but never application/json, so a
  request with neither header (curl, scripts) is let through only as JSON.

This module must never trust a Host it has not checked: everything that builds
an absolute URL (e.g. /opensearch.xml) runs after `check_host`.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import Flask, Response, current_app, jsonify, request
from flask.typing import ResponseReturnValue

from webcrawler.web.hosts import DEFAULT_HOSTS, answers_to, host_name, normal

__all__ = ["DEFAULT_HOSTS", "allow_host", "allowed_hosts", "check_host", "check_origin",
           "host_name", "init_app"]

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def init_app(app: Flask) -> None:
    app.before_request(check_host)
    app.before_request(check_origin)


def allow_host(app: Flask, name: str) -> None:
    """Also answer to `name` (any port): the address the server is bound to, or an operator's name."""
    hosts = set(app.config.get("ALLOWED_HOSTS") or ())
    hosts.add(normal(name))
    app.config["ALLOWED_HOSTS"] = tuple(sorted(hosts))


def allowed_hosts(app: Flask) -> tuple[str, ...]:
    """The names `app` answers to besides hosts.DEFAULT_HOSTS (as `allow_host` added them)."""
    return tuple(app.config.get("ALLOWED_HOSTS") or ())


def check_host() -> ResponseReturnValue | None:
    if not answers_to(request.headers.get("Host", ""), allowed_hosts(current_app)):
        return Response("This server does not answer to that host name.\n", status=421,
                        mimetype="text/plain")
    return None


def check_origin() -> ResponseReturnValue | None:
    if request.method in SAFE_METHODS:
        return None
    origin = request.headers.get("Origin")
    fetch_site = request.headers.get("Sec-Fetch-Site")
    if origin is not None:
        if not _same_origin(origin):
            return _refuse(403, "Requests from other sites may not change anything here.")
    elif fetch_site is not None and fetch_site not in ("same-origin", "none"):
        return _refuse(403, "Requests from other sites may not change anything here.")
    if request.method == "POST" and request.routing_exception is None and not request.is_json:
        return _refuse(415, "Send the request as JSON (Content-Type: application/json).")
    return None


def _same_origin(origin: str) -> bool:
    """`origin` is this server's own: same scheme and the (already checked) Host, port included."""
    try:
        parts = urlsplit(origin)
    except ValueError:
        return False
    own = urlsplit(request.host_url)
    return (parts.scheme, parts.netloc.lower()) == (own.scheme, own.netloc.lower()) and \
        parts.path in ("", "/")


def _refuse(status: int, message: str) -> ResponseReturnValue:
    return jsonify(error=message), status


