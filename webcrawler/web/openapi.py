"""The pieces of an OpenAPI 3.0 description that the query server's and the workbench's
(`query_server/openapi.py`, `workbench/openapi.py`) are written with."""

from __future__ import annotations

from typing import Any

JSON = "application/json"
INT = {"type": "integer"}
NUMBER = {"type": "number"}
TEXT = {"type": "string"}


def ref(name: str) -> dict[str, str]:
    """A reference to the schema `name` of the description's components."""
    return {"$ref": f"#/components/schemas/{name}"}


def answer(description: str, schema: str = "Error") -> dict[str, Any]:
    """A response whose JSON body follows the schema `schema`."""
    return {"description": description, "content": {JSON: {"schema": ref(schema)}}}


def object_schema(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    """An object of `properties`, every one required unless `required` names some."""
    return {"type": "object", "properties": properties, "required": list(required or properties)}
