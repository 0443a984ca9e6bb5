"""A small game driven step by step through the engine's public API, keeping its
log, for the tests of what each seat may see (tests/engine/test_seat_views.py,
test_redacted_events.py, test_legal_actions_view.py); and R6's lot for a card and
a side, written out independently of the engine."""

from __future__ import annotations

import random
from typing import Any

from games.engine import (
    GameOptions,
    PlacePiece,
    SelectPieces,
    create_game,
    enumerate_actions,
    execute,
    initial_state,
    player_view,
)

COLOURS = ("red", "blue", "green", "yellow")


def lot_for(card: int, side: int) -> int:
    """R6, 0-based card and lot, written out independently of the engine."""
    r, c = divmod(card, 3)
    rr, cc = [(r, c), (c, 2 - r), (2 - r, 2 - c), (2 - c, r)][side]
    return 3 * rr + cc


class Game:
    """A game driven step by step, keeping its log."""

    def __init__(self, players: int = 4, seed: int = 3, **options: Any) -> None:
        self.rng = random.Random(seed)
        self.events = [create_game(GameOptions(players=players, start_player=0, **options), self.rng)]
        self.state = initial_state(self.events[0])

    def act(self, seat: int | None, action: Any) -> list[dict[str, Any]]:
        self.state, new = execute(self.state, seat, action, self.rng)
        self.events.extend(new)
        return new

    def select_all(self) -> None:
        k = self.state.options.pieces_per_round
        while self.state.phase == "selection":
            colour = self.state.selecting_colour
            self.act(self.state.to_act, SelectPieces(pieces=(1,) * (k - 2) + (2, 3), colour=colour))

    def place_first_legal(self) -> list[dict[str, Any]]:
        seat = self.state.to_act
        assert seat is not None
        actions = [a for a in enumerate_actions(player_view(self.state, seat)) if isinstance(a, PlacePiece)]
        return self.act(seat, actions[0])
