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
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import IntegrityError, InterfaceError, OperationalError, connection, transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone

from accounts.models import User
from games.models import Game
from games.services import presence
from manhattan_site.metrics import EMAILS

from . import bounces
from .emails import build_message
from .mailer import send
from .models import DIGESTIBLE, Kind, Notification, Preference

logger = logging.getLogger(__name__)
MAX_BACKOFF = timedelta(hours=1)
GIVE_UP_AFTER = timedelta(days=3)
# How long a worker holds an email it is sending (OUTBOX_LEASE_SECONDS): longer
# than a send can take (the task's hard time limit ends a worker stuck longer),
# so a claim does not expire mid-send; a crashed worker's claim expires after it.
LEASE = timedelta(seconds=settings.OUTBOX_LEASE_SECONDS)
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
    if notification.user is not None and (notification.user.is_bot or notification.user.closed is not None):
        # A bot account is never sent email, not even a sign-in link; nor is a closed account.
        return Notification.Status.SKIPPED
    if preference is None or notification.kind in (Kind.LOGIN, Kind.MOVE_REFUSED):
        return None
    if notification.kind == Kind.REMINDER and notification.context.get("warning"):
        # The warning that a bot is about to move is about the player's seat, not a reminder:
        # it goes out whatever the preferences, on its own (never folded into a digest).
        return None
    if notification.kind in preference.unsubscribed:
        return Notification.Status.SKIPPED
    if notification.kind == Kind.REMINDER and Kind.YOUR_TURN in preference.unsubscribed:
        return Notification.Status.SKIPPED  # no turn emails means no reminders of turns either
    if preference.frequency == Preference.Frequency.NONE and notification.kind != Kind.INVITATION:
        return Notification.Status.SKIPPED
    if preference.frequency == Preference.Frequency.DAILY_DIGEST and notification.kind in DIGESTIBLE:
        return Notification.Status.DIGESTED
    return None


def _at_the_table(notification: Notification, now: datetime) -> bool:
    """A turn email or reminder to a player who has the game's page open: they
    see their turn come, so it is not sent. Asked when it is sent (on commit of
    the move), so that the move itself reads nothing more."""
    if notification.kind not in (Kind.YOUR_TURN, Kind.REMINDER) or notification.game_id is None:
        return False
    return notification.user_id is not None and presence.is_watching(notification.game_id, notification.user_id, now)


def deliver(notification_id: int) -> bool:
    """Send one pending notification; True if this call sent it.

    Three short steps, and the mail server is spoken to outside any database
    transaction (a hung server must never hold a lock that a move waits for):

    1. claim the row with a conditional UPDATE (a lease until ``LEASE``), which
       commits at once: a second worker (a redelivered task, the sweep) finds
       it claimed and skips it;
    2. build and send the email;
    3. record the outcome with an UPDATE conditional on the claim.

    A row is marked sent only by the worker that holds its claim, and the
    lease outlasts any send (the task's hard time limit is shorter), so an
    email is never sent again after a success. A worker that dies between the
    server's acceptance and step 3 leaves the claim to expire; the sweep then
    sends the email again with the same Message-ID — the one at-least-once
    window, documented in docs/play-by-email.md. Failures back off
    exponentially (at most ``MAX_BACKOFF`` apart) and give up after
    ``GIVE_UP_AFTER`` (by age); a permanent refusal of the address (5xx) fails
    at once and marks the address as bouncing.
    """
    now = timezone.now()
    lease = now + LEASE
    claimed = (
        Notification.objects.filter(pk=notification_id, status=Notification.Status.PENDING)
        .filter(Q(claimed_until__isnull=True) | Q(claimed_until__lt=now))
        .update(claimed_until=lease)
    )
    if not claimed:
        return False
    mine = Notification.objects.filter(pk=notification_id, claimed_until=lease)
    notification = Notification.objects.select_related("user__preference", "game").get(pk=notification_id)
    suppressed = _suppressed_by_preferences(notification, _loaded_preference(notification.user))
    if _at_the_table(notification, now):
        suppressed = Notification.Status.SKIPPED
    if suppressed is None and notification.kind != Kind.LOGIN and bounces.is_suppressed(notification):
        suppressed = Notification.Status.SKIPPED
    if suppressed is not None:
        mine.update(status=suppressed, claimed_until=None)
        return False
    try:
        send(build_message(notification))
    except Exception as error:
        _record_failure(notification, mine, error)
        if isinstance(error, SoftTimeLimitExceeded):
            raise  # the task is out of time: the rest of its batch is left to the sweep
        return False
    _mark_sent(mine, lease)
    EMAILS.labels("sent").inc()
    return True


def _mark_sent(mine: QuerySet[Notification], lease: datetime) -> None:
    """Record that the server took the email. A connection dropped between the
    server's acceptance and this UPDATE would leave the row pending, and the
    sweep would send it again once the lease ran out; so the UPDATE is tried
    once more on a fresh connection while the lease is still this worker's
    (the UPDATE is conditional on it, so it can never mark another's claim)."""

    def update() -> None:
        mine.update(
            status=Notification.Status.SENT, sent=timezone.now(), attempts=F("attempts") + 1, claimed_until=None
        )

    try:
        update()
    except (OperationalError, InterfaceError):
        if timezone.now() >= lease or connection.in_atomic_block:
            raise  # the claim is no longer surely ours (or a caller's transaction is lost): the sweep decides
        logger.warning("marking a sent email failed on a dropped connection; trying once more", exc_info=True)
        connection.close()  # the next query opens a fresh connection
        update()


def _record_failure(notification: Notification, mine: QuerySet[Notification], error: Exception) -> None:
    now = timezone.now()
    attempts = notification.attempts + 1
    last_error = f"{type(error).__name__}: {error}"[:2000]
    if bounces.is_permanent(error):
        # The address does not exist (or refuses us for good): retrying cannot help.
        mine.update(status=Notification.Status.FAILED, attempts=attempts, last_error=last_error, claimed_until=None)
        bounces.mark_bouncing(notification.email, last_error)
        EMAILS.labels("bounced").inc()
        logger.warning("notification %s bounced: %s", notification.pk, error)
        return
    backoff = timedelta(seconds=30 * 2 ** min(attempts, 12))
    # Give up by age, not by attempts: a mail server down for a few hours
    # must not lose the emails written meanwhile.
    status = Notification.Status.FAILED if now - notification.created > GIVE_UP_AFTER else Notification.Status.PENDING
    mine.update(
        status=status,
        attempts=attempts,
        last_error=last_error,
        next_attempt=now + min(backoff, MAX_BACKOFF),
        claimed_until=None,
    )
    EMAILS.labels("failed").inc()  # each failed attempt, whether retried or given up
    logger.warning("delivery of notification %s failed: %s", notification.pk, error)


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
