"""One marked move of a finished game's review on the board: the public position just
before it, with the lot the bot would have built on and the lot built on instead
(``games/web/review_steps.py`` serves it to the step-through script of the page).

Only what the finished game shows anyone who may see it: the spectator's view of the
position (no hand, no deck) and the two moves the review already states in words.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from django.utils.translation import gettext as _

from games import engine
from games.engine.rotation import CARD_TO_LOT

from . import board


def placement_lot(action: dict[str, Any], side: int) -> tuple[int, int] | None:
    """Where a placement (the API's JSON form) builds, as (city, lot), 0-based from the
    south; None for a selection."""
    if action.get("type") != "place":
        return None
    return int(action["city"]) - 1, CARD_TO_LOT[side][int(action["card"]) - 1]


def _described(action: dict[str, Any]) -> str:
    return _("a %(size)s-storey building") % {"size": int(action.get("size", 0))}


def step_board(view: engine.PlayerView, move: dict[str, Any], *, side: int) -> board.Drawing:
    """The position before ``move`` (a line of ``review.marked_moves``), drawn from ``side``,
    its two lots marked in the drawing and in the words a screen reader says."""
    seat_side = view.sides[move["seat"]]
    best = placement_lot(move["best_json"], seat_side)
    played = placement_lot(move["played_json"], seat_side)
    drawing = board.drawing(view, side=side)
    cities = []
    for city in drawing.cities:
        lots = []
        for lot in city.lots:
            where = (lot.city - 1, lot.lot - 1)
            notes, mark = [], ""
            if where == best:
                notes.append(_("the bot's move: %(move)s") % {"move": _described(move["best_json"])})
                mark = "best"
            if where == played:
                notes.append(_("the move played: %(move)s") % {"move": _described(move["played_json"])})
                mark = "both" if mark else "played"
            if notes:
                lot = dataclasses.replace(lot, review_mark=mark, label=", ".join([lot.label, *notes]))
            lots.append(lot)
        cities.append(dataclasses.replace(city, lots=lots))
    return dataclasses.replace(drawing, cities=cities)
