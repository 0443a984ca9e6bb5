"""Pure rule functions over plain values: legality (R14), scoring (R17) and
the winner (R19).

They take the board and hand rather than a ``GameState`` so that a player's
view, which holds no secrets, can answer the same questions (bots, the UI).
A board is a ``Board`` (the engine's own, fast) or any sequence of 54
``Building | None`` (read into a ``Board`` first).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from .board import NOBODY, Board, Building, as_board
from .constants import CARD_POSITIONS, CITIES
from .rotation import CARD_INDEXES, CARD_TO_LOT

BoardLike = Sequence[Building | None]


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
    return [size for size in (1, 2, 3, 4) if counts[size - 1] > 0]


PLACEMENTS: tuple[tuple[tuple[tuple[tuple[Placement, ...], ...], ...], ...], ...] = tuple(
    tuple(
        tuple(
            tuple(
                tuple(Placement(card, city, CARD_TO_LOT[side][card], size, colour) for size in (1, 2, 3, 4))
                for colour in range(4)
            )
            for city in range(CITIES)
        )
        for card in range(CARD_POSITIONS)
    )
    for side in range(4)
)
"""``PLACEMENTS[side][card][city][colour][size - 1]``: every placement, made once (they are values)."""
sizes_left = _sizes


def legal_placements(
    board: BoardLike,
    hand: Iterable[int],
    side: int,
    selections: Mapping[int, Sequence[int]],
) -> list[Placement]:
    """Every legal placement for a player holding ``hand`` on ``side`` whose
    colours have the round pieces in ``selections`` (colour -> counts by size).

    Duplicate cards give one set of placements; the order is stable (by card,
    city, colour, size) so clients and bots can rely on it.
    """
    flat = as_board(board)
    owners, storeys = flat.owner, flat.storeys
    options = [(colour, _sizes(counts)) for colour, counts in sorted(selections.items())]
    result: list[Placement] = []
    append = result.append
    by_card = CARD_INDEXES[side]
    made_for_side = PLACEMENTS[side]
    for card in sorted(set(hand)):
        made_for_card = made_for_side[card]
        for city, index in enumerate(by_card[card]):
            owner = owners[index]
            made = made_for_card[city]
            for colour, sizes in options:
                row = made[colour]
                if owner < 0 or owner == colour:  # empty (NOBODY is -1) or its own
                    for size in sizes:
                        append(row[size - 1])
                else:
                    need = storeys[index * 4 + owner] - storeys[index * 4 + colour]  # R14
                    for size in sizes:
                        if size >= need:
                            append(row[size - 1])
    return result


def largest_pieces(
    selections: Mapping[int, Sequence[int]], colours: Iterable[int] | None = None
) -> list[tuple[int, int]]:
    """Each colour (of ``colours``, or all) with round pieces left, and its largest one."""
    out = []
    for colour in selections if colours is None else colours:
        counts = selections[colour]
        for size in (4, 3, 2, 1):
            if counts[size - 1] > 0:
                out.append((colour, size))
                break
    return out


def placement_exists(board: Board, hand: Iterable[int], side: int, pieces: Sequence[tuple[int, int]]) -> bool:
    """Whether a card of ``hand`` lets one of ``pieces`` (colour, largest size) be placed;
    stops at the first legal placement (R16 asks this at every turn)."""
    if not pieces:
        return False
    owners, storeys = board.owner, board.storeys
    by_card = CARD_INDEXES[side]
    for card in hand:  # a duplicate card only repeats a check that failed
        for index in by_card[card]:
            owner = owners[index]
            if owner < 0:  # NOBODY
                return True
            need = storeys[index * 4 + owner]
            for colour, size in pieces:
                if owner == colour or storeys[index * 4 + colour] + size >= need:
                    return True
    return False


def has_legal_placement(
    board: BoardLike, hand: Iterable[int], side: int, selections: Mapping[int, Sequence[int]]
) -> bool:
    """Whether ``legal_placements`` would be non-empty; stops at the first legal placement."""
    return placement_exists(as_board(board), hand, side, largest_pieces(selections))


def any_lot_accepts(board: BoardLike, selections: Mapping[int, Sequence[int]]) -> bool:
    """R16: whether some lot of some city would take one of these pieces,
    whatever card were played."""
    largest = largest_pieces(selections)
    if not largest:
        return False
    flat = as_board(board)
    storeys = flat.storeys
    for index, owner in enumerate(flat.owner):
        if owner == NOBODY:
            return True
        need = storeys[index * 4 + owner]
        for colour, size in largest:
            if owner == colour or storeys[index * 4 + colour] + size >= need:
                return True
    return False


def score_board(board: BoardLike, colours: Iterable[int]) -> dict[int, int]:
    """R17: the points each colour earns for the board as it stands.

    A tie for tallest scores nobody, even when one colour owns every tied
    building; a tie at the top of a city gives nobody its majority.
    """
    return as_board(board).score(colours)


def winners(
    board: BoardLike,
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
    flat = as_board(board)

    def total(p: int) -> int:
        return sum(scores[c] for c in colours_by_player[p])

    def tallest_owned(p: int) -> int:
        mine = colours_by_player[p]
        return max((h for o, h in zip(flat.owner, flat.height, strict=True) if o in mine), default=0)

    def buildings_owned(p: int) -> int:
        return sum(flat.buildings_owned(c) for c in colours_by_player[p])

    for key in (total, tallest_owned, buildings_owned):
        best = max(key(p) for p in pool)
        pool = [p for p in pool if key(p) == best]
        if len(pool) == 1:
            break
    return tuple(sorted(pool))


__all__ = [
    "Board",
    "Placement",
    "any_lot_accepts",
    "can_place",
    "has_legal_placement",
    "legal_placements",
    "score_board",
    "smallest_takeover",
    "winners",
]
