"""What a player (or an operator) can ask the engine to do.

Actions carry no seat: who acts is said separately, because the same action
written in an email or sent by the API means the same thing for any seat.
All positions are 0-based here; notation and records show them 1-based.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .constants import COLOUR_NAMES
from .errors import refuse


@dataclass(frozen=True, slots=True)
class SelectPieces:
    """R9: set aside this round's pieces (sizes, sorted) for ``colour``.

    ``colour`` may be left out: it is then the colour whose turn it is to select.
    """

    pieces: tuple[int, ...]
    colour: int | None = None

    def __post_init__(self) -> None:
        pieces = self.pieces
        # Whole numbers only (True is not a piece): anything else is refused here, where it is
        # sorted, rather than failing later with a TypeError. Which sizes exist is R9's business.
        if not isinstance(pieces, (tuple, list)) or not set(map(type, pieces)) <= {int}:
            raise refuse("selection_not_sizes")
        object.__setattr__(self, "pieces", tuple(sorted(pieces)))


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

_PLACEMENTS = tuple(
    PlacePiece(card, city, size, colour)
    for card in range(9)
    for city in range(6)
    for size in (1, 2, 3, 4)
    for colour in (None, 0, 1, 2, 3)
)


def place_action(card: int, city: int, size: int, colour: int | None) -> PlacePiece:
    """``PlacePiece(card, city, size, colour)`` for valid values, made once: actions are
    values, so the bots and the search share instances instead of building thousands."""
    return _PLACEMENTS[((card * 6 + city) * 4 + size - 1) * 5 + (0 if colour is None else colour + 1)]


def _number(data: dict[str, Any], key: str, *, hi: int) -> int:
    """A whole number from 1 to ``hi`` (not a bool, not a float, not text)."""
    value = data.get(key)
    if type(value) is not int:
        raise refuse(f"json_{key}")
    if not 1 <= value <= hi:
        raise refuse(f"json_{key}_range", value=value)
    return value


def _colour(data: dict[str, Any]) -> int | None:
    value = data.get("colour")
    if value is None:
        return None
    if isinstance(value, str) and value.lower() in COLOUR_NAMES:
        return COLOUR_NAMES.index(value.lower())
    raise refuse("json_colour")


def action_from_json(data: Any) -> Action:
    """Read an action from the API's JSON form (1-based card and city).

    ``{"type": "place", "card": 5, "city": 3, "size": 2, "colour": "red"}``,
    ``{"type": "select", "pieces": [1, 1, 2, 3, 4, 4]}``, ``{"type": "resign"}``.
    Anything else is refused with a ``RuleError``.
    """
    if not isinstance(data, dict):
        raise refuse("json_not_object")
    kind = data.get("type")
    if kind == "place":
        return PlacePiece(
            card=_number(data, "card", hi=9) - 1,
            city=_number(data, "city", hi=6) - 1,
            size=_number(data, "size", hi=4),
            colour=_colour(data),
        )
    if kind == "select":
        pieces = data.get("pieces")
        if not isinstance(pieces, list) or not all(type(p) is int and 1 <= p <= 4 for p in pieces):
            raise refuse("selection_not_sizes")
        return SelectPieces(pieces=tuple(pieces), colour=_colour(data))
    if kind == "resign":
        return Resign()
    if kind == "undo":
        reason = data.get("reason", "")
        if not isinstance(reason, str):
            raise refuse("undo_reason")
        return UndoLastPlacement(reason=reason)
    raise refuse("json_type")


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
