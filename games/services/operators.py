"""What operators do to a game: take back the last placement, abandon it."""

from __future__ import annotations

from django.db import transaction

from accounts.models import User
from games import store
from games.engine import GameState, UndoLastPlacement
from games.errors import GameError
from games.models import Game
from games.signals import Cause

from .play import execute_checked


def undo_last_placement(*, game: Game, operator: User, reason: str) -> GameState:
    """An operator takes back the last placement: an appended event with a reason."""
    if not reason.strip():
        raise GameError("reason_required", "Say why the placement is undone.")
    with transaction.atomic():
        loaded = store.load(game.public_id, lock=True)
        state, events = execute_checked(loaded, None, UndoLastPlacement(reason=reason.strip()))
        store.append(loaded, state, events, seat=None, actor=operator, cause=Cause.OPERATOR)
        return state


def abandon_game(*, game: Game, operator: User) -> None:
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game.pk)
        if game.status in (Game.Status.FINISHED, Game.Status.ABANDONED):
            raise GameError(f"game_{game.status}", f"This game is already {game.status}.")
        game.status = Game.Status.ABANDONED
        game.to_act_seat = None
        game.turn_since = None
        game.save(update_fields=["status", "to_act_seat", "turn_since", "updated"])
