"""The workbench's token: bound beyond loopback, nobody without it may start a crawl.

A workbench makes its machine fetch URLs, so one reachable from a network must not
answer strangers. With a token (the `token` option: `--token`, WEBCRAWLER_WORKBENCH_TOKEN,
or one generated and printed at start when the address is not loopback), every request
but the page's static files must carry it:

- scripts and `webcrawler crawl --on`: ``Authorization: Bearer TOKEN`` (the scheme's name in
  any case, as RFC 9110 says it is: `bearer`, `BEARER`);
- a browser: the URL printed at start (``/?token=TOKEN``) sets an HttpOnly, SameSite=Strict
  cookie and redirects to ``/``, so the page, its API calls and its event streams (which
  cannot send headers) carry the cookie, and the token leaves the address bar.

A wrong or missing token is 401 and reflects nothing. Compared in constant time. A token the
operator gave is never printed (only its `fingerprint`): it may be in use elsewhere, and
terminals and logs are read by others.
"""

from __future__ import annotations

import hashlib
import secrets

from flask import Flask, current_app, jsonify, redirect, request
from flask.typing import ResponseReturnValue

COOKIE = "workbench_token"
SCHEME = "bearer"


def new_token() -> str:
    return secrets.token_urlsafe(24)


def fingerprint(token: str) -> str:
    """What may be shown of a token: enough to tell two apart, nothing to use."""
    return "sha256:" + hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()[:12]


def init_app(app: Flask) -> None:
    app.before_request(check_token)


def _given() -> str:
    scheme, _, value = request.headers.get("Authorization", "").strip().partition(" ")
    if scheme.lower() == SCHEME:
        return value.strip()
    return request.cookies.get(COOKIE, "")


def _matches(given: str, token: str) -> bool:
    return secrets.compare_digest(given.encode("utf-8", "replace"), token.encode("utf-8"))


def check_token() -> ResponseReturnValue | None:
    token = current_app.config.get("TOKEN")
    if not token or request.path.startswith("/static/"):
        return None
    offered = request.args.get("token")
    if offered is not None and request.path == "/" and request.method == "GET":
        if not _matches(offered, token):
            return _refuse()
        response = redirect("/", code=303)
        response.set_cookie(COOKIE, token, httponly=True, samesite="Strict", path="/",
                            secure=request.scheme == "https")
        return response
    if _matches(_given(), token):
        return None
    return _refuse()


def _refuse() -> ResponseReturnValue:
    message = ("This workbench needs its token: open the address it printed at start, or send "
               "Authorization: Bearer TOKEN.")
    if request.path.startswith("/api/"):
        response = jsonify(error=message)
    else:
        response = current_app.make_response((message + "\n", 401, {"Content-Type": "text/plain"}))
    response.status_code = 401
    response.headers["WWW-Authenticate"] = 'Bearer realm="workbench"'
    return response
