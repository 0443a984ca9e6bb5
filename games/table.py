"""A game as a request holds it: the game row, its seats (with their players) and its
state, read together by ``games.store``.

It lives apart from the store so that what the store announces (``games.signals``)
can name it without importing the store back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from games.engine import GameState

from .models import Game, Seat


@dataclass
class LoadedGame:
    """A game with its seats (and their players) and its state at ``state.seq``
    (``None`` before the deal, or when the caller asked for no state)."""

    game: Game
    seats: list[Seat]
    state: GameState | None

    def seat_of(self, user: Any) -> Seat | None:
        """``user``'s seat, if they have one."""
        if user is None or not getattr(user, "is_authenticated", False):
            return None
        return next((seat for seat in self.seats if seat.user_id == user.pk), None)

    def seat_at(self, index: int | None) -> Seat | None:
        return next((seat for seat in self.seats if seat.index == index), None)
