"""Strict input: a field the API does not know is refused, never ignored.

Request bodies are read by serializers built on
``manhattan_site.strict_input.StrictSerializer``; this module adds the
action's own fields, which depend on its type (the action is free JSON to the
serializer). An ignored field looks accepted: a ``lot`` sent with a placement (the card
decides the lot) would be dropped and the piece land elsewhere, and a typo in
``expected_versoin`` would turn a guarded move into an unguarded one. So a
request body, a game's options, a seat and an action may hold only the fields
they document; anything else is a 422 problem naming the field.
"""

from __future__ import annotations

from typing import Any

from manhattan_site.strict_input import unknown_field

# The fields of each action type (games/engine/actions.py ``action_from_json``).
ACTION_FIELDS: dict[str, frozenset[str]] = {
    "place": frozenset({"type", "card", "city", "size", "colour"}),
    "select": frozenset({"type", "pieces", "colour"}),
    "resign": frozenset({"type"}),
    "undo": frozenset({"type", "reason"}),
}


def refuse_unknown_action_fields(raw: Any) -> None:
    """An action object holds only its type's fields (a string in notation has none)."""
    if not isinstance(raw, dict):
        return
    kind = raw.get("type")
    allowed = ACTION_FIELDS.get(kind) if isinstance(kind, str) else None
    if allowed is None:
        return  # an unknown type, or one that is not text: the engine says so
    for name in raw:
        if name not in allowed:
            raise unknown_field(f"action.{name}")
