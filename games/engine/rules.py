"""Pure rule functions over plain values: legality (R14), scoring (R17) and
the winner (R19).

They take the board and hand rather than a ``GameState`` so that a player's
view, which holds no secrets, can answer the same questions (bots, the UI).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from .constants import (
    BUILDING_POINTS,
    CITIES,
    LOTS_PER_CITY,
    MAJORITY_POINTS,
    TALLEST_POINTS,
)
from .rotation import CARD_TO_LOT
from .state import Building

Board = Sequence[Building | None]


class Placement(NamedTuple):
    """One legal placement: play ``card`` to put a ``size`` piece of ``colour``
    on ``lot`` of ``city`` (all 0-based)."""

    card: int
    city: int
    lot: int
    size: int
    colour: int


def can_place(building: Building | None, colour: int, size: int) -> bool:
    """R14: an empty lot or one's own building always; another colour's
    building only if the placer then has at least the owner's storeys."""
    if building is None or building.owner == colour:
        return True
    return building.storeys[colour] + size >= building.storeys[building.owner]


def smallest_takeover(building: Building, colour: int) -> int:
    """The smallest piece size with which ``colour`` may build here (may exceed 4)."""
    if building.owner == colour:
        return 1
    return max(1, building.storeys[building.owner] - building.storeys[colour])


def _sizes(counts: Sequence[int]) -> list[int]:
    return [i + 1 for i in range(4) if counts[i] > 0]


def legal_placements(
    board: Board,
    hand: Iterable[int],
    side: int,
    selections: Mapping[int, Sequence[int]],
) -> list[Placement]:
    """Every legal placement for a player holding ``hand`` on ``side`` whose
    colours have the round pieces in ``selections`` (colour -> counts by size).

    Duplicate cards give one set of placements; the order is stable (by card,
    city, colour, size) so clients and bots can rely on it.
    """
    to_lot = CARD_TO_LOT[side]
    options = [(colour, _sizes(counts)) for colour, counts in sorted(selections.items())]
    options = [(colour, sizes) for colour, sizes in options if sizes]
    result: list[Placement] = []
    if not options:
        return result
    append = result.append
    for card in sorted(set(hand)):
        lot = to_lot[card]
        for city in range(CITIES):
            building = board[city * LOTS_PER_CITY + lot]
            for colour, sizes in options:
                if building is None or building.owner == colour:
                    for size in sizes:
                        append(Placement(card, city, lot, size, colour))
                else:
                    need = building.storeys[building.owner] - building.storeys[colour]
                    for size in sizes:
                        if size >= need:
                            append(Placement(card, city, lot, size, colour))
    return result


def has_legal_placement(board: Board, hand: Iterable[int], side: int, selections: Mapping[int, Sequence[int]]) -> bool:
    """Whether ``legal_placements`` would be non-empty, without building it."""
    to_lot = CARD_TO_LOT[side]
    largest = {colour: max(_sizes(c)) for colour, c in selections.items() if any(c)}
    if not largest:
        return False
    for lot in {to_lot[card] for card in hand}:
        for city in range(CITIES):
            building = board[city * LOTS_PER_CITY + lot]
            if building is None:
                return True
            for colour, size in largest.items():
                if building.owner == colour or building.storeys[colour] + size >= building.storeys[building.owner]:
                    return True
    return False


def any_lot_accepts(board: Board, selections: Mapping[int, Sequence[int]]) -> bool:
    """R16: whether some lot of some city would take one of these pieces,
    whatever card were played."""
    largest = {colour: max(_sizes(c)) for colour, c in selections.items() if any(c)}
    for building in board:
        if building is None:
            return bool(largest)
        for colour, size in largest.items():
            if building.owner == colour or building.storeys[colour] + size >= building.storeys[building.owner]:
                return True
    return False


def score_board(board: Board, colours: Iterable[int]) -> dict[int, int]:
    """R17: the points each colour earns for the board as it stands."""
    points = dict.fromkeys(colours, 0)
    tallest_height = 0
    tallest_owners: list[int] = []
    for city in range(CITIES):
        owned = dict.fromkeys(points, 0)
        for building in board[city * LOTS_PER_CITY : (city + 1) * LOTS_PER_CITY]:
            if building is None:
                continue
            owner = building.owner
            owned[owner] += 1
            if building.height > tallest_height:
                tallest_height = building.height
                tallest_owners = [owner]
            elif building.height == tallest_height:
                tallest_owners.append(owner)
        for colour, count in owned.items():
            points[colour] += BUILDING_POINTS * count
        top = max(owned.values(), default=0)
        if top > 0:
            leaders = [c for c, n in owned.items() if n == top]
            if len(leaders) == 1:
                points[leaders[0]] += MAJORITY_POINTS
    # A tie for tallest scores nobody, even when one colour owns every tied building.
    if len(tallest_owners) == 1:
        points[tallest_owners[0]] += TALLEST_POINTS
    return points


def winners(
    board: Board,
    colours_by_player: Sequence[Sequence[int]],
    scores: dict[int, int],
    candidates: Iterable[int],
) -> tuple[int, ...]:
    """R19: the winning players among ``candidates`` after the tie-breaks.

    Highest total; then the one owning the tallest single building; then the
    one owning the most buildings; players still tied share the win.
    """
    pool = list(candidates)
    if not pool:
        return ()

    def total(p: int) -> int:
        return sum(scores[c] for c in colours_by_player[p])

    def tallest_owned(p: int) -> int:
        mine = colours_by_player[p]
        return max((b.height for b in board if b is not None and b.owner in mine), default=0)

    def buildings_owned(p: int) -> int:
        mine = colours_by_player[p]
        return sum(1 for b in board if b is not None and b.owner in mine)

    for key in (total, tallest_owned, buildings_owned):
        best = max(key(p) for p in pool)
        pool = [p for p in pool if key(p) == best]
        if len(pool) == 1:
            break
    return tuple(sorted(pool))
