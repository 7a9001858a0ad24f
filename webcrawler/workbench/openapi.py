"""The workbench's JSON API described for machines: OpenAPI 3.0 at /api/openapi.json.

tests/workbench/test_openapi.py fuzzes a running workbench against it with
schemathesis, so an answer that drifts from it, or any 5xx, fails a test.
The limits shown are the operator's caps, from the app's configuration.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, jsonify
from flask.typing import ResponseReturnValue

from webcrawler.web.openapi import JSON, NUMBER, TEXT, answer, object_schema, ref
from webcrawler.workbench.definition import ACTIONS, FOLLOW, ORDERS, PROCESS, SCOPES

bp = Blueprint("workbench_openapi", __name__, url_prefix="/api")

_PATTERN_TEXT = {"type": "string", "maxLength": 2000}
MATCH = {"oneOf": [_PATTERN_TEXT,
                   object_schema({"regexp": _PATTERN_TEXT, "case": {"type": "boolean"}}, ("regexp",)),
                   object_schema({"wildcard": _PATTERN_TEXT, "case": {"type": "boolean"}}, ("wildcard",))]}
NULLABLE_OBJECT = {"type": "object", "nullable": True}
NULLABLE_TEXT = {**TEXT, "nullable": True}


def _limits(caps: dict[str, Any]) -> dict[str, Any]:
    def bound(name: str, low: int, kind: str) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": kind, "minimum": low}
        if name in caps:
            schema["maximum"] = caps[name]
        return schema

    return {"type": "object", "additionalProperties": False, "properties": {
        "pages": bound("pages", 1, "integer"), "depth": bound("depth", 0, "integer"),
        "seconds": bound("seconds", 1, "number"), "bytes": bound("bytes", 1, "integer")}}


def _definition(caps: dict[str, Any]) -> dict[str, Any]:
    def rules(names: tuple[str, ...]) -> dict[str, Any]:
        return {"type": "object", "additionalProperties": False,
                "properties": {n: {"type": "string", "maxLength": 100} if n == "label" else MATCH
                               for n in names}}

    return {"type": "object", "additionalProperties": False, "required": ["roots"], "properties": {
        "name": {"type": "string", "maxLength": 200},
        "roots": {"type": "array", "minItems": 1, "maxItems": 20,
                  "items": {"type": "string", "format": "uri", "pattern": "^https?://"}},
        "limits": _limits(caps), "scope": {"type": "string", "enum": list(SCOPES)},
        "follow": rules(FOLLOW), "process": rules(PROCESS),
        "order": {"type": "string", "enum": list(ORDERS)},
        "action": {"type": "object", "required": ["type"], "properties": {
            "type": {"type": "string", "enum": list(ACTIONS)}, "pattern": MATCH,
            "format": {"type": "string", "enum": ["csv", "jsonl"]}}}}}


CRAWL = object_schema({"id": TEXT, "state": {"type": "string",
                                       "enum": ["running", "stopping", "done", "stopped", "failed",
                                                "interrupted"]},
                 "started": NUMBER, "definition": {"type": "object"}, "counters": {"type": "object"},
                 "summary": NULLABLE_OBJECT, "action": NULLABLE_TEXT, "result": NULLABLE_TEXT,
                 "processed": {"type": "integer", "nullable": True}, "refused": NULLABLE_TEXT,
                 "events": {"type": "integer", "nullable": True},
                 "events_dropped": {"type": "integer", "nullable": True}, "error": NULLABLE_TEXT})


def _crawl_id() -> dict[str, Any]:
    return {"name": "crawl_id", "in": "path", "required": True, "schema": TEXT}


def _paths(caps: dict[str, Any]) -> dict[str, Any]:
    missing = answer("No such crawl")
    after = {"name": "after", "in": "query", "schema": {"type": "integer", "minimum": 0}}
    return {
        "/api/crawls": {
            "post": {"summary": "Start a crawl from a definition (same-origin JSON only)",
                     "requestBody": {"required": True,
                                     "content": {JSON: {"schema": ref("Definition")}}},
                     "responses": {"202": answer("Started", "CrawlStarted"),
                                   "400": answer("A definition to correct"),
                                   "403": answer("Refused: another site"),
                                   "413": answer("Body too large"), "415": answer("Not JSON"),
                                   "429": answer("Too many crawls running"),
                                   "507": answer("The disk is full")}},
            "get": {"summary": "Every crawl, newest first, with its definition",
                    "responses": {"200": answer("The crawls", "CrawlList")}}},
        "/api/crawls/{crawl_id}": {
            "get": {"summary": "A crawl's state, counters and result", "parameters": [_crawl_id()],
                    "responses": {"200": answer("The crawl", "Crawl"), "404": missing}},
            "delete": {"summary": "Stop a crawl (same origin only)", "parameters": [_crawl_id()],
                       "responses": {"200": answer("The crawl", "Crawl"),
                                     "403": answer("Refused: another site"), "404": missing}}},
        "/api/crawls/{crawl_id}/events": {"get": {
            "summary": "The crawl's events as server-sent events, ending with the crawl",
            "parameters": [_crawl_id(), after],
            "responses": {"200": {"description": "text/event-stream",
                                  "content": {"text/event-stream": {"schema": TEXT}}},
                          "400": answer("Bad after"), "404": missing}}},
        "/api/crawls/{crawl_id}/result": {"get": {
            "summary": "The action's result as a download", "parameters": [_crawl_id()],
            "responses": {"200": {"description": "The file",
                                  "content": {"application/octet-stream": {"schema": TEXT}}},
                          "404": answer("No such crawl, or no result yet")}}},
    }


def describe(caps: dict[str, Any]) -> dict[str, Any]:
    schemas = {"Error": object_schema({"error": TEXT}), "Definition": _definition(caps), "Crawl": CRAWL,
               "CrawlList": object_schema({"crawls": {"type": "array", "items": ref("Crawl")}}),
               "CrawlStarted": object_schema({"id": TEXT, "status_url": TEXT, "events_url": TEXT,
                                              "result_url": TEXT})}
    return {"openapi": "3.0.3", "info": {"title": "WebCrawler workbench API", "version": "1"},
            "paths": _paths(caps), "components": {"schemas": schemas}}


@bp.get("/openapi.json")
def openapi() -> ResponseReturnValue:
    return jsonify(describe(current_app.config["CRAWL_CAPS"]))
