"""The names of things: colours (and how they are painted), sides, phases,
statuses, bots and seats."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.engine import COLOUR_NAMES, GameOptions, RuleError
from games.models import Game, Seat

COLOUR_LABELS: dict[str, Promise] = {
    "red": gettext_lazy("red"),
    "blue": gettext_lazy("blue"),
    "green": gettext_lazy("green"),
    "yellow": gettext_lazy("yellow"),
}
# How each colour is painted (board, chips, emails), and the ink that reads on it.
HEX = {"red": "#d64541", "blue": "#3a6fd8", "green": "#2e9e5b", "yellow": "#e6b422"}
INK = {"red": "#ffffff", "blue": "#ffffff", "green": "#ffffff", "yellow": "#222222"}
SIDE_LABELS: dict[str, Promise] = {
    "S": gettext_lazy("south"),
    "W": gettext_lazy("west"),
    "N": gettext_lazy("north"),
    "E": gettext_lazy("east"),
}
# The side a board is drawn from, as the board's edge names it.
SIDE_EDGE_LABELS: dict[str, Promise] = {
    "S": gettext_lazy("south side"),
    "W": gettext_lazy("west side"),
    "N": gettext_lazy("north side"),
    "E": gettext_lazy("east side"),
}
PHASE_LABELS: dict[str, Promise] = {
    "selection": gettext_lazy("choosing pieces"),
    "placement": gettext_lazy("building"),
    "round_over": gettext_lazy("scoring"),
    "finished": gettext_lazy("finished"),
}
STATUS_LABELS: dict[str, Promise] = {
    Game.Status.LOBBY: gettext_lazy("Waiting for players"),
    Game.Status.ACTIVE: gettext_lazy("Being played"),
    Game.Status.FINISHED: gettext_lazy("Finished"),
    Game.Status.ABANDONED: gettext_lazy("Abandoned"),
}
BOT_LABELS: dict[str, Promise] = {
    "strong": gettext_lazy("strong bot"),
    "greedy": gettext_lazy("greedy bot"),
    "random": gettext_lazy("random bot"),
    "easy": gettext_lazy("easy bot"),
    "medium": gettext_lazy("medium bot"),
    "hard": gettext_lazy("hard bot"),
    "strongest": gettext_lazy("strongest bot"),
}


def colour_label(colour: int | str) -> str:
    """A colour's name in the active language, by engine index or name."""
    name = COLOUR_NAMES[colour] if isinstance(colour, int) else colour
    return str(COLOUR_LABELS.get(name, name))


def bot_label(kind: str) -> str:
    return str(BOT_LABELS.get(kind, kind))


def rounds_of(game: Game) -> int | None:
    try:
        return GameOptions.from_json(game.options).rounds
    except (RuleError, TypeError, ValueError):
        return None


def seat_name(seat: Seat) -> str:
    """How a seat is called everywhere (never an invitee's email address)."""
    if seat.user is not None:
        return seat.user.public_name
    if seat.bot:
        return _("Bot %(seat)s (%(kind)s)") % {"seat": seat.index + 1, "kind": bot_label(seat.bot)}
    if seat.invited_email:
        return _("Invited player")
    return _("Open seat")


def seat_names(seats: Iterable[Seat], me: Any = None) -> dict[int, str]:
    """Seat index -> name; the viewer's own seat is marked "(you)"."""
    names: dict[int, str] = {}
    for seat in seats:
        name = seat_name(seat)
        if me is not None and seat.user_id is not None and seat.user_id == getattr(me, "pk", None):
            name = _("%(name)s (you)") % {"name": name}
        names[seat.index] = name
    return names
