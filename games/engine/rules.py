"""Pure rule functions over plain values: legality (R14), scoring (R17) and
the winner (R19).

They take the board and hand rather than a ``GameState`` so that a player's
view, which holds no secrets, can answer the same questions (bots, the UI).
A board is a ``Board`` (the engine's own, fast) or any sequence of 54
``Building | None`` (read into a ``Board`` first).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from operator import itemgetter
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


BySizes = tuple[tuple[Placement, ...], ...]
"""Placements indexed by a mask of sizes (bit ``size - 1``): those of the sizes in the mask."""
LotPlacements = tuple[int, tuple[BySizes, ...]]
"""A lot's board index, and its placements of each colour (``[colour][mask]``)."""


def _subsets_by_mask(row: tuple[Placement, ...]) -> BySizes:
    """Every subset of ``row`` (placements by size), at the index of its mask of sizes."""
    subsets: list[tuple[Placement, ...]] = [()]
    for placement in row:  # the subsets with this size follow those without it, bit ``size - 1``
        subsets += [(*chosen, placement) for chosen in subsets]
    return tuple(subsets)


AT_LEAST = (15, 15, 14, 12, 8)
"""``AT_LEAST[need]``: the mask (bit ``size - 1`` for each size) of the sizes from ``need`` (1–4) up."""

LOTS_AND_PLACEMENTS: tuple[tuple[tuple[LotPlacements, ...], ...], ...] = tuple(
    tuple(
        tuple(
            (index, tuple(_subsets_by_mask(row) for row in PLACEMENTS[side][card][city]))
            for city, index in enumerate(CARD_INDEXES[side][card])
        )
        for card in range(CARD_POSITIONS)
    )
    for side in range(4)
)
"""``LOTS_AND_PLACEMENTS[side][card]``: for each city, the board index of the lot the card names and,
``[colour][mask]``, the placements there of the sizes in ``mask``, smallest first: listing a
lot's legal placements is then one lookup rather than a loop over sizes."""

LOTS_FOR_COLOUR: tuple[tuple[tuple[tuple[tuple[int, BySizes], ...], ...], ...], ...] = tuple(
    tuple(
        tuple(tuple((index, by_colour[colour]) for index, by_colour in lots) for colour in range(4))
        for lots in LOTS_AND_PLACEMENTS[side]
    )
    for side in range(4)
)
"""``LOTS_FOR_COLOUR[side][card][colour]``: ``LOTS_AND_PLACEMENTS[side][card]`` for one colour:
for each city, the lot's board index and the colour's placements there by mask of sizes."""


def size_mask(counts: Sequence[int]) -> int:
    """The mask (bit ``size - 1``) of the sizes of which ``counts`` (by size) has pieces left."""
    return (counts[0] > 0) | (counts[1] > 0) << 1 | (counts[2] > 0) << 2 | (counts[3] > 0) << 3


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
    result: list[Placement] = []
    extend = result.extend
    cards = sorted(set(hand))
    if len(selections) == 1:  # one colour (three or four players): no loop over colours per lot
        [(colour, counts)] = selections.items()
        mask = size_mask(counts)
        lots_for_colour = LOTS_FOR_COLOUR[side]
        for card in cards:
            for index, by_sizes in lots_for_colour[card][colour]:
                owner = owners[index]
                if owner < 0 or owner == colour:  # empty (NOBODY is -1) or its own
                    extend(by_sizes[mask])
                else:
                    need = storeys[index * 4 + owner] - storeys[index * 4 + colour]  # R14
                    extend(by_sizes[mask if need <= 1 else mask & AT_LEAST[need] if need <= 4 else 0])
        return result
    masks = [(colour, size_mask(counts)) for colour, counts in sorted(selections.items())]
    lots_for_side = LOTS_AND_PLACEMENTS[side]
    for card in cards:
        for index, made in lots_for_side[card]:
            owner = owners[index]
            for colour, mask in masks:
                if owner < 0 or owner == colour:  # empty (NOBODY is -1) or its own
                    extend(made[colour][mask])
                else:
                    need = storeys[index * 4 + owner] - storeys[index * 4 + colour]  # R14
                    extend(made[colour][mask if need <= 1 else mask & AT_LEAST[need] if need <= 4 else 0])
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


LOT_OWNERS = tuple(tuple(itemgetter(*indexes) for indexes in CARD_INDEXES[side]) for side in range(4))
"""``LOT_OWNERS[side][card](board.owner)``: the owners of the six lots a card names, read in one step."""


def free_lot_named(board: Board, hand: Iterable[int], side: int, colours: Iterable[int]) -> bool:
    """Whether a card of ``hand`` names an empty lot or a building of one of ``colours``: any
    piece of such a colour may go there without a takeover (R14). R16's usual, quick answer."""
    owners = board.owner
    lots_of = LOT_OWNERS[side]
    for card in hand:
        named = lots_of[card](owners)
        if NOBODY in named:
            return True
        for colour in colours:
            if colour in named:
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
