"""The bot levels a person chooses an opponent by, each with the rating the arena measured.

The ratings are read from ``games/engine/level_ratings.json``, which
``manage.py rate_levels`` (the ratings app) writes from the arena's saved matches:
OpenSkill as the ratings app rates, the number shown being the same careful estimate
(mu - 3 sigma). A level whose match was not run has no rating, and says so.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from django.utils.formats import number_format
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.engine.bots import LEVELS

LEVEL_RATINGS_FILE = Path(__file__).resolve().parent / "engine" / "level_ratings.json"

LEVEL_LABELS: dict[str, Promise] = {
    "easy": gettext_lazy("Easy bot"),
    "medium": gettext_lazy("Medium bot"),
    "hard": gettext_lazy("Hard bot"),
    "strongest": gettext_lazy("Strongest bot"),
}


@dataclass(frozen=True)
class LevelRating:
    """A level's rating as measured: the number shown, its parts, and how many games made it."""

    level: str
    rating: float
    mu: float
    sigma: float
    games: int
    players: int
    measured: str


def level_ratings() -> dict[str, LevelRating]:
    """The measured levels by name; a level that was not measured is not in it. A missing
    or unreadable file measures nothing (the levels still play; they are only unrated)."""
    return _read(LEVEL_RATINGS_FILE)


@cache
def _read(path: Path) -> dict[str, LevelRating]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        players = int(data["players"])
        return {
            name: LevelRating(
                level=name,
                rating=float(entry["rating"]),
                mu=float(entry["mu"]),
                sigma=float(entry["sigma"]),
                games=int(entry["games"]),
                players=players,
                measured=str(data["measured"]),
            )
            for name, entry in data["levels"].items()
            if name in LEVELS
        }
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def level_rating_text(level: str) -> str:
    """What is said of a level's strength where it is chosen: its rating, or that it has none."""
    rated = level_ratings().get(level)
    if rated is None:
        return _("not yet rated")
    shown = number_format(round(rated.rating, 1), 1)  # rounded first: number_format cuts the digits
    return _("rating %(rating)s") % {"rating": shown}


def level_choice_label(level: str) -> str:
    """A level as the seat choice shows it: "Medium bot (rating 21.4)"."""
    return _("%(level)s (%(rating)s)") % {"level": LEVEL_LABELS[level], "rating": level_rating_text(level)}


def level_choices() -> list[tuple[str, str]]:
    """The levels, weakest first, as (value, label) choices for the active language."""
    return [(level, level_choice_label(level)) for level in LEVELS]
