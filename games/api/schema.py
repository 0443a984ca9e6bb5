"""What the OpenAPI schema says about the games API: rules a serializer cannot state.

The layer's hook (``manhattan_site.api.schema.document_problems``: problem bodies
on every 4xx, the errors any operation can give, strict request bodies) runs
from ``document_problems`` here, after the games' own shapes are in place.
"""

from __future__ import annotations

from typing import Any

from games.engine.bots import BOTS, LEVELS
from games.levels import level_ratings
from manhattan_site.api import schema as layer

from .schema_types import document_types

# Paths naming one of these answer 404 when it names nothing.
NOT_FOUND_IDS = ("game_id", "token_id")
NOT_FOUND = "There is no game (or token) with this id."
# The seats as a whole (checked by the lobby service): one code for each way they fail the game.
SEATS_REFUSED = (
    "One seat per player. Refused with 422: `bad_seats` (not as many seats as `options.players`), "
    "`creator_seated_twice` (more than one `me`), `creator_invited` (the creator's own address invited), "
    "`duplicate_invitee` (one address invited twice; `email` says which), `no_mail_domain` (an invitee's "
    "address has no mail domain), `unknown_bot` (with `choices`)."
)


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


def seat_spec_schema() -> dict[str, Any]:
    """One seat of a new game, by kind: the rules across fields that the serializer
    checks in ``SeatSpecSerializer.validate`` (an invitee's address, a bot's kind).
    Built for each schema, so the levels' ratings are those of the file as it is now."""
    return {
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


def document_problems(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: the games' shapes (events, seats, the
    watch key), then what the API layer says of every operation's errors."""
    schemas = layer.add_problem_component(result)
    document_types(result)
    for name in ("SeatSpec", "SeatSpecRequest"):
        if name in schemas:
            schemas[name] = seat_spec_schema()
    # drf-spectacular does not carry a list serializer's min_length/max_length over.
    seats = schemas.get("CreateGameRequest", {}).get("properties", {}).get("seats")
    if seats is not None:
        seats.update(minItems=2, maxItems=4, description=SEATS_REFUSED)
    for path, operations in result.get("paths", {}).items():
        if "{game_id}" in path:
            for operation in operations.values():
                _accept_watch_key(operation)
    layer.document_problems(result, not_found_ids=NOT_FOUND_IDS, not_found=NOT_FOUND)
    for name in ("SeatSpec", "SeatSpecRequest"):  # strict, as the layer makes every request body
        for variant in schemas.get(name, {}).get("oneOf", []):
            variant["additionalProperties"] = False
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
