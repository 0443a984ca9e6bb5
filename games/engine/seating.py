"""Who sits where: a game's seating, read once from its creation event (R5, R10, R15)."""

from __future__ import annotations

from typing import Any, NamedTuple

from .constants import DEFAULT_COLOURS
from .options import GameOptions


def seats_after(clockwise: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """For each seat, every seat in clockwise order after it, itself last (R10)."""
    n = len(clockwise)
    after: list[tuple[int, ...]] = [()] * n
    for i, seat in enumerate(clockwise):
        after[seat] = tuple(clockwise[(i + step) % n] for step in range(1, n + 1))
    return tuple(after)


class Seating(NamedTuple):
    options: GameOptions
    sides: tuple[int, ...]
    colours: tuple[tuple[int, ...], ...]
    colour_player: dict[int, int]
    clockwise: tuple[int, ...]
    seats_after: tuple[tuple[int, ...], ...]


_SEATINGS: dict[str, Seating] = {}
"""Seatings already read, by their creation event's options, sides and colours: every fold
of a game starts by reading them, and a server holds few distinct ones. All are immutable,
so states share them (``GameState.copy`` shares them too)."""


def seating_of(created: dict[str, Any]) -> Seating:
    """The seating a ``game_created`` event records."""
    key = repr((created["options"], created["sides"], created.get("colours")))
    known = _SEATINGS.get(key)
    if known is not None:
        return known
    options = GameOptions.from_json(created["options"])
    sides = tuple(created["sides"])
    colours = tuple(tuple(c) for c in created.get("colours", DEFAULT_COLOURS[options.players]))
    clockwise = tuple(sorted(range(options.players), key=lambda p: sides[p]))
    seating = Seating(
        options=options,
        sides=sides,
        colours=colours,
        colour_player={c: p for p, cs in enumerate(colours) for c in cs},
        clockwise=clockwise,
        seats_after=seats_after(clockwise),
    )
    if len(_SEATINGS) >= 256:
        _SEATINGS.clear()
    _SEATINGS[key] = seating
    return seating
