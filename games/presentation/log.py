"""The log as sentences: each redacted event in the reader's language.

One small describer per event type, found in ``DESCRIBERS`` by the event's ``type``;
an event type it does not know still gets a sentence ("Something happened: …").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.engine.events import (
    GAME_CREATED,
    GAME_FINISHED,
    HAND_REDRAWN,
    PIECE_LOST,
    PIECE_PLACED,
    PIECES_SELECTED,
    PLACEMENT_UNDONE,
    PLAYER_RESIGNED,
    ROUND_SCORED,
    ROUND_STARTED,
)

from .vocabulary import colour_label

Who = Callable[[Any], str]
"""A seat's name for the reader (its number when it has none; "" for no seat)."""
Describer = Callable[[dict[str, Any], Who], list[str]]
"""A redacted event of one type -> its sentences in the active language."""


def _pieces(sizes: Sequence[int]) -> str:
    return ", ".join(str(s) for s in sizes)


def _reshuffled(event: dict[str, Any]) -> list[str]:
    return [_("The discard piles were shuffled into a new draw pile.")] if event.get("reshuffled") else []


def _game_created(event: dict[str, Any], who: Who) -> list[str]:
    return [_("The game began; %(player)s starts.") % {"player": who(event.get("start_player"))}]


def _pieces_selected(event: dict[str, Any], who: Who) -> list[str]:
    words = {
        "player": who(event.get("player")),
        "colour": colour_label(event["colour"]),
        "pieces": _pieces(event.get("pieces", [])),
    }
    return [_("%(player)s chose the %(colour)s pieces for this round: %(pieces)s.") % words]


def _piece_placed(event: dict[str, Any], who: Who) -> list[str]:
    size = int(event["size"])
    placed = ngettext(
        "%(player)s played card %(card)s: %(size)s storey of %(colour)s in city %(city)s, lot %(lot)s.",
        "%(player)s played card %(card)s: %(size)s storeys of %(colour)s in city %(city)s, lot %(lot)s.",
        size,
    ) % {
        "player": who(event.get("player")),
        "card": event["card"] + 1,
        "size": size,
        "colour": colour_label(event["colour"]),
        "city": event["city"] + 1,
        "lot": event["lot"] + 1,
    }
    lines = [placed]
    if isinstance(event.get("drew"), int):  # the reader's own draw; another's is redacted
        lines.append(_("You drew card %(card)s.") % {"card": event["drew"] + 1})
    return lines + _reshuffled(event)


def _hand_redrawn(event: dict[str, Any], who: Who) -> list[str]:
    redrawn = _("%(player)s could not build with any card and drew a new hand.") % {"player": who(event.get("player"))}
    lines = [redrawn]
    drew = event.get("drew")
    if isinstance(drew, list) and drew:  # the reader's own new hand; another's is redacted
        lines.append(_("You drew cards %(cards)s.") % {"cards": ", ".join(str(c + 1) for c in drew)})
    return lines + _reshuffled(event)


def _piece_lost(event: dict[str, Any], who: Who) -> list[str]:
    size = int(event["size"])
    lost = ngettext(
        "%(player)s could not build: a %(colour)s piece of %(size)s storey went back to the box.",
        "%(player)s could not build: a %(colour)s piece of %(size)s storeys went back to the box.",
        size,
    )
    return [lost % {"player": who(event.get("player")), "size": size, "colour": colour_label(event["colour"])}]


def _round_scored(event: dict[str, Any], who: Who) -> list[str]:
    points = ", ".join(f"{colour_label(name)} +{n}" for name, n in event.get("points", {}).items())
    return [_("Round %(round)s was scored: %(points)s.") % {"round": event.get("round"), "points": points}]


def _round_started(event: dict[str, Any], who: Who) -> list[str]:
    words = {"round": event.get("round"), "player": who(event.get("start_player"))}
    return [_("Round %(round)s began; %(player)s starts.") % words]


def _game_finished(event: dict[str, Any], who: Who) -> list[str]:
    winners = [who(p) for p in event.get("winners", [])]
    if not winners:
        return [_("The game is over.")]
    over = ngettext(
        "The game is over. The winner is %(names)s.",
        "The game is over. The winners are %(names)s.",
        len(winners),
    )
    return [over % {"names": ", ".join(winners)}]


def _player_resigned(event: dict[str, Any], who: Who) -> list[str]:
    return [_("%(player)s resigned.") % {"player": who(event.get("player"))}]


def _placement_undone(event: dict[str, Any], who: Who) -> list[str]:
    words = {
        "player": who(event.get("player")),
        "card": event["card"] + 1,
        "city": event["city"] + 1,
        "reason": event.get("reason") or "—",
    }
    return [_("An operator took back a placement by %(player)s (card %(card)s, city %(city)s): %(reason)s") % words]


# One describer per event type of the engine (games/engine/events.py; a test holds them equal).
DESCRIBERS: dict[str, Describer] = {
    GAME_CREATED: _game_created,
    PIECES_SELECTED: _pieces_selected,
    PIECE_PLACED: _piece_placed,
    HAND_REDRAWN: _hand_redrawn,
    PIECE_LOST: _piece_lost,
    ROUND_SCORED: _round_scored,
    ROUND_STARTED: _round_started,
    GAME_FINISHED: _game_finished,
    PLAYER_RESIGNED: _player_resigned,
    PLACEMENT_UNDONE: _placement_undone,
}


def describe_event(event: dict[str, Any], names: dict[int, str]) -> list[str]:
    """A redacted event as one or more sentences (the viewer's own draws included)."""

    def who(seat: Any) -> str:
        return names.get(seat, str(seat)) if isinstance(seat, int) else ""

    kind = event.get("type")
    describer = DESCRIBERS.get(kind) if isinstance(kind, str) else None
    if describer is None:
        return [_("Something happened: %(kind)s.") % {"kind": kind}]
    return describer(event, who)


@dataclass
class LogLine:
    seq: int
    lines: list[str]
    mine: bool


def log_lines(
    events: Sequence[dict[str, Any]], first_seq: int, names: dict[int, str], seat: int | None
) -> list[LogLine]:
    """Redacted events numbered from ``first_seq``, newest first."""
    out = [
        LogLine(seq=first_seq + i, lines=describe_event(e, names), mine=seat is not None and e.get("player") == seat)
        for i, e in enumerate(events)
    ]
    out.reverse()
    return out
