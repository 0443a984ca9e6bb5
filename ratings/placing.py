"""Places at the end of a game: winners first, equal totals together, resignations last."""

from __future__ import annotations

from games.engine import GameState


def ranks(state: GameState) -> list[int]:
    """Each seat's place: 1 for the winners, then by total (equal totals share a
    place), those who resigned last."""
    totals = state.player_totals()
    won = set(state.winners)

    def key(seat: int) -> tuple[int, int, int]:
        return (seat not in won, state.resigned[seat], -totals[seat])

    keys = [key(seat) for seat in range(len(totals))]
    return [1 + sum(other < mine for other in keys) for mine in keys]
