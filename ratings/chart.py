"""The coordinates of a rating history chart; ``templates/ratings/_chart.svg.html`` draws them."""

from __future__ import annotations

from dataclasses import dataclass

from .profiles import RatingPoint

WIDTH, HEIGHT = 480, 160
PAD_LEFT, PAD_RIGHT, PAD_Y = 44, 10, 14


@dataclass(frozen=True)
class ChartPoint:
    x: float
    y: float
    rating: float
    rank: int
    game: str


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    points: list[ChartPoint]
    polyline: str  # "x,y x,y ..." for <polyline points>
    top: float  # the highest and lowest rating drawn, labelled on the axis
    bottom: float
    top_y: float
    bottom_y: float
    left: int
    right: int


def rating_chart(history: list[RatingPoint]) -> Chart | None:
    """One point per rated game, oldest left; None without history."""
    if not history:
        return None
    values = [point.rating for point in history]
    top, bottom = max(values), min(values)
    if top - bottom < 1:  # a flat line in the middle rather than a division by nothing
        top, bottom = top + 0.5, bottom - 0.5
    inner_w = WIDTH - PAD_LEFT - PAD_RIGHT
    inner_h = HEIGHT - 2 * PAD_Y
    step = inner_w / max(len(history) - 1, 1)
    points = [
        ChartPoint(
            x=round(PAD_LEFT + (i * step if len(history) > 1 else inner_w / 2), 1),
            y=round(PAD_Y + (top - point.rating) / (top - bottom) * inner_h, 1),
            rating=point.rating,
            rank=point.rank,
            game=point.game,
        )
        for i, point in enumerate(history)
    ]
    return Chart(
        width=WIDTH,
        height=HEIGHT,
        points=points,
        polyline=" ".join(f"{p.x},{p.y}" for p in points),
        top=round(top, 1),
        bottom=round(bottom, 1),
        top_y=PAD_Y,
        bottom_y=HEIGHT - PAD_Y,
        left=PAD_LEFT,
        right=WIDTH - PAD_RIGHT,
    )
