"""What the OpenAPI schema says about errors, for every app's operations.

Every error of the API is an RFC 9457 problem (``manhattan_site.api.problems``),
and some answers can come from any operation: 401 without a valid token, 429
from the throttles, 400/413/415 for a body that is not JSON, too large, or of
another media type, 404 for an id that names nothing. Listing those on every
view by hand would drift; :func:`document_problems` adds them where they apply
and gives every 4xx the ``Problem`` body under ``application/problem+json``,
so clients and fuzzers know what to expect. Request bodies are strict
(``manhattan_site.strict_input``), and the schema says so.
"""

from __future__ import annotations

import json
from typing import Any

PROBLEM_MEDIA_TYPE = "application/problem+json"

PROBLEM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "An RFC 9457 problem. Switch on `code`; show `detail`.",
    "required": ["type", "title", "status", "code", "detail"],
    "properties": {
        "type": {"type": "string", "description": "/api/v1/problems/<code>"},
        "title": {"type": "string"},
        "status": {"type": "integer", "description": "The HTTP status, repeated."},
        "code": {"type": "string", "description": "Stable: the engine's rule codes, or the API's own."},
        "detail": {"type": "string", "description": "A human message saying what was wrong."},
        "errors": {"type": "object", "description": "For code 'invalid': the message(s) of each field."},
        "current_version": {"type": "integer", "description": "For a stale version: the game's version now."},
        "rule": {"type": "string", "description": "For a refused move: the rule (R1…R19) it breaks."},
        "position": {"type": "integer", "description": "For notation: where the bad token starts."},
        "token": {"type": "string", "description": "For notation: the token that was not understood."},
        "pointer": {"type": "string", "description": "For notation: the move with a caret under the token."},
    },
    "additionalProperties": True,
}

_GENERIC = {
    "400": "The body is not JSON, or a field or parameter is not valid (code 'malformed_request' or 'invalid').",
    "401": "No valid credentials: send 'Authorization: Bearer <token>' (or sign in).",
    "413": "The body is larger than the server accepts.",
    "415": "The body is not application/json.",
    "429": "Too many requests: wait for the number of seconds in Retry-After.",
}
# A write without a request body refuses one (manhattan_site.strict_input.takes_no_body).
_NO_BODY = "This operation takes no body: one holding anything (not {}) is refused (code 'body_not_allowed')."
_WRITES = ("post", "put", "patch", "delete")


def problem_content() -> dict[str, Any]:
    return {PROBLEM_MEDIA_TYPE: {"schema": {"$ref": "#/components/schemas/Problem"}}}


def _generic_statuses(path: str, operation: dict[str, Any], not_found_ids: tuple[str, ...]) -> list[str]:
    statuses = ["429"]
    if operation.get("security") and {} not in operation["security"]:
        statuses.append("401")
    if any(f"{{{name}}}" in path for name in not_found_ids):
        statuses.append("404")
    if "requestBody" in operation:
        statuses += ["400", "413", "415"]
    return statuses


def add_problem_component(result: dict[str, Any]) -> dict[str, Any]:
    """The ``Problem`` component; returns the components' schemas."""
    schemas: dict[str, Any] = result.setdefault("components", {}).setdefault("schemas", {})
    schemas["Problem"] = PROBLEM_SCHEMA
    return schemas


def document_problems(
    result: dict[str, Any], *, not_found_ids: tuple[str, ...] = (), not_found: str = "There is no such resource."
) -> dict[str, Any]:
    """Problem bodies on every 4xx, the errors any operation can answer listed
    where they apply (a 404 on a path with one of ``not_found_ids``, described
    as ``not_found``), strict request bodies, and no component nothing uses."""
    schemas = add_problem_component(result)
    for path, operations in result.get("paths", {}).items():
        for method, operation in operations.items():
            responses = operation.setdefault("responses", {})
            for status in _generic_statuses(path, operation, not_found_ids):
                responses.setdefault(status, {"description": not_found if status == "404" else _GENERIC[status]})
            if method in _WRITES and "requestBody" not in operation:
                responses.setdefault("400", {"description": _NO_BODY})
            for status, response in responses.items():
                if str(status).startswith("4"):
                    response["content"] = problem_content()
    _drop_unreferenced(schemas, result)
    _refuse_unknown_request_fields(schemas)
    return result


def _refuse_unknown_request_fields(schemas: dict[str, Any]) -> None:
    """Request bodies are strict (manhattan_site.strict_input): the schema says so,
    so that generated clients and fuzzers send only the documented fields."""
    for name, schema in schemas.items():
        if name.endswith("Request") and schema.get("type") == "object":
            schema["additionalProperties"] = False


def _drop_unreferenced(schemas: dict[str, Any], result: dict[str, Any]) -> None:
    """Components nothing points at any more (such as the enums of a replaced schema)."""
    while True:
        text = json.dumps(result, default=str)
        unused = [name for name in schemas if f'"#/components/schemas/{name}"' not in text]
        if not unused:
            return
        for name in unused:
            del schemas[name]
