"""What a player (or an operator) can ask the engine to do.

Actions carry no seat: who acts is said separately, because the same action
written in an email or sent by the API means the same thing for any seat.
All positions are 0-based here; notation and records show them 1-based.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .constants import COLOUR_NAMES
from .errors import RuleError


@dataclass(frozen=True, slots=True)
class SelectPieces:
    """R9: set aside this round's pieces (sizes, sorted) for ``colour``.

    ``colour`` may be left out: it is then the colour whose turn it is to select.
    """

    pieces: tuple[int, ...]
    colour: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "pieces", tuple(sorted(self.pieces)))


@dataclass(frozen=True, slots=True)
class PlacePiece:
    """R10: play ``card`` (0–8 as printed) to put a ``size`` piece in ``city`` (0–5).

    ``colour`` is needed only by a two-colour player (R15) when both colours
    could place that size.
    """

    card: int
    city: int
    size: int
    colour: int | None = None


@dataclass(frozen=True, slots=True)
class Resign:
    """Leave the game; the player's buildings stay on the board."""


@dataclass(frozen=True, slots=True)
class UndoLastPlacement:
    """Take back the last placement (an operator's action, with a reason)."""

    reason: str = ""


Action = SelectPieces | PlacePiece | Resign | UndoLastPlacement


def _int(data: dict[str, Any], key: str, *, lo: int, hi: int, one_based: bool) -> int:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise RuleError(f"bad_{key}", f"'{key}' must be a whole number from {lo} to {hi}.")
    if not lo <= value <= hi:
        raise RuleError(f"bad_{key}", f"'{key}' must be from {lo} to {hi}; got {value}.")
    return value - 1 if one_based else value


def _colour(data: dict[str, Any]) -> int | None:
    value = data.get("colour")
    if value is None:
        return None
    if isinstance(value, str) and value.lower() in COLOUR_NAMES:
        return COLOUR_NAMES.index(value.lower())
    raise RuleError("bad_colour", f"'colour' must be one of {', '.join(COLOUR_NAMES)}.")


def action_from_json(data: Any) -> Action:
    """Read an action from the API's JSON form (1-based card and city).

    ``{"type": "place", "card": 5, "city": 3, "size": 2, "colour": "red"}``,
    ``{"type": "select", "pieces": [1, 1, 2, 3, 4, 4]}``, ``{"type": "resign"}``.
    """
    if not isinstance(data, dict):
        raise RuleError("bad_action", "An action must be a JSON object with a 'type'.")
    kind = data.get("type")
    if kind == "place":
        return PlacePiece(
            card=_int(data, "card", lo=1, hi=9, one_based=True),
            city=_int(data, "city", lo=1, hi=6, one_based=True),
            size=_int(data, "size", lo=1, hi=4, one_based=False),
            colour=_colour(data),
        )
    if kind == "select":
        pieces = data.get("pieces")
        if not isinstance(pieces, list) or not all(
            isinstance(p, int) and not isinstance(p, bool) and 1 <= p <= 4 for p in pieces
        ):
            raise RuleError("bad_selection", "R9: 'pieces' must be a list of piece sizes from 1 to 4.", rule="R9")
        return SelectPieces(pieces=tuple(pieces), colour=_colour(data))
    if kind == "resign":
        return Resign()
    if kind == "undo":
        reason = data.get("reason", "")
        if not isinstance(reason, str):
            raise RuleError("bad_action", "'reason' must be text.")
        return UndoLastPlacement(reason=reason)
    raise RuleError("bad_action", "An action's 'type' must be one of place, select, resign.")


def action_to_json(action: Action) -> dict[str, Any]:
    """The API's JSON form of ``action`` (the inverse of ``action_from_json``)."""
    if isinstance(action, PlacePiece):
        data: dict[str, Any] = {"type": "place", "card": action.card + 1, "city": action.city + 1, "size": action.size}
    elif isinstance(action, SelectPieces):
        data = {"type": "select", "pieces": list(action.pieces)}
    elif isinstance(action, Resign):
        return {"type": "resign"}
    else:
        return {"type": "undo", "reason": action.reason}
    if action.colour is not None:
        data["colour"] = COLOUR_NAMES[action.colour]
    return data
