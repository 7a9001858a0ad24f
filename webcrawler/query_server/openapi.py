"""The JSON API described for machines: OpenAPI 3.0 at /api/openapi.json.

Covers /api/search, /api/suggest, /api/stats and the real-time API; the test suite fuzzes
the running server against this description (tests/query_server/test_openapi.py),
so an answer that drifts from it, or any 5xx, fails a test. The limits shown
(n, page, seconds) are the server's own, from its configuration.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, jsonify
from flask.typing import ResponseReturnValue

from webcrawler.query_server.api import MAX_SUGGESTIONS
from webcrawler.web.openapi import INT, JSON, NUMBER, TEXT, answer, object_schema, ref

bp = Blueprint("openapi", __name__, url_prefix="/api")

COUNTS = {"type": "object", "additionalProperties": INT}

SCHEMAS: dict[str, Any] = {
    "Error": object_schema({"error": TEXT}),
    "Hit": object_schema({"rank": INT, "score": {**INT, "minimum": 0, "maximum": 1000}, "title": TEXT,
                          "url": TEXT, "snippet": TEXT,
                          "type": {"type": "string", "enum": ["html", "pdf", "docx", "odt", "text"]},
                          "site": TEXT, "more": {**TEXT, "nullable": True}},
                         ("rank", "score", "title", "url", "snippet", "type")),
    "Facet": {"type": "array", "items": object_schema({"value": TEXT, "count": INT})},
    "SearchResults": object_schema(
        {"query": TEXT, "total": INT, "took_ms": NUMBER, "page": INT, "per_page": INT,
         "suggestion": {**TEXT, "nullable": True}, "expansions": {"type": "array", "items": TEXT},
         "results": {"type": "array", "items": ref("Hit")}, "message": TEXT,
         "facets": object_schema({"site": ref("Facet"), "type": ref("Facet"),
                                  "language": ref("Facet")})},
        ("query", "total", "took_ms", "page", "per_page", "suggestion", "expansions", "results",
         "facets")),
    "Suggestions": object_schema({"query": TEXT, "suggestions": {"type": "array", "items": TEXT}}),
    "CrawlSummary": {**object_schema({"started_at": NUMBER, "ended_at": {**NUMBER, "nullable": True},
                                "documents": INT, "failures": INT,
                                "stop_reason": {**TEXT, "nullable": True}, "rate_per_hour": NUMBER,
                                "requests": {**INT, "nullable": True},
                                "fetch_rate": {**NUMBER, "nullable": True},
                                "requests_per_second": {**NUMBER, "nullable": True}}),
                     "nullable": True},
    "Stats": object_schema({"database": {"type": "boolean"}, "index": {"type": "boolean"},
                      "documents": COUNTS, "servers_known": INT, "servers_visited": INT,
                      "servers_indexed": INT, "links": INT, "failures": COUNTS, "exclusions": COUNTS,
                      "index_documents": INT, "index_bytes": INT, "sitemaps": INT,
                      "sitemap_urls": INT, "last_crawl": ref("CrawlSummary")}),
    "JobStarted": object_schema({"id": TEXT, "status_url": TEXT, "page_url": TEXT}),
    "JobView": object_schema({"id": TEXT, "query": TEXT,
                        "state": {"type": "string", "enum": ["running", "done", "cancelled", "failed"]},
                        "seconds": NUMBER, "progress": {"type": "object"}, "total": INT,
                        "results": {"type": "array", "items": {"type": "object"}},
                        "summary": {"type": "object", "nullable": True},
                        "error": {**TEXT, "nullable": True}}),
}


def _job_id() -> dict[str, Any]:
    return {"name": "job_id", "in": "path", "required": True, "schema": TEXT}


def _paths(config: dict[str, Any]) -> dict[str, Any]:
    query = {"name": "q", "in": "query", "required": True,
             "schema": {**TEXT, "maxLength": config["MAX_QUERY_LENGTH"]}}
    n = {"name": "n", "in": "query", "schema": {**INT, "minimum": 1, "maximum": config["MAX_PER_PAGE"]}}
    page = {"name": "page", "in": "query", "schema": {**INT, "minimum": 1, "maximum": config["MAX_PAGE"]}}
    expand = {"name": "expand", "in": "query", "schema": {"type": "string", "enum": ["0", "1"]}}
    after = {"name": "after", "in": "query", "schema": {**INT, "minimum": 0}}
    seconds = {**NUMBER, "minimum": 1, "maximum": config["REALTIME_SECONDS"]}
    job = object_schema({"q": TEXT, "seconds": seconds,
                         "want": {**INT, "minimum": 1, "maximum": 100}, "from": TEXT}, ("q",))
    return {
        "/api/search": {"get": {
            "summary": "Search the index (the WebCrawler's vector-space ranking, 1000 for the best)",
            "parameters": [query, n, page, expand],
            "responses": {"200": answer("Results", "SearchResults"),
                          "400": answer("A query or parameter to retype")}}},
        "/api/suggest": {"get": {
            "summary": "Completions of a half-typed query (its last word, and likely queries from titles)",
            "parameters": [{**query, "schema": {**TEXT, "maxLength": config["MAX_QUERY_LENGTH"]}},
                           {"name": "n", "in": "query",
                            "schema": {**INT, "minimum": 1, "maximum": MAX_SUGGESTIONS}}],
            "responses": {"200": answer("Completions, most documents first", "Suggestions"),
                          "400": answer("A parameter to retype")}}},
        "/api/stats": {"get": {"summary": "What the index holds and how the last crawl went",
                               "responses": {"200": answer("Figures", "Stats")}}},
        "/api/realtime": {"post": {
            "summary": "Start a real-time search (same-origin JSON only)",
            "requestBody": {"required": True, "content": {JSON: {"schema": job}}},
            "responses": {"202": answer("Started", "JobStarted"), "400": answer("A bad request"),
                          "403": answer("Refused: another site, or a start URL not allowed"),
                          "413": answer("Body too large"), "415": answer("Not JSON"),
                          "429": answer("Too many searches running")}}},
        "/api/realtime/{job_id}": {
            "get": {"summary": "A job's progress and the results after the first `after`",
                    "parameters": [_job_id(), after],
                    "responses": {"200": answer("The job", "JobView"), "400": answer("Bad after"),
                                  "404": answer("No such job")}},
            "delete": {"summary": "Cancel a job (same origin only)", "parameters": [_job_id()],
                       "responses": {"200": answer("The job", "JobView"),
                                     "403": answer("Refused: another site"),
                                     "404": answer("No such job")}}},
    }


def describe(config: dict[str, Any]) -> dict[str, Any]:
    """The OpenAPI document for an app with this configuration."""
    return {"openapi": "3.0.3",
            "info": {"title": "WebCrawler search API", "version": "1"},
            "paths": _paths(config), "components": {"schemas": SCHEMAS}}


@bp.get("/openapi.json")
def openapi() -> ResponseReturnValue:
    return jsonify(describe(current_app.config))
