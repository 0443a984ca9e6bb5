"""The greedy evaluation: the placements with the best immediate score
difference, and a selection that keeps the reserve balanced.

The greedy bot plays by it; the strong bot's search orders its moves by it and
plays its playouts with it. Pure functions of the board and the pieces, with no
view to build, since a playout calls them on every move.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .board import Board
from .constants import LOTS_PER_CITY, PIECES_PER_SIZE, TALLEST_POINTS
from .rotation import CARD_INDEXES
from .rules import PLACEMENTS, Placement, sizes_left


def balanced_selection(reserve: Sequence[int], k: int) -> tuple[int, ...]:
    """Keep the reserve balanced: take from the size with the largest share left,
    larger sizes first on a tie, so every round has some takeover power."""
    left = list(reserve)
    chosen: list[int] = []
    for _ in range(k):
        size = max((s for s in (4, 3, 2, 1) if left[s - 1]), key=lambda s: left[s - 1] / PIECES_PER_SIZE[s - 1])
        left[size - 1] -= 1
        chosen.append(size)
    return tuple(sorted(chosen))


def greedy_placements(
    board: Board,
    hand: Sequence[int],
    side: int,
    selections: Mapping[int, Sequence[int]],
    colours: Sequence[Sequence[int]],
    seat: int,
) -> list[Placement]:
    """``best_placements(board, legal_placements(board, hand, side, selections), colours, seat)``
    in one pass, without listing the placements first: the greedy bot's and the playouts' choice.

    For each lot and colour the points but for the tallest bonus are worked out once; a
    piece's size then only decides who, if anyone, has the single tallest building.
    """
    players = range(len(colours))
    player_of = {c: p for p in players for c in colours[p]}
    others = [p for p in players if p != seat]
    two_colours = len(colours[seat]) > 1
    options = [(colour, sizes) for colour, counts in sorted(selections.items()) if (sizes := sizes_left(counts))]
    owners, storeys, heights = board.owner, board.storeys, board.height
    by_card = CARD_INDEXES[side]
    made_for_side = PLACEMENTS[side]
    best_key: tuple[int, int] = (-1_000_000, 0)
    best: list[Placement] = []
    for card in sorted(set(hand)):
        made_for_card = made_for_side[card]
        for city, index in enumerate(by_card[card]):
            owner = owners[index]
            for colour, sizes in options:
                need = 0 if owner < 0 or owner == colour else storeys[index * 4 + owner] - storeys[index * 4 + colour]
                if sizes[-1] < need:
                    continue  # R14: no piece left is big enough to take it over
                points = board.points_untallest(index, colour)
                if two_colours:  # R18: a player's points are their colours' sum
                    totals = [sum(points[c] for c in colours[p]) for p in players]
                else:
                    totals = [points[cs[0]] for cs in colours]
                mine = totals[seat]
                others_best = max([totals[p] for p in others])
                tied = mine - others_best  # equal to the tallest: nobody has the bonus
                taller = tied + TALLEST_POINTS  # above it: this colour, the seat's, alone
                lower = tied  # below it: the single tallest's owner keeps the bonus
                if board.tallest_count == 1:
                    holder = player_of[board.tallest_owner]
                    lower = taller if holder == seat else mine - max(others_best, totals[holder] + TALLEST_POINTS)
                taller_from = board.tallest - heights[index]
                row = made_for_card[city][colour]
                for size in sizes:
                    if size < need:
                        continue
                    key = (lower if size < taller_from else tied if size == taller_from else taller, -size)
                    if key > best_key:
                        best_key, best = key, [row[size - 1]]
                    elif key == best_key:
                        best.append(row[size - 1])
    return best


def best_placements(
    board: Board, placements: list[Placement], colours: Sequence[Sequence[int]], seat: int
) -> list[Placement]:
    """The placements with the best immediate score difference, then the smallest piece.

    The difference is ``seat``'s colours' round score minus the best other
    player's, scored as if the round ended now (R17/R18). ``placements`` come
    from ``legal_placements``, grouped by card, city and colour: each group's
    outcomes are worked out once (``Board.outcomes``), and a size only picks one.
    """
    mine = colours[seat]
    others = [cs for p, cs in enumerate(colours) if p != seat]
    best_key: tuple[int, int] = (-1_000_000, 0)
    best: list[Placement] = []
    group: tuple[int, int, int] | None = None
    taller_from = 0
    diffs: list[int | None] = [None, None, None]
    outcomes: tuple[list[int], list[int], list[int]] = ([], [], [])
    for p in placements:
        if (p.city, p.lot, p.colour) != group:
            group = (p.city, p.lot, p.colour)
            outcomes, taller_from = board.outcomes(p.city * LOTS_PER_CITY + p.lot, p.colour)
            diffs = [None, None, None]
        case = (p.size >= taller_from) + (p.size > taller_from)
        diff = diffs[case]
        if diff is None:
            points = outcomes[case]
            diff = diffs[case] = sum(points[c] for c in mine) - max([sum(points[c] for c in cs) for cs in others])
        key = (diff, -p.size)
        if key > best_key:
            best_key, best = key, [p]
        elif key == best_key:
            best.append(p)
    return best
