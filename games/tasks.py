"""Celery tasks for games: thin wrappers that call services with ids, and
the hook that queues bot turns once the move that led to them is committed."""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task
from django.db import transaction
from django.dispatch import receiver

from .models import Game
from .services import play
from .signals import events_appended
from .store import LoadedGame

logger = logging.getLogger(__name__)


@shared_task(ignore_result=True)  # type: ignore[untyped-decorator]
def play_bot_turns(game_id: str) -> int:
    """Play every bot move that is due in the game (until a human's turn)."""
    return play.play_bot_turns(game_id=game_id)


@shared_task(ignore_result=True)  # type: ignore[untyped-decorator]
def sweep_bot_turns() -> int:
    """Periodic safety net: play bot turns that no task picked up (the broker
    was down when the move that led to them was stored, or a worker died)."""
    moves = 0
    for public_id in play.games_waiting_for_bots().values_list("public_id", flat=True)[:500]:
        moves += play.play_bot_turns(game_id=public_id)
    return moves


@receiver(events_appended, dispatch_uid="games.tasks.bots_move_next")
def bots_move_next(sender: Any, *, loaded: LoadedGame, cause: str, **kwargs: Any) -> None:
    """After an append that leaves a bot (or the bot of an absent player) to
    move, its turns are played by a task once the events are committed. ``play_bot_turns`` goes on by its
    own loop, so its own moves queue nothing."""
    game = loaded.game
    seat = loaded.seat_at(game.to_act_seat)
    automatic = seat is not None and (seat.is_bot or seat.absent_since is not None)
    if cause in ("bot", "absent") or game.status != Game.Status.ACTIVE or not automatic:
        return
    public_id = str(game.public_id)
    transaction.on_commit(lambda: _enqueue(public_id))


def _enqueue(public_id: str) -> None:
    try:
        play_bot_turns.delay(public_id)
    except Exception:  # the broker is down: the move is stored; the bot sweep picks the game up
        logger.warning("could not enqueue bot turns for game %s", public_id, exc_info=True)
