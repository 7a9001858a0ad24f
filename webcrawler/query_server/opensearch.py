"""How browsers and robots see the server: /opensearch.xml and /robots.txt.

The OpenSearch description lets a browser add the search engine (each page's
head links to it with rel="search"). robots.txt asks every robot to keep out
of /search and /api/: results pages are not documents to index.
"""

from __future__ import annotations

from flask import Blueprint, Response, render_template, request

bp = Blueprint("opensearch", __name__)

ROBOTS_TXT = "User-agent: *\nDisallow: /search\nDisallow: /api/\n"


@bp.get("/opensearch.xml")
def description() -> Response:
    body = render_template("opensearch.xml", root=request.host_url)
    return Response(body, mimetype="application/opensearchdescription+xml")


@bp.get("/robots.txt")
def robots() -> Response:
    return Response(ROBOTS_TXT, mimetype="text/plain")
