"""The workbench page: the crawl form, live graph and outline views, counters, results.

One template (templates/workbench.html) and one small dependency-free script
(static/workbench.js) beside the vendored cytoscape.js (installed by `make`
from the npm registry, never a CDN; without it the page says how to get it and
keeps its outline and counters). The page's CSP allows scripts from this
server only, and its one inline style by nonce.
"""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Flask, current_app, jsonify, render_template, request
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import HTTPException, InternalServerError

from webcrawler.web.errors import MESSAGES, csp_nonce
from webcrawler.workbench.definition import ACTIONS, ORDERS, SCOPES

bp = Blueprint("workbench_page", __name__)
GRAPH_LIBRARY = Path(__file__).parent / "static" / "vendor" / "cytoscape.min.js"


def init_errors(app: Flask) -> None:
    """The workbench's own error answers: the query server's error page links to its search
    page, a route the workbench does not have."""
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(Exception, _unexpected)


def _http_error(error: HTTPException) -> ResponseReturnValue:
    status = error.code or 500
    message = MESSAGES.get(status, error.name)
    if request.path.startswith("/api/"):
        response = jsonify(error=message)
    else:
        response = current_app.make_response(render_template(
            "workbench_error.html", status=status, message=message, style_nonce=csp_nonce()))
    response.status_code = status
    if error.code == 405 and getattr(error, "valid_methods", None):
        response.headers["Allow"] = ", ".join(error.valid_methods)  # type: ignore[attr-defined]
    return response


def _unexpected(error: Exception) -> ResponseReturnValue:
    current_app.logger.exception("unexpected error answering %s", request.path)
    return _http_error(InternalServerError())


@bp.get("/")
def index() -> ResponseReturnValue:
    html = render_template("workbench.html", orders=ORDERS, scopes=SCOPES, actions=ACTIONS,
                           caps=current_app.config["CRAWL_CAPS"], style_nonce=csp_nonce(),
                           graph_library=GRAPH_LIBRARY.is_file())
    response = current_app.make_response(html)
    response.headers["Content-Security-Policy"] = (
        f"default-src 'none'; script-src 'self'; style-src 'self' 'nonce-{csp_nonce()}'; "
        "connect-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; "
        "frame-ancestors 'none'")
    return response
