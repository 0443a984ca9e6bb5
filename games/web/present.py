"""The "my games" list: a row per game, the games waiting for me first."""

from __future__ import annotations

from dataclasses import dataclass

from accounts.models import User
from games.models import Game
from games.presentation.vocabulary import PHASE_LABELS, STATUS_LABELS, rounds_of, seat_name


@dataclass
class GameRow:
    game: Game
    status: str
    round: int
    rounds: int | None
    phase: str
    to_act: str
    players: list[str]
    my_seat: int | None
    my_turn: bool
    invited: bool
    can_start: bool
    winners: list[str]

    @property
    def waiting_for_me(self) -> bool:
        return self.my_turn or self.invited or self.can_start


_STATUS_ORDER: dict[str, int] = {
    Game.Status.ACTIVE: 0,
    Game.Status.LOBBY: 1,
    Game.Status.FINISHED: 2,
    Game.Status.ABANDONED: 3,
}


def game_row(game: Game, user: User, winners: list[int] | None = None) -> GameRow:
    """``winners``: the winning seats of a finished game (``store.winners_of``)."""
    seats = sorted(game.seats.all(), key=lambda s: s.index)  # prefetched
    mine = next((s for s in seats if s.user_id == user.pk), None)
    lobby = game.status == Game.Status.LOBBY
    invited = (
        lobby
        and mine is None
        and any(s.user_id is None and not s.bot and s.invited_email.lower() == user.email.lower() for s in seats)
    )
    to_act = ""
    if game.status == Game.Status.ACTIVE and game.to_act_seat is not None:
        seat = next((s for s in seats if s.index == game.to_act_seat), None)
        to_act = seat_name(seat) if seat is not None else ""
    return GameRow(
        game=game,
        status=str(STATUS_LABELS.get(game.status, game.status)),
        round=game.round,
        rounds=rounds_of(game),
        phase=str(PHASE_LABELS.get(game.phase, game.phase)) if game.phase else "",
        to_act=to_act,
        players=[seat_name(s) for s in seats],
        my_seat=mine.index if mine is not None else None,
        my_turn=game.status == Game.Status.ACTIVE and mine is not None and game.to_act_seat == mine.index,
        invited=invited,
        can_start=lobby and game.creator_id == user.pk and all(s.is_filled for s in seats),
        winners=[seat_name(s) for s in seats if s.index in (winners or [])],
    )


def sort_rows(rows: list[GameRow]) -> tuple[list[GameRow], list[GameRow]]:
    """Games waiting for me first (most recently updated first), then the others by status."""
    waiting = [r for r in rows if r.waiting_for_me]
    others = [r for r in rows if not r.waiting_for_me]
    others.sort(key=lambda r: _STATUS_ORDER.get(r.game.status, 9))  # stable: keeps "-updated" within a status
    return waiting, others
