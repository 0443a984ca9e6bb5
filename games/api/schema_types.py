"""Typed schemas for what the engine builds: each event type, the record, a
problem's ``errors``; and the headers and refusals every operation may meet.

The engine's events and records are plain dicts, which drf-spectacular can
only describe as "an object"; a generated client then hands its users an
untyped dict. These schemas say what each holds (docs/engine.md, RECORD.md),
so a client gets one class per event type, chosen by ``type``.
``document_types`` installs them (called from ``games.api.schema``).
"""

from __future__ import annotations

from typing import Any

INT = {"type": "integer"}
INTS = {"type": "array", "items": INT}
BOOL = {"type": "boolean"}
TEXT = {"type": "string"}
POINTS = {"type": "object", "additionalProperties": INT, "description": "Points by colour name."}
NULLABLE_INT = {"type": "integer", "nullable": True}

_PLACEMENT = {
    "player": INT,
    "colour": INT,
    "size": INT,
    "card": INT,
    "city": INT,
    "lot": INT,
    "drew": {**NULLABLE_INT, "description": "The card drawn; null for another player's draw (or none left)."},
    "drew_count": {**INT, "description": "For another player's draw: how many cards they drew."},
    "reshuffled": {**BOOL, "description": "The discards were shuffled into a new draw pile first."},
}
_REQUIRED_PLACEMENT = ["player", "colour", "size", "card", "city", "lot", "drew"]

# Each event type: its fields after redaction (games/engine/views.py ``redact_event``), and which are always there.
EVENT_FIELDS: dict[str, tuple[dict[str, Any], list[str]]] = {
    "game_created": (
        {
            "engine": TEXT,
            "ruleset": TEXT,
            "options": {
                "type": "object",
                "properties": {
                    "players": INT,
                    "six_rounds": BOOL,
                    "copies_per_position": INT,
                    "sides": {"type": "array", "items": INT, "nullable": True},
                    "start_player": NULLABLE_INT,
                },
            },
            "sides": INTS,
            "colours": {"type": "array", "items": INTS},
            "start_player": INT,
            "hands": {
                "type": "array",
                "items": {"type": "array", "items": INT, "nullable": True},
                "description": "Each seat's hand dealt: yours only, null for the others.",
            },
            "hand_sizes": INTS,
            "draw_pile_size": INT,
        },
        ["engine", "options", "sides", "colours", "start_player", "hands", "hand_sizes", "draw_pile_size"],
    ),
    "pieces_selected": ({"player": INT, "colour": INT, "pieces": INTS}, ["player", "colour", "pieces"]),
    "piece_placed": (_PLACEMENT, _REQUIRED_PLACEMENT),
    "hand_redrawn": (
        {
            "player": INT,
            "discarded": INTS,
            "drew": {"type": "array", "items": INT, "nullable": True, "description": "null for another player."},
            "drew_count": INT,
            "reshuffled": BOOL,
        },
        ["player", "discarded", "drew"],
    ),
    "piece_lost": ({"player": INT, "colour": INT, "size": INT}, ["player", "colour", "size"]),
    "round_scored": ({"round": INT, "points": POINTS}, ["round", "points"]),
    "round_started": ({"round": INT, "start_player": INT}, ["round", "start_player"]),
    "game_finished": ({"winners": INTS, "totals": POINTS}, ["winners", "totals"]),
    "player_resigned": ({"player": INT}, ["player"]),
    "placement_undone": ({**_PLACEMENT, "reason": TEXT}, [*_REQUIRED_PLACEMENT, "reason"]),
}


def _component(kind: str) -> str:
    return "".join(part.capitalize() for part in kind.split("_")) + "Event"


def event_schemas() -> dict[str, Any]:
    """One component per event type, and ``LoggedEvent``: one of them, by ``type``."""
    schemas: dict[str, Any] = {}
    for kind, (fields, required) in EVENT_FIELDS.items():
        schemas[_component(kind)] = {
            "type": "object",
            "title": _component(kind),
            "required": ["type", "v", "seq", "created", *required],
            "properties": {
                "type": {"type": "string", "enum": [kind]},
                "v": {**INT, "description": "The event's schema version."},
                "seq": {**INT, "description": "1 for the deal; the game's version is its last event's seq."},
                "created": {"type": "string", "format": "date-time"},
                **fields,
            },
        }
    schemas["LoggedEvent"] = {
        "oneOf": [{"$ref": f"#/components/schemas/{_component(kind)}"} for kind in EVENT_FIELDS],
        "discriminator": {
            "propertyName": "type",
            "mapping": {kind: f"#/components/schemas/{_component(kind)}" for kind in EVENT_FIELDS},
        },
        "description": "One event of the log as the caller may see it (positions 0-based; docs/engine.md).",
    }
    return schemas


