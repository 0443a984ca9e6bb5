"""The post-game review: queued when a game finishes, made once, a slice of moves per
task on the bots queue, stored in ``GameReview`` (docs/bots.md, "Post-game review").

The engine (``games.engine.review``) reviews every move from the view its seat had of
the position; this module decides which games are reviewed (``settings.GAME_REVIEW``),
keeps the seed on the server, records progress and stores the result as JSON rows.
A review exists only for a finished game, so it is never seen while the game is played.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from games import store
from games.engine import action_to_json
from games.engine.review import MoveReview, review_game, reviewable_moves
from games.models import Game, GameReview, Seat
from games.signals import review_failed, review_ready

logger = logging.getLogger(__name__)

SLICE_SECONDS = 2.0
"""How long one task reviews (moves are reviewed one at a time until this has passed; at
least one) before it queues the rest behind whatever waits: a bot's turn queued behind a
review waits about this long, not for the whole review (a minute or more)."""


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


def review_slice(game_id: str) -> GameReview | None:
    """Review the next moves of the game's queued or running review, for about
    ``SLICE_SECONDS``, and store them: the review as they left it (``running`` while
    moves are left, then ``done``), or ``None`` if there was nothing to do (done, failed,
    never queued, or another task stored the same slice first).

    The search runs outside any transaction (seconds of CPU must hold no lock, and on
    SQLite no write lock on the whole file); the slice is stored only if the review is
    still where it was read, so a redelivered or duplicated task wastes its work and
    changes nothing.
    """
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
        if review.status == GameReview.Status.QUEUED:
            review.status, review.progressed = GameReview.Status.RUNNING, timezone.now()
            review.moves_total, review.moves_done, review.moves = len(indexes), 0, []
            review.save(update_fields=["status", "moves_total", "moves_done", "moves", "progressed"])
    start = review.moves_done
    rows: list[dict[str, Any]] = []
    reviewed = 0
    began = time.monotonic()
    try:
        for index in indexes[start:]:
            moves = review_game(events, review.seed, iterations=review.iterations or 1, only={index})
            rows.extend(move_row(move) for move in moves)
            reviewed += 1
            if time.monotonic() - began >= SLICE_SECONDS:
                break
    except Exception:
        logger.exception("the review of game %s failed", game_id)
        GameReview.objects.filter(pk=review.pk).update(status=GameReview.Status.FAILED, finished=timezone.now())
        review.refresh_from_db()
        review_failed.send_robust(sender=GameReview, game=review.game, review=review)  # the error stays the one raised
        raise
    with transaction.atomic():
        current = GameReview.objects.select_for_update().filter(pk=review.pk).first()
        if current is None or current.status != GameReview.Status.RUNNING or current.moves_done != start:
            return None  # another task stored this slice first: it goes on, this one stops
        current.moves = [*current.moves, *rows]
        current.moves_done = start + reviewed
        current.progressed = timezone.now()
        if current.moves_done >= current.moves_total:
            current.status, current.finished = GameReview.Status.DONE, current.progressed
        current.save(update_fields=["moves", "moves_done", "progressed", "status", "finished"])
    current.game = review.game
    if current.status == GameReview.Status.DONE:
        review_ready.send(sender=GameReview, game=current.game, review=current)
    return current


def run_review(game_id: str) -> GameReview | None:
    """The whole review at once, slice after slice (operators' commands and tests; the
    task makes one slice and queues the next behind whatever waits): the finished review,
    or ``None`` if there was none to make."""
    review = None
    while (step := review_slice(game_id)) is not None:
        review = step
        if step.status != GameReview.Status.RUNNING:
            break
    return review


def lost_reviews(older_than_seconds: int) -> list[str]:
    """The games whose review has waited for longer than any queue should take: queued, or
    running with no slice stored for that long. Their task was lost (the broker was down
    when the game finished or when a slice queued the next)."""
    since = timezone.now() - timedelta(seconds=older_than_seconds)
    queued = Q(status=GameReview.Status.QUEUED, created__lt=since)
    stalled = Q(status=GameReview.Status.RUNNING, progressed__lt=since)
    waiting = GameReview.objects.filter(queued | stalled)
    return [str(public_id) for public_id in waiting.values_list("game__public_id", flat=True)[:100]]


def review_of(game: Game) -> GameReview | None:
    """The stored review of a finished game, if there is one; never one of a game in play."""
    if game.status != Game.Status.FINISHED:
        return None
    return GameReview.objects.filter(game=game).first()
