"""Celery tasks for games: thin wrappers that call services with ids, and
the hook that queues bot turns once the move that led to them is committed."""

from __future__ import annotations

import logging
from typing import Any

from celery import Task, shared_task
from django.conf import settings
from django.db import transaction
from django.dispatch import receiver
from django.utils import timezone

from .models import Game
from .services import open_games, play, review
from .signals import Appended, Cause, events_appended

logger = logging.getLogger(__name__)


@shared_task(ignore_result=True, soft_time_limit=90, time_limit=120)  # type: ignore[untyped-decorator]
def play_bot_turns(game_id: str) -> int:
    """Play the bot moves that are due in the game (until a human's turn), for
    at most ``BOT_TASK_SECONDS``; what is left is queued again, so one game's
    bots never keep the bots' worker from the other games for long."""
    moves = play.play_bot_turns(game_id=game_id, seconds=settings.BOT_TASK_SECONDS)
    if play.bot_to_act(game_id) is not None:
        _enqueue(game_id)
    return moves


@shared_task(ignore_result=True)  # type: ignore[untyped-decorator]
def sweep_bot_turns() -> int:
    """Periodic safety net: queue the bot turns that no task picked up (the
    broker was down when the move that led to them was stored, or a worker
    died); the number of games queued."""
    waiting = [str(public_id) for public_id in play.games_waiting_for_bots().values_list("public_id", flat=True)[:500]]
    for public_id in waiting:
        _enqueue(public_id)  # each game's bots in a task of their own, bounded in time
    return len(waiting)


@receiver(events_appended, dispatch_uid="games.tasks.bots_move_next")
def bots_move_next(sender: Any, *, appended: Appended, **kwargs: Any) -> None:
    """After an append that leaves a bot (or the bot of an absent player) to
    move, its turns are played by a task once the events are committed.
    ``play_bot_turns`` goes on by its own loop, so its own moves queue nothing."""
    game = appended.loaded.game
    seat = appended.loaded.seat_at(game.to_act_seat)
    automatic = seat is not None and (seat.is_bot or seat.absent_since is not None)
    if appended.cause in (Cause.BOT, Cause.ABSENT) or game.status != Game.Status.ACTIVE or not automatic:
        return
    public_id = str(game.public_id)
    transaction.on_commit(lambda: _enqueue(public_id))


def queue_bot_turns(public_id: str) -> None:
    """Queue a task that plays the game's due bot turns (now, not on commit)."""
    _enqueue(public_id)


def _enqueue(public_id: str) -> None:
    try:
        play_bot_turns.delay(public_id)
    except Exception:  # the broker is down: the move is stored; the bot sweep picks the game up
        logger.warning("could not enqueue bot turns for game %s", public_id, exc_info=True)


@shared_task(ignore_result=True)  # type: ignore[untyped-decorator]
def fill_open_games_with_bots() -> int:
    """Periodic: open games whose creator asked for bots after some hours get
    them in their open seats and start; the number of games started. Each game
    is claimed under its row lock (skipping locked rows), so two overlapping
    sweeps never fill one game twice."""
    now = timezone.now()
    due = list(open_games.games_due_for_bots(now).values_list("pk", flat=True)[:200])
    return sum(open_games.fill_with_bots(game_id=pk, now=now) for pk in due)


# A review searches every move of the game twice: a minute or more of one core for a
# whole game (docs/bots.md), on the bots queue, never the emails'. One task reviews one
# slice and queues the rest at the back of its queue, so the bots' turns queued meanwhile
# go first: they wait seconds behind a review, not minutes.
@shared_task(bind=True, ignore_result=True, soft_time_limit=90, time_limit=120)  # type: ignore[untyped-decorator]
def review_finished_game(self: Task, game_id: str) -> int:
    """Review the next slice of the finished game's queued review, and queue the rest;
    the number of moves reviewed so far."""
    step = review.review_slice(game_id)
    if step is None:
        return 0
    if step.status == step.Status.RUNNING:
        _enqueue_review(game_id, queue=(self.request.delivery_info or {}).get("routing_key"))
    return step.moves_done


@receiver(events_appended, dispatch_uid="games.tasks.review_finished_games")
def review_when_finished(sender: Any, *, appended: Appended, **kwargs: Any) -> None:
    """A game that finished is reviewed (if the deployment reviews it) once committed."""
    if not any(event["type"] == "game_finished" for event in appended.events):
        return
    loaded = appended.loaded
    if review.queue_review(loaded.game, loaded.seats) is None:
        return
    public_id = str(loaded.game.public_id)
    transaction.on_commit(lambda: _enqueue_review(public_id))


def _enqueue_review(public_id: str, queue: str | None = None) -> None:
    """Queue the review's next slice: on ``queue`` (where the last slice came from) or by
    the routes (the bots queue)."""
    try:
        review_finished_game.apply_async((public_id,), **({"queue": queue} if queue else {}))
    except Exception:  # the broker is down: the review stays queued (see docs/bots.md)
        logger.warning("could not enqueue the review of game %s", public_id, exc_info=True)


@shared_task(ignore_result=True)  # type: ignore[untyped-decorator]
def sweep_reviews() -> int:
    """Periodic safety net: queue again the reviews whose task was lost; how many."""
    lost = review.lost_reviews(settings.GAME_REVIEW_LOST_SECONDS)
    for public_id in lost:
        _enqueue_review(public_id)
    return len(lost)