COLOUR_NAME = {"type": "string", "enum": ["red", "blue", "green", "yellow"]}
RECORD_SCHEMAS: dict[str, Any] = {
    "RecordTurn": {
        "type": "object",
        "description": "A placement (card, city, lot, size; 1-based), or a redraw, or a lost piece.",
        "required": ["player"],
        "properties": {
            "player": INT,
            "colour": COLOUR_NAME,
            "card": INT,
            "city": INT,
            "lot": INT,
            "size": INT,
            "drew": NULLABLE_INT,
            "redraw": {
                "type": "object",
                "required": ["discarded", "drew"],
                "properties": {"discarded": INTS, "drew": INTS},
            },
            "lost": {
                "type": "object",
                "required": ["colour", "size"],
                "properties": {"colour": COLOUR_NAME, "size": INT},
            },
        },
    },
    "RecordSelection": {
        "type": "object",
        "required": ["player", "colour", "pieces"],
        "properties": {"player": INT, "colour": COLOUR_NAME, "pieces": INTS},
    },
    "RecordRound": {
        "type": "object",
        "required": ["round", "start_player", "hands_before", "selections", "turns", "scores"],
        "properties": {
            "round": INT,
            "start_player": INT,
            "hands_before": {"type": "array", "items": INTS},
            "selections": {"type": "array", "items": {"$ref": "#/components/schemas/RecordSelection"}},
            "turns": {"type": "array", "items": {"$ref": "#/components/schemas/RecordTurn"}},
            "scores": POINTS,
        },
    },
    "RecordOptions": {
        "type": "object",
        "required": ["six_rounds", "copies_per_position"],
        "properties": {"six_rounds": BOOL, "copies_per_position": INT},
    },
}

# DRF's validation messages: a list of messages per field (or one message), an
# object for a nested object, and a list (one entry per item) for a list of objects.
FIELD_ERRORS: dict[str, Any] = {
    "type": "object",
    "description": "For code 'invalid': the message(s) of each field, nested as the body is.",
    "additionalProperties": {
        "oneOf": [
            TEXT,
            {"type": "array", "items": {"oneOf": [TEXT, {"type": "object", "additionalProperties": True}]}},
            {"type": "object", "additionalProperties": True},
        ]
    },
}

IF_NONE_MATCH = {
    "name": "If-None-Match",
    "in": "header",
    "required": False,
    "schema": {"type": "string"},
    "description": "The ETag of the copy you hold: 304 Not Modified (no body) while it is current.",
}


def _reviewed_action(kind: str, required: list[str], **properties: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["type", *required],
        "properties": {"type": {"type": "string", "enum": [kind]}, **properties},
    }


_COLOUR = {"type": "string", "enum": ["red", "blue", "green", "yellow"], "description": "For a two-colour player."}
_PIECE = {"type": "integer", "minimum": 1, "maximum": 4}
# A reviewed move's "played" and "best" (games.api.review), in the form POST …/actions takes.
REVIEWED_ACTION_SCHEMAS: dict[str, Any] = {
    "ReviewedPlace": _reviewed_action(
        "place",
        ["card", "city", "size"],
        card={"type": "integer", "minimum": 1, "maximum": 9},
        city={"type": "integer", "minimum": 1, "maximum": 6},
        size=_PIECE,
        colour=_COLOUR,
    ),
    "ReviewedSelect": _reviewed_action("select", ["pieces"], pieces={"type": "array", "items": _PIECE}, colour=_COLOUR),
}


def document_types(result: dict[str, Any]) -> None:
    """Typed events, record and errors; 403 insufficient_scope wherever a scope is
    needed; If-None-Match wherever 304 is answered."""
    schemas = result["components"]["schemas"]
    schemas.update(event_schemas())
    schemas.update(RECORD_SCHEMAS)
    schemas.update(REVIEWED_ACTION_SCHEMAS)
    record = schemas.get("Record", {}).get("properties", {})
    if record:
        record["options"] = {"$ref": "#/components/schemas/RecordOptions"}
        record["rounds"] = {"type": "array", "items": {"$ref": "#/components/schemas/RecordRound"}}
        record["totals"] = POINTS
        record["resigned"] = {**INTS, "description": "Seats that resigned (an extension of RECORD.md)."}
    schemas["Problem"]["properties"]["errors"] = FIELD_ERRORS
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            responses = operation.setdefault("responses", {})
            scopes = sorted({s for req in operation.get("security", []) for s in next(iter(req.values()), [])})
            if scopes:
                needed = " or ".join(f"'{s}'" for s in scopes)
                described = responses.get("403", {}).get("description", "").rstrip(".")
                also = f"; or 'insufficient_scope': the token lacks {needed}"
                responses["403"] = {**responses.get("403", {}), "description": (described or "Refused") + also + "."}
            if "304" in responses:
                names = {p.get("name") for p in operation.get("parameters", [])}
                if "If-None-Match" not in names:
                    operation.setdefault("parameters", []).append(IF_NONE_MATCH)
