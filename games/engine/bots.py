"""Bots: pure functions of one seat's view and a seeded generator.

They see exactly what a person in that seat sees (``PlayerView``), so a bot
can never use another hand or the draw pile's order.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from .actions import Action, PlacePiece, Resign, SelectPieces
from .constants import CITIES, LOTS_PER_CITY, PIECES_PER_SIZE
from .rotation import CARD_TO_LOT
from .rules import Placement, can_place, legal_placements, score_board
from .state import PLACEMENT, SELECTION, Building
from .views import PlayerView

Bot = Callable[[PlayerView, random.Random], Action]


def _seat(view: PlayerView) -> int:
    if view.seat is None or view.to_act != view.seat:
        raise ValueError("a bot is asked to act only on its own turn")
    return view.seat


def _as_action(view: PlayerView, seat: int, p: Placement) -> PlacePiece:
    two_colours = len(view.colours[seat]) > 1
    return PlacePiece(card=p.card, city=p.city, size=p.size, colour=p.colour if two_colours else None)


def random_bot(view: PlayerView, rng: random.Random) -> Action:
    """Uniformly random among the legal actions (selections: a random draw from the reserve)."""
    seat = _seat(view)
    if view.phase == SELECTION:
        colour = view.selecting_colour
        assert colour is not None
        reserve = [s for s in (1, 2, 3, 4) for _ in range(view.reserve[colour][s - 1])]
        return SelectPieces(pieces=tuple(rng.sample(reserve, view.options.pieces_per_round)), colour=colour)
    if view.phase != PLACEMENT or view.hand is None:
        return Resign()
    # Rejection sampling from card x city x piece is uniform over the legal
    # placements and much cheaper than listing them all on every turn.
    cards = sorted(set(view.hand))
    pieces = [(c, s) for c in view.colours[seat] for s in (1, 2, 3, 4) if view.selection[c][s - 1]]
    to_lot = CARD_TO_LOT[view.sides[seat]]
    random_float = rng.random  # several times cheaper than randrange in this loop
    for _ in range(32):
        card = cards[int(random_float() * len(cards))]
        city = int(random_float() * CITIES)
        colour, size = pieces[int(random_float() * len(pieces))]
        if can_place(view.board[city * LOTS_PER_CITY + to_lot[card]], colour, size):
            return _as_action(view, seat, Placement(card, city, to_lot[card], size, colour))
    return _as_action(view, seat, rng.choice(view.legal_placements()))


def _greedy_selection(view: PlayerView, colour: int) -> tuple[int, ...]:
    """Keep the reserve balanced: take from the size with the largest share left,
    larger sizes first on a tie, so every round has some takeover power."""
    reserve = list(view.reserve[colour])
    chosen: list[int] = []
    for _ in range(view.options.pieces_per_round):
        size = max((s for s in (4, 3, 2, 1) if reserve[s - 1]), key=lambda s: reserve[s - 1] / PIECES_PER_SIZE[s - 1])
        reserve[size - 1] -= 1
        chosen.append(size)
    return tuple(sorted(chosen))


def greedy_bot(view: PlayerView, rng: random.Random) -> Action:
    """The placement with the best immediate score difference.

    The difference is the seat's colours' round score minus the best other
    player's, scored as if the round ended now (R17/R18). Ties go to the
    smaller piece (big pieces are kept for takeovers), then at random.
    """
    seat = _seat(view)
    if view.phase == SELECTION:
        colour = view.selecting_colour
        assert colour is not None
        return SelectPieces(pieces=_greedy_selection(view, colour), colour=colour)
    placements = view.legal_placements()
    if not placements:
        return Resign()
    mine = view.colours[seat]
    others = [cs for p, cs in enumerate(view.colours) if p != seat]
    all_colours = sorted(view.scores)
    board = list(view.board)
    best_key: tuple[int, int] | None = None
    best: list[Placement] = []
    for p in placements:
        index = p.city * LOTS_PER_CITY + p.lot
        before = board[index]
        board[index] = Building.new(p.colour, p.size) if before is None else before.add(p.colour, p.size)
        points = score_board(board, all_colours)
        board[index] = before
        diff = sum(points[c] for c in mine) - max((sum(points[c] for c in cs) for cs in others), default=0)
        key = (diff, -p.size)
        if best_key is None or key > best_key:
            best_key, best = key, [p]
        elif key == best_key:
            best.append(p)
    return _as_action(view, seat, best[rng.randrange(len(best))])


BOTS: dict[str, Bot] = {"random": random_bot, "greedy": greedy_bot}


def bot_for(kind: str) -> Bot:
    try:
        return BOTS[kind]
    except KeyError:
        raise ValueError(f"unknown bot kind {kind!r}; choose from {', '.join(BOTS)}") from None


__all__ = ["BOTS", "Bot", "bot_for", "greedy_bot", "legal_placements", "random_bot"]
