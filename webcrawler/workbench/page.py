"""The workbench page: the crawl form, live graph and outline views, counters, results.

One template (templates/workbench.html) and one small dependency-free script
(static/workbench.js) beside the vendored cytoscape.js (installed by `make`
from the npm registry, never a CDN). The page's CSP allows scripts from this
server only, and its one inline style by nonce.
"""

from __future__ import annotations

from flask import Blueprint, current_app, render_template
from flask.typing import ResponseReturnValue

from webcrawler.web.errors import csp_nonce
from webcrawler.workbench.definition import ACTIONS, ORDERS, SCOPES

bp = Blueprint("workbench_page", __name__)


@bp.get("/")
def index() -> ResponseReturnValue:
    html = render_template("workbench.html", orders=ORDERS, scopes=SCOPES, actions=ACTIONS,
                           caps=current_app.config["CRAWL_CAPS"], style_nonce=csp_nonce())
    response = current_app.make_response(html)
    response.headers["Content-Security-Policy"] = (
        f"default-src 'none'; script-src 'self'; style-src 'self' 'nonce-{csp_nonce()}'; "
        "connect-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; "
        "frame-ancestors 'none'")
    return response
