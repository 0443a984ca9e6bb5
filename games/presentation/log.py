"""The log as sentences: each redacted event in the reader's language."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from .vocabulary import colour_label


def _pieces(sizes: Sequence[int]) -> str:
    return ", ".join(str(s) for s in sizes)


def describe_event(event: dict[str, Any], names: dict[int, str]) -> list[str]:
    """A redacted event as one or more sentences (the viewer's own draws included)."""

    def who(seat: Any) -> str:
        return names.get(seat, str(seat)) if isinstance(seat, int) else ""

    kind = event.get("type")
    if kind == "game_created":
        return [_("The game began; %(player)s starts.") % {"player": who(event.get("start_player"))}]
    if kind == "pieces_selected":
        return [
            _("%(player)s chose the %(colour)s pieces for this round: %(pieces)s.")
            % {
                "player": who(event.get("player")),
                "colour": colour_label(event["colour"]),
                "pieces": _pieces(event.get("pieces", [])),
            }
        ]
    if kind == "piece_placed":
        size = int(event["size"])
        lines = [
            ngettext(
                "%(player)s played card %(card)s: %(size)s storey of %(colour)s in city %(city)s, lot %(lot)s.",
                "%(player)s played card %(card)s: %(size)s storeys of %(colour)s in city %(city)s, lot %(lot)s.",
                size,
            )
            % {
                "player": who(event.get("player")),
                "card": event["card"] + 1,
                "size": size,
                "colour": colour_label(event["colour"]),
                "city": event["city"] + 1,
                "lot": event["lot"] + 1,
            }
        ]
        if isinstance(event.get("drew"), int):
            lines.append(_("You drew card %(card)s.") % {"card": event["drew"] + 1})
        if event.get("reshuffled"):
            lines.append(_("The discard piles were shuffled into a new draw pile."))
        return lines
    if kind == "hand_redrawn":
        lines = [
            _("%(player)s could not build with any card and drew a new hand.") % {"player": who(event.get("player"))}
        ]
        drew = event.get("drew")
        if isinstance(drew, list) and drew:
            lines.append(_("You drew cards %(cards)s.") % {"cards": ", ".join(str(c + 1) for c in drew)})
        if event.get("reshuffled"):
            lines.append(_("The discard piles were shuffled into a new draw pile."))
        return lines
    if kind == "piece_lost":
        size = int(event["size"])
        return [
            ngettext(
                "%(player)s could not build: a %(colour)s piece of %(size)s storey went back to the box.",
                "%(player)s could not build: a %(colour)s piece of %(size)s storeys went back to the box.",
                size,
            )
            % {"player": who(event.get("player")), "size": size, "colour": colour_label(event["colour"])}
        ]
    if kind == "round_scored":
        points = ", ".join(f"{colour_label(name)} +{n}" for name, n in event.get("points", {}).items())
        return [_("Round %(round)s was scored: %(points)s.") % {"round": event.get("round"), "points": points}]
    if kind == "round_started":
        return [
            _("Round %(round)s began; %(player)s starts.")
            % {"round": event.get("round"), "player": who(event.get("start_player"))}
        ]
    if kind == "game_finished":
        winners = [who(p) for p in event.get("winners", [])]
        if not winners:
            return [_("The game is over.")]
        return [
            ngettext(
                "The game is over. The winner is %(names)s.",
                "The game is over. The winners are %(names)s.",
                len(winners),
            )
            % {"names": ", ".join(winners)}
        ]
    if kind == "player_resigned":
        return [_("%(player)s resigned.") % {"player": who(event.get("player"))}]
    if kind == "placement_undone":
        return [
            _("An operator took back a placement by %(player)s (card %(card)s, city %(city)s): %(reason)s")
            % {
                "player": who(event.get("player")),
                "card": event["card"] + 1,
                "city": event["city"] + 1,
                "reason": event.get("reason") or "—",
            }
        ]
    return [_("Something happened: %(kind)s.") % {"kind": kind}]


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
