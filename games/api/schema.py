"""What the OpenAPI schema says about errors, and rules a serializer cannot state.

Every error of the API is an RFC 9457 problem (``games.api.problems``), and
some answers can come from any operation: 401 without a valid token, 429 from
the throttles, 404 for an unknown game, 400/413/415 for a body that is not
JSON, too large, or of another media type. Listing those on every view by
hand would drift; ``document_problems`` (a drf-spectacular postprocessing
hook) adds them where they apply and gives every 4xx the ``Problem`` body
under ``application/problem+json``, so clients and fuzzers know what to
expect.
"""

from __future__ import annotations

import json
from typing import Any

from games.engine.bots import BOTS, LEVELS
from games.levels import level_ratings

from .schema_types import document_types

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
    "404": "There is no game (or token) with this id.",
    "413": "The body is larger than the server accepts.",
    "415": "The body is not application/json.",
    "429": "Too many requests: wait for the number of seconds in Retry-After.",
}
# A write without a request body refuses one (manhattan_site.strict_input.takes_no_body).
_NO_BODY = "This operation takes no body: one holding anything (not {}) is refused (code 'body_not_allowed')."
_WRITES = ("post", "put", "patch", "delete")


def _bot_description() -> str:
    """The bots and the levels, each level with its measured rating (or none yet)."""
    rated = level_ratings()
    levels = "; ".join(
        f"`{name}` rating {rated[name].rating:.1f} ({rated[name].games} games of {rated[name].players} players, "
        f"measured {rated[name].measured})"
        if name in rated
        else f"`{name}` not yet rated"
        for name in LEVELS
    )
    return (
        "A bot: `random`, `greedy`, `strong` (existing seats), or a level a person chooses an opponent by, "
        f"weakest first, with its rating on the players' OpenSkill scale (mu - 3 sigma): {levels}. "
        "Any other value is refused with 422 `unknown_bot`."
    )


# One seat of a new game, by kind: the rules across fields that the serializer
# checks in ``SeatSpecSerializer.validate`` (an invitee's address, a bot's kind).
SEAT_SPEC_SCHEMA: dict[str, Any] = {
    "oneOf": [
        {
            "type": "object",
            "required": ["kind"],
            "properties": {"kind": {"type": "string", "enum": ["me", "open"]}},
        },
        {
            "type": "object",
            "required": ["kind", "email"],
            "properties": {
                "kind": {"type": "string", "enum": ["invite"]},
                "email": {"type": "string", "format": "email", "minLength": 3, "maxLength": 254},
            },
        },
        {
            "type": "object",
            "required": ["kind", "bot"],
            "properties": {
                "kind": {"type": "string", "enum": ["bot"]},
                "bot": {
                    "type": "string",
                    "enum": [*sorted(BOTS), *LEVELS],
                    "description": _bot_description(),
                },
            },
        },
    ],
    "description": "The creator's own seat, an invitee's (by email), an open seat, or a bot.",
}


def _problem_content() -> dict[str, Any]:
    return {PROBLEM_MEDIA_TYPE: {"schema": {"$ref": "#/components/schemas/Problem"}}}


def _generic_statuses(path: str, method: str, operation: dict[str, Any]) -> list[str]:
    statuses = ["429"]
    if operation.get("security") and {} not in operation["security"]:
        statuses.append("401")
    if "{game_id}" in path or "{token_id}" in path:
        statuses.append("404")
    if "requestBody" in operation:
        statuses += ["400", "413", "415"]
    return statuses


def document_problems(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: problem bodies on every 4xx, and the
    errors any operation can answer listed where they apply."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas["Problem"] = PROBLEM_SCHEMA
    document_types(result)
    for name in ("SeatSpec", "SeatSpecRequest"):
        if name in schemas:
            schemas[name] = SEAT_SPEC_SCHEMA
    # drf-spectacular does not carry a list serializer's min_length/max_length over.
    seats = schemas.get("CreateGameRequest", {}).get("properties", {}).get("seats")
    if seats is not None:
        seats.update(minItems=2, maxItems=4)
    for path, operations in result.get("paths", {}).items():
        for method, operation in operations.items():
            if "{game_id}" in path:
                _accept_watch_key(operation)
            responses = operation.setdefault("responses", {})
            for status in _generic_statuses(path, method, operation):
                responses.setdefault(status, {"description": _GENERIC[status]})
            if method in _WRITES and "requestBody" not in operation:
                responses.setdefault("400", {"description": _NO_BODY})
            for status, response in responses.items():
                if str(status).startswith("4"):
                    response["content"] = _problem_content()
    _drop_unreferenced(schemas, result)
    _refuse_unknown_request_fields(schemas)
    return result


WATCH_KEY = {
    "name": "key",
    "in": "query",
    "required": False,
    "schema": {"type": "string"},
    "description": "A private game's watch key (from its watch link): lets its holder see the game.",
}


def _accept_watch_key(operation: dict[str, Any]) -> None:
    """Every route of a game asks the visibility rule, which accepts the watch key
    (games.api.permissions.SeesTheGame)."""
    parameters = operation.setdefault("parameters", [])
    if not any(p.get("name") == "key" and p.get("in") == "query" for p in parameters):
        parameters.append(WATCH_KEY)


def _refuse_unknown_request_fields(schemas: dict[str, Any]) -> None:
    """Request bodies are strict (games/api/strict.py): the schema says so, so
    that generated clients and fuzzers send only the documented fields."""
    for name, schema in schemas.items():
        if name.endswith("Request") and schema.get("type") == "object":
            schema["additionalProperties"] = False
    for variant in SEAT_SPEC_SCHEMA["oneOf"]:
        variant["additionalProperties"] = False


def _drop_unreferenced(schemas: dict[str, Any], result: dict[str, Any]) -> None:
    """Components nothing points at any more (the enums of the replaced seat schema)."""
    while True:
        text = json.dumps(result, default=str)
        unused = [name for name in schemas if f'"#/components/schemas/{name}"' not in text]
        if not unused:
            return
        for name in unused:
            del schemas[name]


def document_empty_lots(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: an empty lot of the board is null.
    (A nested serializer's ``allow_null`` is lost inside two list fields.)"""
    view = result.get("components", {}).get("schemas", {}).get("PlayerView")
    if view is not None:
        lots = view["properties"]["board"]["items"]
        lots["items"] = {"allOf": [lots["items"]], "nullable": True}
    return result


RATE_LIMIT_HEADERS: dict[str, Any] = {
    "RateLimit-Policy": {
        "description": "The limits that counted this request (IETF draft httpapi-ratelimit-headers): "
        '`"user";q=1200;w=60` is 1200 requests per 60 seconds. Absent on requests refused before '
        "they were counted (401, 403).",
        "schema": {"type": "string"},
    },
    "RateLimit": {
        "description": 'What is left of each policy: `"user";r=1187;t=42` is 1187 requests left, '
        "the window emptying in 42 seconds.",
        "schema": {"type": "string"},
    },
}


def document_rate_limits(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: the rate-limit headers on every answer."""
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            for status, response in operation.get("responses", {}).items():
                if str(status) in ("401", "403", "304"):
                    continue
                response.setdefault("headers", {}).update(RATE_LIMIT_HEADERS)
    return result
