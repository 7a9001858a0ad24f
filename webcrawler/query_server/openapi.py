"""The JSON API described for machines: OpenAPI 3.0 at /api/openapi.json.

Covers /api/search, /api/stats and the real-time API; the test suite fuzzes
the running server against this description (tests/query_server/test_openapi.py),
so an answer that drifts from it, or any 5xx, fails a test. The limits shown
(n, page, seconds) are the server's own, from its configuration.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, jsonify
from flask.typing import ResponseReturnValue

bp = Blueprint("openapi", __name__, url_prefix="/api")

JSON = "application/json"


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _answer(description: str, schema: str = "Error") -> dict[str, Any]:
    return {"description": description, "content": {JSON: {"schema": _ref(schema)}}}


def _object(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(required or properties)}


INT = {"type": "integer"}
NUMBER = {"type": "number"}
TEXT = {"type": "string"}
COUNTS = {"type": "object", "additionalProperties": INT}

SCHEMAS: dict[str, Any] = {
    "Error": _object({"error": TEXT}),
    "Hit": _object({"rank": INT, "score": {**INT, "minimum": 0, "maximum": 1000}, "title": TEXT,
                    "url": TEXT, "snippet": TEXT,
                    "type": {"type": "string", "enum": ["html", "pdf", "docx", "odt", "text"]}}),
    "SearchResults": _object(
        {"query": TEXT, "total": INT, "took_ms": NUMBER, "page": INT, "per_page": INT,
         "results": {"type": "array", "items": _ref("Hit")}, "message": TEXT},
        ("query", "total", "took_ms", "page", "per_page", "results")),
    "CrawlSummary": {**_object({"started_at": NUMBER, "ended_at": {**NUMBER, "nullable": True},
                                "documents": INT, "failures": INT,
                                "stop_reason": {**TEXT, "nullable": True}, "rate_per_hour": NUMBER}),
                     "nullable": True},
    "Stats": _object({"database": {"type": "boolean"}, "index": {"type": "boolean"},
                      "documents": COUNTS, "servers_known": INT, "servers_visited": INT,
                      "servers_indexed": INT, "links": INT, "failures": COUNTS, "exclusions": COUNTS,
                      "index_documents": INT, "index_bytes": INT, "sitemaps": INT,
                      "sitemap_urls": INT, "last_crawl": _ref("CrawlSummary")}),
    "JobStarted": _object({"id": TEXT, "status_url": TEXT, "page_url": TEXT}),
    "JobView": _object({"id": TEXT, "query": TEXT,
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
    job = _object({"q": TEXT, "seconds": {**NUMBER, "minimum": 1, "maximum": config["REALTIME_SECONDS"]},
                   "want": {**INT, "minimum": 1, "maximum": 100}, "from": TEXT}, ("q",))
    return {
        "/api/search": {"get": {
            "summary": "Search the index (the WebCrawler's vector-space ranking, 1000 for the best)",
            "parameters": [query, n, page, expand],
            "responses": {"200": _answer("Results", "SearchResults"),
                          "400": _answer("A query or parameter to retype")}}},
        "/api/stats": {"get": {"summary": "What the index holds and how the last crawl went",
                               "responses": {"200": _answer("Figures", "Stats")}}},
        "/api/realtime": {"post": {
            "summary": "Start a real-time search (same-origin JSON only)",
            "requestBody": {"required": True, "content": {JSON: {"schema": job}}},
            "responses": {"202": _answer("Started", "JobStarted"), "400": _answer("A bad request"),
                          "403": _answer("Refused: another site, or a start URL not allowed"),
                          "413": _answer("Body too large"), "415": _answer("Not JSON"),
                          "429": _answer("Too many searches running")}}},
        "/api/realtime/{job_id}": {
            "get": {"summary": "A job's progress and the results after the first `after`",
                    "parameters": [_job_id(), after],
                    "responses": {"200": _answer("The job", "JobView"), "400": _answer("Bad after"),
                                  "404": _answer("No such job")}},
            "delete": {"summary": "Cancel a job (same origin only)", "parameters": [_job_id()],
                       "responses": {"200": _answer("The job", "JobView"),
                                     "403": _answer("Refused: another site"),
                                     "404": _answer("No such job")}}},
    }


def describe(config: dict[str, Any]) -> dict[str, Any]:
    """The OpenAPI document for an app with this configuration."""
    return {"openapi": "3.0.3",
            "info": {"title": "WebCrawler search API", "version": "1"},
            "paths": _paths(config), "components": {"schemas": SCHEMAS}}


@bp.get("/openapi.json")
def openapi() -> ResponseReturnValue:
    return jsonify(describe(current_app.config))
