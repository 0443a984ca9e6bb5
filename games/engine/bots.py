"""Bots: pure functions of one seat's view and a seeded generator.

They see exactly what a person in that seat sees (``PlayerView``), so a bot
can never use another hand or the draw pile's order.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from .actions import Action, PlacePiece, Resign, SelectPieces, place_action
from .constants import CITIES, LOTS_PER_CITY, PIECE_SIZES
from .determinize import HiddenCards, sample_state
from .greedy import balanced_selection, greedy_placements
from .playout import policy_placement
from .rotation import CARD_INDEXES
from .rules import Placement, legal_placements, size_mask
from .search import Budget, choose
from .state import PLACEMENT, SELECTION
from .views import PlayerView

Bot = Callable[[PlayerView, random.Random], Action]


def _seat(view: PlayerView) -> int:
    if view.seat is None or view.to_act != view.seat:
        raise ValueError("a bot is asked to act only on its own turn")
    return view.seat


def _as_action(view: PlayerView, seat: int, p: Placement) -> PlacePiece:
    two_colours = len(view.colours[seat]) > 1
    return place_action(p.card, p.city, p.size, p.colour if two_colours else None)


PIECES_BY_SIZES = tuple(
    tuple(tuple((colour, size) for size in PIECE_SIZES if mask >> (size - 1) & 1) for mask in range(16))
    for colour in range(4)
)
"""``PIECES_BY_SIZES[colour][mask]``: the (colour, size) pieces of the sizes in ``mask`` (bit ``size - 1``)."""


def random_bot(view: PlayerView, rng: random.Random) -> Action:
    """Uniformly random among the legal actions (selections: a random draw from the reserve)."""
    seat = _seat(view)
    phase = view.phase
    if phase == SELECTION:
        colour = view.selecting_colour
        assert colour is not None
        left = view.reserve[colour]
        reserve = [1] * left[0] + [2] * left[1] + [3] * left[2] + [4] * left[3]
        return SelectPieces(pieces=tuple(rng.sample(reserve, view.options.pieces_per_round)), colour=colour)
    hand = view.hand
    if phase != PLACEMENT or hand is None:
        return Resign()
    # Rejection sampling from card x city x piece is uniform over the legal
    # placements and much cheaper than listing them all on every turn.
    cards = sorted(set(hand))
    mine = view.colours[seat]
    selection = view.selection
    pieces: tuple[tuple[int, int], ...] = ()
    for c in mine:
        pieces += PIECES_BY_SIZES[c][size_mask(selection[c])]
    named = len(mine) > 1  # R15: only a two-colour player names the colour
    by_card = CARD_INDEXES[view.sides[seat]]
    board = view.board
    owners, storeys = board.owner, board.storeys
    random_float = rng.random  # several times cheaper than randrange in this loop
    n_cards, n_pieces = len(cards), len(pieces)
    for _ in range(32):
        card = cards[int(random_float() * n_cards)]
        index = by_card[card][int(random_float() * CITIES)]
        colour, size = pieces[int(random_float() * n_pieces)]
        owner = owners[index]  # R14, as Board.accepts, inlined: this loop is most of a random game
        if owner < 0 or owner == colour or storeys[index * 4 + colour] + size >= storeys[index * 4 + owner]:
            return place_action(card, index // LOTS_PER_CITY, size, colour if named else None)
    return _as_action(view, seat, rng.choice(view.legal_placements()))


def _unless_placing(view: PlayerView) -> Action | None:
    """What the one-move bots do when the seat is not placing: a balanced selection in
    the selection phase, a resignation when there is nothing to do; None to place."""
    if view.phase == SELECTION:
        colour = view.selecting_colour
        assert colour is not None
        return SelectPieces(
            pieces=balanced_selection(view.reserve[colour], view.options.pieces_per_round), colour=colour
        )
    if view.phase != PLACEMENT or view.hand is None:
        return Resign()
    return None


def greedy_bot(view: PlayerView, rng: random.Random) -> Action:
    """The placement with the best immediate score difference.

    The difference is the seat's colours' round score minus the best other
    player's, scored as if the round ended now (R17/R18). Ties go to the
    smaller piece (big pieces are kept for takeovers), then at random.
    """
    seat = _seat(view)
    if (other := _unless_placing(view)) is not None:
        return other
    assert view.hand is not None  # placing: the seat holds its hand
    selections = {c: view.selection[c] for c in view.colours[seat]}
    best = greedy_placements(view.board, view.hand, view.sides[seat], selections, view.colours, seat)
    return _as_action(view, seat, best[rng.randrange(len(best))])


def sampled_bot(view: PlayerView, rng: random.Random) -> Action:
    """The ``easy`` level: of four random legal placements, the one with the best immediate
    score difference (the search's playout policy, played from the view); greedy's balanced
    selection. Plausible moves, but it misses most of the good ones greedy would see."""
    seat = _seat(view)
    if (other := _unless_placing(view)) is not None:
        return other
    # The policy reads a state: any completion of the view will do, since it reads only the
    # seat's own hand and public things (a fixed generator deals the hidden cards).
    state = sample_state(view, HiddenCards(view), random.Random(0))
    return policy_placement(state, seat, rng)


def strong_bot(view: PlayerView, rng: random.Random) -> Action:
    """The information-set Monte Carlo tree search (``search.py``), one second a decision."""
    return strong_bot_with()(view, rng)


def strong_bot_with(*, iterations: int | None = None, seconds: float | None = None, playout: str = "sampled") -> Bot:
    """The strong bot with a budget per decision: ``iterations`` (deterministic for a given
    generator), ``seconds`` (a time limit), or both (whichever ends first). With neither,
    one second. ``playout`` names the playouts' placement policy (``playout.PLAYOUT_POLICIES``)."""
    budget = Budget(
        iterations=iterations, seconds=seconds if seconds is not None or iterations else 1.0, playout=playout
    )

    def bot(view: PlayerView, rng: random.Random) -> Action:
        _seat(view)
        return choose(view, rng, budget)

    return bot


BOTS: dict[str, Bot] = {"random": random_bot, "greedy": greedy_bot, "strong": strong_bot}
SEARCH_BOTS = frozenset({"strong"})
"""Bots that search, and so take a budget (``bot_for(kind, iterations=..., seconds=...)``)."""


@dataclass(frozen=True, slots=True)
class Level:
    """A bot level a person can choose: a search budget (CPU seconds a decision) or, below
    the search, a one-move policy (``policy`` names a kind of ``BOTS`` or ``sampled``)."""

    name: str
    policy: str
    seconds: float | None = None


LEVELS: dict[str, Level] = {
    level.name: level
    for level in (
        Level("easy", "sampled"),
        Level("medium", "strong", seconds=0.1),
        Level("hard", "strong", seconds=1.0),
        Level("strongest", "strong", seconds=4.0),
    )
}
"""The levels, weakest first: ``easy`` plays the sampled one-move policy (no search, weaker
than greedy but plausible); the others search a tenth of a second, one second (the
``strong`` bot's default) and four seconds of CPU a decision."""

SEAT_BOTS: tuple[str, ...] = (*BOTS, *LEVELS)
"""What a seat of a game may hold: the bots (existing seats and logs name them) and the levels."""

VARIANTS: dict[str, str] = {"strong-greedy-playouts": "greedy"}
"""Search bots for measurement only (the arena), by their playout policy: the strong bot as
it was before the sampled playouts (commit 9d02d1d), to compare at equal CPU."""


def bot_kinds() -> list[str]:
    """Every kind ``bot_for`` knows: the bots, the levels and the arena's variants."""
    return [*BOTS, *LEVELS, *VARIANTS]


def bot_for(kind: str, *, iterations: int | None = None, seconds: float | None = None) -> Bot:
    """The bot of ``kind``; a search bot (``strong`` or a variant) gets the budget given, if
    any. A level has its own budget: a budget given here is ignored for it."""
    if kind in LEVELS:
        level = LEVELS[kind]
        if level.policy == "sampled":
            return sampled_bot
        return strong_bot_with(seconds=level.seconds)
    if kind in VARIANTS:
        return strong_bot_with(iterations=iterations, seconds=seconds, playout=VARIANTS[kind])
    if kind not in BOTS:
        raise ValueError(f"unknown bot kind {kind!r}; choose from {', '.join(bot_kinds())}")
    if kind in SEARCH_BOTS and (iterations is not None or seconds is not None):
        return strong_bot_with(iterations=iterations, seconds=seconds)
    return BOTS[kind]


__all__ = [
    "BOTS",
    "LEVELS",
    "SEARCH_BOTS",
    "SEAT_BOTS",
    "VARIANTS",
    "Bot",
    "Level",
    "bot_for",
    "bot_kinds",
    "greedy_bot",
    "legal_placements",
    "random_bot",
    "sampled_bot",
    "strong_bot",
    "strong_bot_with",
]
