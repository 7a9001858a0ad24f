"""Error pages and security headers for every answer.

HTTP errors (400, 404, 405, 500, ...) get a clean page, or a JSON body
`{"error": message}` under /api/; an unexpected exception is logged with its
traceback and shown as a plain 500, never as a stack trace. Every answer gets
X-Content-Type-Options, a Content-Security-Policy that allows only the page's
own inline style and scripts (by nonce; fetches to this server only), a
Referrer-Policy and frame denial; answers about a query or a job (the API,
results pages, job pages) also get Cache-Control: no-store.
"""

from __future__ import annotations

import logging
import secrets

from flask import Flask, Response, g, jsonify, make_response, render_template, request
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import HTTPException, InternalServerError, MethodNotAllowed

log = logging.getLogger(__name__)

MESSAGES = {
    400: "The request could not be understood.",
    404: "There is no page at this address.",
    405: "This address does not answer that kind of request.",
    413: "The request is too large.",
    500: "Something went wrong on the server; the error has been logged.",
}


PRIVATE_PATHS = ("/api/", "/realtime/", "/search")


def init_app(app: Flask) -> None:
    app.register_error_handler(HTTPException, handle_http_error)
    app.register_error_handler(Exception, handle_unexpected)
    app.after_request(add_security_headers)
    app.jinja_env.globals["csp_nonce"] = csp_nonce


def wants_json() -> bool:
    return request.path.startswith("/api/")


def error_response(status: int, message: str) -> ResponseReturnValue:
    """A clean error answer: JSON under /api/, the error page elsewhere."""
    if wants_json():
        return jsonify(error=message), status
    return render_template("error.html", status=status, message=message), status


def handle_http_error(error: HTTPException) -> ResponseReturnValue:
    status = error.code or 500
    response = make_response(error_response(status, MESSAGES.get(status, error.name)))
    if isinstance(error, MethodNotAllowed) and error.valid_methods:
        response.headers["Allow"] = ", ".join(error.valid_methods)
    return response


def handle_unexpected(error: Exception) -> ResponseReturnValue:
    log.exception("unexpected error answering %s", request.path)
    return handle_http_error(InternalServerError())


def csp_nonce() -> str:
    """This request's nonce for the page's one inline <style> and its scripts."""
    if "csp_nonce" not in g:
        g.csp_nonce = secrets.token_urlsafe(16)
    return str(g.csp_nonce)


def add_security_headers(response: Response) -> Response:
    headers = response.headers
    headers.setdefault("X-Content-Type-Options", "nosniff")
    headers.setdefault("Referrer-Policy", "no-referrer")
    headers.setdefault("X-Frame-Options", "DENY")
    if request.path.startswith(PRIVATE_PATHS):  # answers about one query or job: never cached
        headers.setdefault("Cache-Control", "no-store")
    headers.setdefault(
        "Content-Security-Policy",
        f"default-src 'none'; style-src 'nonce-{csp_nonce()}'; script-src 'nonce-{csp_nonce()}'; "
        "connect-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; "
        "frame-ancestors 'none'",
    )
    return response
