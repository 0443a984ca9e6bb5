"""Building by touching the board: for each card in the hand, the lots where
it can build and, on each, the pieces that may go there — straight from the
engine's legal placements, so the page never offers an illegal move."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.engine import COLOUR_NAMES, Placement

from .vocabulary import colour_label


def piece_label(size: int, colour: int | None) -> str:
    """A choice as the player reads it: "2 storeys", or "red 2" for a two-colour player."""
    if colour is None:
        return ngettext("%(size)s storey", "%(size)s storeys", size) % {"size": size}
    return _("%(colour)s %(size)s") % {"colour": colour_label(colour), "size": size}


def build_options(placements: Iterable[Placement], *, two_colours: bool) -> dict[str, dict[str, Any]]:
    """``{card: {"city-lot": {"city", "lot", "choices": [{"size", "colour", "label"}]}}}``
    with cards, cities and lots 1-based as the form sends them; ``colour`` is
    empty for a one-colour player, whose form leaves it out."""
    options: dict[str, dict[str, Any]] = {}
    for p in sorted(placements, key=lambda p: (p.card, p.city, p.lot, p.colour, p.size)):
        lots = options.setdefault(str(p.card + 1), {})
        spot = lots.setdefault(f"{p.city + 1}-{p.lot + 1}", {"city": p.city + 1, "lot": p.lot + 1, "choices": []})
        choice = {
            "size": p.size,
            "colour": COLOUR_NAMES[p.colour] if two_colours else "",
            "label": piece_label(p.size, p.colour if two_colours else None),
        }
        if choice not in spot["choices"]:  # two copies of a card in the hand name the same lots
            spot["choices"].append(choice)
    return options
