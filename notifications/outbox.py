"""The outbox: emails written in the caller's transaction, delivered after it.

Writing happens in the transaction of what caused the email (the move and
its emails are stored together or not at all); delivery happens after
commit, by a task, and again by a periodic sweep for anything still pending
— so an outage of the broker or of the mail server delays emails but loses
none. Each row's unique ``key`` means a redelivered task or an overlapping
sweep never writes, or sends, one twice.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from celery import current_app
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import User
from games.models import Game

from .emails import build_message
from .mailer import send
from .models import DIGESTIBLE, Kind, Notification, Preference

logger = logging.getLogger(__name__)
MAX_BACKOFF = timedelta(hours=1)
GIVE_UP_AFTER = timedelta(days=3)
DELIVERY_BATCH = 20  # emails per delivery task
DELIVER_TASK = "notifications.tasks.deliver_notifications"


def preference_for(user: User) -> Preference:
    preference, _ = Preference.objects.get_or_create(user=user)
    return preference


# --- writing ------------------------------------------------------------------------


def enqueue(
    *,
    kind: str,
    key: str,
    email: str,
    user: User | None = None,
    game: Game | None = None,
    seat: int | None = None,
    context: dict[str, Any] | None = None,
) -> Notification | None:
    """Write one email into the outbox (once per ``key``) and deliver it after commit."""
    try:
        with transaction.atomic():
            notification = Notification.objects.create(
                kind=kind, key=key, email=email, user=user, game=game, seat=seat, context=context or {}
            )
    except IntegrityError:
        return None  # already in the outbox: the same email is never written twice
    publish_on_commit([notification.pk])
    return notification


def write(notifications: list[Notification]) -> None:
    """Write several emails in one statement and deliver them after commit.

    One ``INSERT … ON CONFLICT (key)`` writes them all. The conflict clause
    updates a column to its own value rather than doing nothing, because only
    then are the ids of rows already there returned too; such a row (a key
    written before) is handed to delivery again, which sends only what is still
    pending — so nothing is written or sent twice either way.
    """
    if not notifications:
        return
    written = Notification.objects.bulk_create(
        notifications, update_conflicts=True, unique_fields=["key"], update_fields=["kind"]
    )
    publish_on_commit([row.pk for row in written if row.pk is not None])


def publish_on_commit(pks: list[int]) -> None:
    """Hand the emails to the workers once the transaction that wrote them commits."""
    if pks:
        transaction.on_commit(lambda: publish(pks))


def publish(pks: list[int]) -> None:
    """One delivery task per ``DELIVERY_BATCH`` emails (by name: the tasks
    module calls this one, not the other way round)."""
    for start in range(0, len(pks), DELIVERY_BATCH):
        try:
            current_app.send_task(DELIVER_TASK, args=[pks[start : start + DELIVERY_BATCH]])
        except Exception:  # the broker is down: the outbox sweep will deliver them
            logger.warning("could not enqueue delivery of %s notifications", len(pks) - start, exc_info=True)
            return


# --- delivery -----------------------------------------------------------------------------


def _loaded_preference(user: User | None) -> Preference | None:
    """``user``'s preferences as read with the notification (``select_related``),
    or made now if they have none yet."""
    if user is None:
        return None
    try:
        return user.preference
    except Preference.DoesNotExist:
        return preference_for(user)


def _suppressed_by_preferences(notification: Notification, preference: Preference | None) -> str | None:
    """The status a notification takes instead of being sent, if any."""
    if preference is None or notification.kind in (Kind.LOGIN, Kind.MOVE_REFUSED):
        return None
    if notification.kind in preference.unsubscribed:
        return Notification.Status.SKIPPED
    if preference.frequency == Preference.Frequency.NONE and notification.kind != Kind.INVITATION:
        return Notification.Status.SKIPPED
    if preference.frequency == Preference.Frequency.DAILY_DIGEST and notification.kind in DIGESTIBLE:
        return Notification.Status.DIGESTED
    return None


def deliver(notification_id: int) -> bool:
    """Send one pending notification; True if this call sent it.

    The row stays locked while the mail is handed to the server, so a second
    worker (a redelivered task, the sweep) skips it, and afterwards sees it
    sent. Failures back off exponentially and give up after GIVE_UP_AFTER (by age).
    """
    with transaction.atomic():
        notification = (
            Notification.objects.select_for_update(skip_locked=True, of=("self",))
            .select_related("user__preference", "game")
            .filter(pk=notification_id, status=Notification.Status.PENDING)
            .first()
        )
        if notification is None:
            return False
        preference = _loaded_preference(notification.user)
        suppressed = _suppressed_by_preferences(notification, preference)
        if suppressed is not None:
            notification.status = suppressed
            notification.save(update_fields=["status"])
            return False
        now = timezone.now()
        try:
            send(build_message(notification))
        except Exception as error:
            notification.attempts += 1
            notification.last_error = f"{type(error).__name__}: {error}"[:2000]
            backoff = timedelta(seconds=30 * 2 ** min(notification.attempts, 12))
            notification.next_attempt = now + min(backoff, MAX_BACKOFF)
            # Give up by age, not by attempts: a mail server down for a few hours
            # must not lose the emails written meanwhile.
            if now - notification.created > GIVE_UP_AFTER:
                notification.status = Notification.Status.FAILED
            notification.save(update_fields=["attempts", "last_error", "next_attempt", "status"])
            logger.warning("delivery of notification %s failed: %s", notification.pk, error)
            return False
        notification.status = Notification.Status.SENT
        notification.sent = now
        notification.attempts += 1
        notification.save(update_fields=["status", "sent", "attempts"])
        return True


def pending_due(now: datetime | None = None, limit: int = 500) -> list[int]:
    now = now or timezone.now()
    return list(
        Notification.objects.filter(status=Notification.Status.PENDING, next_attempt__lte=now)
        .order_by("next_attempt")
        .values_list("pk", flat=True)[:limit]
    )


def sweep_outbox(now: datetime | None = None) -> int:
    """Deliver everything still pending (the safety net behind on-commit tasks)."""
    return sum(1 for pk in pending_due(now) if deliver(pk))
