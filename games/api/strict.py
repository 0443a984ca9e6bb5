"""Strict input: a field the API does not know is refused, never ignored.

An ignored field looks accepted: a ``lot`` sent with a placement (the card
decides the lot) would be dropped and the piece land elsewhere, and a typo in
``expected_versoin`` would turn a guarded move into an unguarded one. So a
request body, a game's options, a seat and an action may hold only the fields
they document; anything else is a 422 problem naming the field.
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from games.errors import GameError

# The fields of each action type (games/engine/actions.py ``action_from_json``).
ACTION_FIELDS: dict[str, frozenset[str]] = {
    "place": frozenset({"type", "card", "city", "size", "colour"}),
    "select": frozenset({"type", "pieces", "colour"}),
    "resign": frozenset({"type"}),
    "undo": frozenset({"type", "reason"}),
}


def unknown_field(path: str) -> GameError:
    return GameError("unknown_field", f"Unknown field '{path}': it is not part of this request.", field=path)


def refuse_unknown_fields(serializer: serializers.BaseSerializer[Any], data: Any, path: str = "") -> None:
    """Raise ``unknown_field`` for the first field of ``data`` that ``serializer``
    (and the serializers nested in it) does not declare; other mistakes are left
    to the serializer's own validation."""
    if isinstance(serializer, serializers.ListSerializer):
        if isinstance(data, list):
            for index, item in enumerate(data):
                refuse_unknown_fields(serializer.child, item, f"{path}[{index}]")  # type: ignore[arg-type]
        return
    if not isinstance(serializer, serializers.Serializer) or not isinstance(data, dict):
        return
    fields = serializer.fields
    for name, value in data.items():
        where = f"{path}.{name}" if path else str(name)
        field = fields.get(name)
        if field is None or field.read_only:
            raise unknown_field(where)
        if isinstance(field, serializers.BaseSerializer):
            refuse_unknown_fields(field, value, where)


def refuse_unknown_action_fields(raw: Any) -> None:
    """An action object holds only its type's fields (a string in notation has none)."""
    if not isinstance(raw, dict):
        return
    allowed = ACTION_FIELDS.get(raw.get("type"))  # type: ignore[arg-type]
    if allowed is None:
        return  # an unknown type: the engine says so
    for name in raw:
        if name not in allowed:
            raise unknown_field(f"action.{name}")


class StrictIntegerField(serializers.IntegerField):
    """A JSON integer, and only that: DRF's IntegerField also takes "12" and 12.0."""

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return int(super().to_internal_value(data))
