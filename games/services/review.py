"""The post-game review: queued when a game finishes, made once by a task on the bots
queue, stored in ``GameReview`` (docs/bots.md, "Post-game review").

The engine (``games.engine.review``) reviews every move from the view its seat had of
the position; this module decides which games are reviewed (``settings.GAME_REVIEW``),
keeps the seed on the server, records progress and stores the result as JSON rows.
A review exists only for a finished game, so it is never seen while the game is played.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from games import store
from games.engine import action_to_json
from games.engine.review import MoveReview, review_game, reviewable_moves
from games.models import Game, GameReview, Seat
from games.signals import review_failed, review_ready

logger = logging.getLogger(__name__)

CHUNK = 4
"""Moves reviewed between two progress updates."""


def wanted(game: Game, seats: Sequence[Seat]) -> bool:
    """Whether the deployment reviews ``game`` (finished): ``GAME_REVIEW`` is "all", or
    "rated" and the game was rated (every seat filled, a person among them)."""
    policy = settings.GAME_REVIEW
    if game.status != Game.Status.FINISHED or policy == "off":
        return False
    if policy == "rated":
        return all(seat.is_filled for seat in seats) and any(seat.user_id is not None for seat in seats)
    return policy == "all"


def queue_review(game: Game, seats: Sequence[Seat]) -> GameReview | None:
    """Make the finished game's review row (queued), once; the caller queues the task."""
    if not wanted(game, seats):
        return None
    review, _ = GameReview.objects.get_or_create(
        game=game,
        defaults={"seed": secrets.token_hex(16), "iterations": settings.GAME_REVIEW_ITERATIONS},
    )
    return review


def move_row(move: MoveReview) -> dict[str, Any]:
    """A reviewed move as stored and answered (actions in the API's JSON form)."""
    return {
        "event_index": move.event_index,
        "seat": move.seat,
        "round": move.round,
        "kind": move.kind,
        "played": action_to_json(move.played),
        "best": action_to_json(move.best),
        "chance_before": round(move.chance_before, 4),
        "chance_after": round(move.chance_after, 4),
        "mark": move.mark,
    }


def run_review(game_id: str) -> GameReview | None:
    """Review the game whose review is queued (or was left running by a dead worker);
    a review that is done or failed is left alone, so it is made once."""
    with transaction.atomic():
        review = (
            GameReview.objects.select_for_update()
            .select_related("game")
            .filter(game__public_id=game_id, status__in=[GameReview.Status.QUEUED, GameReview.Status.RUNNING])
            .first()
        )
        if review is None:
            return None
        events = store.event_payloads(review.game)
        indexes = [index for index, _ in reviewable_moves(events)]
        review.status = GameReview.Status.RUNNING
        review.moves_total, review.moves_done, review.moves = len(indexes), 0, []
        review.save(update_fields=["status", "moves_total", "moves_done", "moves"])
    try:
        rows: list[dict[str, Any]] = []
        for start in range(0, len(indexes), CHUNK):
            only = set(indexes[start : start + CHUNK])
            moves = review_game(events, review.seed, iterations=review.iterations or 1, only=only)
            rows.extend(move_row(move) for move in moves)
            GameReview.objects.filter(pk=review.pk).update(moves_done=len(rows))
    except Exception:
        logger.exception("the review of game %s failed", game_id)
        GameReview.objects.filter(pk=review.pk).update(status=GameReview.Status.FAILED, finished=timezone.now())
        review.refresh_from_db()
        review_failed.send_robust(sender=GameReview, game=review.game, review=review)  # the error stays the one raised
        raise
    GameReview.objects.filter(pk=review.pk).update(
        status=GameReview.Status.DONE, moves=rows, moves_done=len(rows), finished=timezone.now()
    )
    review.refresh_from_db()
    review_ready.send(sender=GameReview, game=review.game, review=review)
    return review


def lost_reviews(older_than_seconds: int) -> list[str]:
    """The games whose review has waited in the queue for longer than any queue should take:
    their task was lost (the broker was down when the game finished)."""
    since = timezone.now() - timedelta(seconds=older_than_seconds)
    waiting = GameReview.objects.filter(status=GameReview.Status.QUEUED, created__lt=since)
    return [str(public_id) for public_id in waiting.values_list("game__public_id", flat=True)[:100]]


def review_of(game: Game) -> GameReview | None:
    """The stored review of a finished game, if there is one; never one of a game in play."""
    if game.status != Game.Status.FINISHED:
        return None
    return GameReview.objects.filter(game=game).first()
