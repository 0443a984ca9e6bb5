"""The game-over email of a reviewed game says the review is ready and links to it.

The review is made after the game ends, on the bots queue (minutes of one core for a
long game, docs/bots.md), so the email waits for it, for a bounded time:

- it is written with the game's last move, in that transaction, as every game email is,
  but held: due only ``GAME_REVIEW_EMAIL_WAIT_SECONDS`` later and not handed to a worker;
- when the review is ready (``games.signals.review_ready``) it is marked to carry the
  link and handed to the workers at once;
- when the review fails (``review_failed``) it is handed to them at once without it;
- if neither comes in time (a worker died, the queue is long), the outbox's sweep sends
  it when it falls due, without the link;
- when no worker of the bots queue is alive (no fresh heartbeat in the shared cache,
  ``manhattan_site.heartbeats.serving``) it is not held at all: it goes at once, without
  the link, rather than late for a review nobody is making (``/readyz`` warns of it too).

A held email is released by a conditional UPDATE that a worker's claim excludes, so it is
sent once, with the link or without it, never twice.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import Q
from django.dispatch import receiver
from django.utils import timezone

from games.models import Game, GameReview, Seat
from games.services import review
from games.signals import review_failed, review_ready
from manhattan_site import heartbeats

from . import outbox
from .models import Kind, Notification

logger = logging.getLogger(__name__)


def waits_for_review(game: Game, seats: Sequence[Seat]) -> bool:
    """Whether the finished game's emails wait for its review: the deployment reviews it,
    and a worker of the bots queue is alive to make it."""
    if not review.wanted(game, seats):
        return False
    if not heartbeats.serving("bots"):
        logger.warning("no worker of the bots queue is alive: game %s's game-over email goes now", game.public_id)
        return False
    return True


def hold(rows: list[Notification], now: datetime) -> None:
    """Write game-over emails that wait for the review: due later, handed to no worker now.
    Written once per key, as ``outbox.write`` does."""
    if not rows:
        return
    due = now + timedelta(seconds=settings.GAME_REVIEW_EMAIL_WAIT_SECONDS)
    for row in rows:
        row.next_attempt = due
        row.context = {**row.context, "review_wait": True}
    Notification.objects.bulk_create(rows, ignore_conflicts=True)


def release(game: Game, *, ready: bool) -> list[int]:
    """Hand the game's waiting game-over emails to the workers now, saying the review is
    ready when ``ready``; the ids released (those a worker has claimed are left to it)."""
    now = timezone.now()
    unclaimed = Q(claimed_until__isnull=True) | Q(claimed_until__lt=now)
    waiting = Notification.objects.filter(
        game=game, kind=Kind.GAME_OVER, status=Notification.Status.PENDING, context__review_wait=True
    )
    released = []
    for row in waiting.filter(unclaimed):
        context = {key: value for key, value in row.context.items() if key != "review_wait"}
        if ready:
            context["review"] = True
        updated = (
            Notification.objects.filter(pk=row.pk, status=Notification.Status.PENDING)
            .filter(unclaimed)
            .update(context=context, next_attempt=now)
        )
        if updated:
            released.append(row.pk)
    outbox.publish_on_commit(released)
    return released


@receiver(review_ready, dispatch_uid="notifications.review_ready")
def send_with_the_review(sender: Any, *, game: Game, review: GameReview, **kwargs: Any) -> None:
    release(game, ready=True)


@receiver(review_failed, dispatch_uid="notifications.review_failed")
def send_without_the_review(sender: Any, *, game: Game, review: GameReview, **kwargs: Any) -> None:
    release(game, ready=False)
