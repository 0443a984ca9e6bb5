"""Whole game states consistent with what one seat has seen (for search).

A seat knows the board, every reserve and round selection, every discard
pile, its own hand, and how many cards every other hand and the draw pile
hold (``PlayerView``). Everything else — the other hands and the draw pile's
order — is hidden. ``sample_state`` deals the cards the seat has not seen at
random into those places: one "determinization" of the seat's information
set, as ISMCTS samples one per iteration (Cowling, Powley and Whitehouse 2012).
Only the view is read, so nothing hidden can leak into a bot's choice.
"""

from __future__ import annotations

import random
from collections import Counter

from .constants import CARD_POSITIONS
from .seating import seats_after
from .state import PLACEMENT, SELECTION, GameState
from .views import PlayerView


class HiddenCards:
    """The cards ``view.seat`` has not seen, and where they must go, worked out once per decision."""

    def __init__(self, view: PlayerView) -> None:
        if view.seat is None or view.hand is None:
            raise ValueError("only a seat's own view can be completed")
        seen = Counter(view.hand)
        for pile in view.discards:
            seen.update(pile)
        copies = view.options.copies_per_position
        self.unseen = [card for card in range(CARD_POSITIONS) for _ in range(copies - seen[card])]
        self.others = [p for p in range(len(view.sides)) if p != view.seat]
        wanted = sum(view.hand_sizes[p] for p in self.others) + view.draw_pile_size
        if wanted != len(self.unseen):
            raise ValueError(f"the view hides {wanted} cards but {len(self.unseen)} are unaccounted for")


def sample_state(view: PlayerView, hidden: HiddenCards, rng: random.Random) -> GameState:
    """A complete state that ``view`` could have been taken from, the hidden cards dealt at random."""
    assert view.seat is not None
    assert view.hand is not None
    cards = hidden.unseen[:]
    rng.shuffle(cards)
    hands: list[list[int]] = [[] for _ in view.sides]
    hands[view.seat] = list(view.hand)
    taken = 0
    for p in hidden.others:
        size = view.hand_sizes[p]
        hands[p] = cards[taken : taken + size]
        taken += size
    players = len(view.sides)
    clockwise = tuple(sorted(range(players), key=lambda p: view.sides[p]))
    state = GameState(
        options=view.options,
        sides=view.sides,
        colours=view.colours,
        colour_player={c: p for p, cs in enumerate(view.colours) for c in cs},
        clockwise=clockwise,
        board=view.board.copy(),
        hands=hands,
        draw_pile=cards[taken:],
        discards=[list(d) for d in view.discards],
        reserve={c: list(v) for c, v in view.reserve.items()},
        selection={c: list(v) for c, v in view.selection.items()},
        lost=dict(view.lost),
        scores=dict(view.scores),
        round_scores=[dict(r) for r in view.round_scores],
        round=view.round,
        phase=view.phase,
        start_player=view.start_player,
        to_act=view.to_act,
        selection_queue=_selection_queue(view, clockwise) if view.phase == SELECTION else [],
        resigned=list(view.resigned),
        seq=view.version,
        seats_after=seats_after(clockwise),
    )
    assert state.phase in (SELECTION, PLACEMENT)
    return state


def _selection_queue(view: PlayerView, clockwise: tuple[int, ...]) -> list[int]:
    """R9: the colours still to select this round, in order from the start player (those
    that have selected hold their round pieces; the view shows no queue)."""
    start = clockwise.index(view.start_player)
    queue: list[int] = []
    for i in range(len(clockwise)):
        player = clockwise[(start + i) % len(clockwise)]
        if not view.resigned[player]:
            queue.extend(c for c in view.colours[player] if not any(view.selection[c]))
    return queue


class Deals:
    """``sample_state`` for many iterations of one decision: the state is built from the view
    once, and each sample is a copy of it with the hidden cards dealt anew (the same deal,
    from the same generator, as ``sample_state`` makes: a test checks they are equal)."""

    def __init__(self, view: PlayerView, hidden: HiddenCards) -> None:
        self.template = sample_state(view, hidden, random.Random(0))
        self.unseen = hidden.unseen
        self.seat = view.seat
        self.sizes = [(p, view.hand_sizes[p]) for p in hidden.others]

    def sample(self, rng: random.Random) -> GameState:
        cards = self.unseen[:]
        rng.shuffle(cards)
        state = self.template.copy()
        hands = state.hands
        taken = 0
        for p, size in self.sizes:
            hands[p] = cards[taken : taken + size]
            taken += size
        state.draw_pile = cards[taken:]
        return state
