"""The result of every seat of a finished game, kept for profiles."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from games.engine import GameState
from games.models import Game, Seat

from .models import RatingChange, SeatResult
from .placing import ranks


def record_results(
    game: Game, seats: Sequence[Seat], state: GameState, when: datetime, changes: Sequence[RatingChange]
) -> list[SeatResult]:
    """A ``SeatResult`` per filled seat of ``game``, finished in ``state``;
    ``changes`` are the rating changes the game made (which seats were rated)."""
    if game.status != Game.Status.FINISHED or not state.is_finished:
        return []
    totals = state.player_totals()
    placed = ranks(state)
    rated_users = {c.rating.user_id for c in changes if c.rating.user_id is not None}
    rated_bots = {c.rating.bot for c in changes if c.rating.bot}
    rows = [
        SeatResult(
            game=game,
            seat=seat.index,
            user_id=seat.user_id,
            bot=seat.bot if seat.user_id is None else "",
            players=len(seats),
            score=totals[seat.index],
            rank=placed[seat.index],
            won=seat.index in state.winners,
            resigned=bool(state.resigned[seat.index]),
            rated=seat.user_id in rated_users if seat.user_id is not None else seat.bot in rated_bots,
            finished=when,
        )
        for seat in seats
        if seat.is_filled
    ]
    return SeatResult.objects.bulk_create(rows)
