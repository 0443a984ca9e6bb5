"""The finished game's review on its page: the win-chance chart's coordinates (drawn by
``templates/games/_review_chart.svg.html``) and the marked moves as sentences.

The chart must read without colour: every seat's line has its own dash pattern and
marker shape and ends in the seat's name; a list under it says the same in words.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils.functional import Promise
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _

from games.engine import action_from_json, format_action
from games.models import GameReview

WIDTH, HEIGHT = 560, 220
LEFT, RIGHT, TOP, BOTTOM = 40, 90, 12, 24
INK = ("#1f5fae", "#b2452c", "#2e7d5b", "#7a4fa3")
DASHES = ("", "6 3", "2 3", "8 3 2 3")
SHAPES = ("circle", "square", "triangle", "diamond")

MARK_LABELS: dict[str, Promise] = {
    "inaccuracy": gettext_lazy("inaccuracy"),
    "mistake": gettext_lazy("mistake"),
    "blunder": gettext_lazy("blunder"),
}


@dataclass(frozen=True)
class Marker:
    x: float
    y: float
    shape: str
    path: str  # the marker's outline, for shapes drawn as paths
    title: str


@dataclass(frozen=True)
class Series:
    seat: int
    name: str
    ink: str
    dash: str
    polyline: str
    markers: list[Marker]
    label_y: float
    summary: str  # the text alternative of this line


@dataclass(frozen=True)
class ReviewChart:
    width: int
    height: int
    left: int
    right: int
    top: int
    bottom: int
    middle: float
    series: list[Series]


def _percent(chance: float) -> str:
    return f"{round(chance * 100)}%"


def _outline(shape: str, x: float, y: float) -> str:
    r = 3.5
    if shape == "square":
        return f"M{x - r:.1f},{y - r:.1f}h{2 * r}v{2 * r}h{-2 * r}z"
    if shape == "triangle":
        return f"M{x:.1f},{y - r - 1:.1f}L{x + r + 1:.1f},{y + r:.1f}L{x - r - 1:.1f},{y + r:.1f}z"
    return f"M{x:.1f},{y - r - 1:.1f}L{x + r + 1:.1f},{y:.1f}L{x:.1f},{y + r + 1:.1f}L{x - r - 1:.1f},{y:.1f}z"


def chart(moves: list[dict[str, Any]], names: dict[int, str]) -> ReviewChart | None:
    """Each seat's estimated chance to win after each of its moves, over the game's moves."""
    if not moves:
        return None
    inner_w = WIDTH - LEFT - RIGHT
    inner_h = HEIGHT - TOP - BOTTOM
    step = inner_w / max(len(moves) - 1, 1)
    series: list[Series] = []
    for seat in sorted({row["seat"] for row in moves}):
        style = seat % len(INK)
        points = [
            (round(LEFT + i * step, 1), round(TOP + (1 - row["chance_after"]) * inner_h, 1), row)
            for i, row in enumerate(moves)
            if row["seat"] == seat
        ]
        name = names.get(seat, str(seat + 1))
        chances = [row["chance_after"] for _, _, row in points]
        markers = [
            Marker(
                x=x,
                y=y,
                shape=SHAPES[style],
                path=_outline(SHAPES[style], x, y),
                title=_("%(name)s, round %(round)s: %(chance)s")
                % {"name": name, "round": row["round"], "chance": _percent(row["chance_after"])},
            )
            for x, y, row in points
        ]
        summary = _("%(name)s: from %(first)s to %(last)s (lowest %(low)s, highest %(high)s)") % {
            "name": name,
            "first": _percent(chances[0]),
            "last": _percent(chances[-1]),
            "low": _percent(min(chances)),
            "high": _percent(max(chances)),
        }
        series.append(
            Series(
                seat=seat,
                name=name,
                ink=INK[style],
                dash=DASHES[style],
                polyline=" ".join(f"{x},{y}" for x, y, _row in points),
                markers=markers,
                label_y=points[-1][1],
                summary=summary,
            )
        )
    return ReviewChart(WIDTH, HEIGHT, LEFT, WIDTH - RIGHT, TOP, HEIGHT - BOTTOM, TOP + inner_h / 2, series)


def marked_moves(moves: list[dict[str, Any]], names: dict[int, str]) -> list[dict[str, Any]]:
    """The moves the review marked, each as a sentence and the log position before it."""
    language = get_language() or "en"
    lines = []
    for row in moves:
        if not row.get("mark"):
            continue
        text = _("the bot would have played %(best)s (win chance %(after)s → %(before)s)") % {
            "best": format_action(action_from_json(row["best"]), language),
            "after": _percent(row["chance_after"]),
            "before": _percent(row["chance_before"]),
        }
        lines.append(
            {
                "at": row["event_index"],  # the position just before the move (?at=N shows after event N)
                "seat": row["seat"],
                "kind": row["kind"],
                "played_json": row["played"],
                "best_json": row["best"],
                "round": row["round"],
                "name": names.get(row["seat"], ""),
                "played": format_action(action_from_json(row["played"]), language),
                "mark": MARK_LABELS.get(row["mark"], row["mark"]),
                "text": text,
            }
        )
    return lines


def review_context(review: GameReview | None, names: dict[int, str]) -> dict[str, Any]:
    """What the finished game's page shows of its review (nothing without one)."""
    if review is None:
        return {}
    if review.status != GameReview.Status.DONE:
        pending = review.status in (GameReview.Status.QUEUED, GameReview.Status.RUNNING)
        return {"review_pending": pending, "review_progress": round(review.progress * 100)}
    return {
        "review_chart": chart(review.moves, names),
        "review_marked": marked_moves(review.moves, names),
        "review_done": True,
    }
