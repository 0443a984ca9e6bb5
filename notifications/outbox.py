"""The outbox: emails written in the caller's transaction, delivered after it.

Writing happens in the transaction of what caused the email (the move and
its emails are stored together or not at all); delivery happens after
commit, by a task, and again by a periodic sweep for anything still pending
— so an outage of the broker or of the mail server delays emails but loses
none. Each row's unique ``key`` means a redelivered task or an overlapping
sweep never writes, or sends, one twice.

Claiming, sending outside any transaction, recording, backing off and the
sweep are the outbox machine's (``manhattan_site.outbox``, shared with the
webhooks); this module adds what is the emails' own: building and sending
one, and the rules for not sending it (preferences, closed accounts, bots,
players at the table, bouncing addresses).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction

from accounts.models import User
from games.models import Game
from games.services import presence
from manhattan_site.metrics import EMAILS
from manhattan_site.outbox import Attempt, Outbox, RetryPolicy, Skip

from . import bounces
from .emails import build_message
from .mailer import send
from .models import DIGESTIBLE, Kind, Notification, Preference

MAX_BACKOFF = timedelta(hours=1)
GIVE_UP_AFTER = timedelta(days=3)
# A minute, doubling, at most an hour apart; given up by age, not by attempts:
# a mail server down for a few hours must not lose the emails written meanwhile.
POLICY = RetryPolicy(first_delay=timedelta(minutes=1), max_delay=MAX_BACKOFF, max_age=GIVE_UP_AFTER)
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
    EMAIL_OUTBOX.publish_on_commit(pks)


def publish(pks: list[int]) -> None:
    """One delivery task per ``DELIVERY_BATCH`` emails."""
    EMAIL_OUTBOX.publish(pks)


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


class EmailOutbox(Outbox[Notification]):
    """Emails: built from their row and sent to the mail server; suppressed for
    bots and closed accounts, by the player's preferences, at the table, and to
    a bouncing address. A permanent refusal of the address (5xx) fails the
    email at once and marks the address bouncing."""

    model = Notification
    name = "email"
    task = DELIVER_TASK
    batch = DELIVERY_BATCH
    sent = Notification.Status.SENT
    sent_at = "sent"

    def policy(self) -> RetryPolicy:
        return POLICY

    def lease(self) -> timedelta:
        return LEASE

    def longest_send(self) -> float:
        return float(getattr(settings, "EMAIL_TIMEOUT", None) or 10)

    def load(self, pk: Any) -> Notification | None:
        return Notification.objects.select_related("user__preference", "game").filter(pk=pk).first()

    def suppressed(self, row: Notification, now: datetime) -> Skip | None:
        status = _suppressed_by_preferences(row, _loaded_preference(row.user))
        if _at_the_table(row, now):  # even over a digest: they saw the turn come
            status = Notification.Status.SKIPPED
        if status is None and row.kind != Kind.LOGIN and bounces.is_suppressed(row):
            status = Notification.Status.SKIPPED
        return None if status is None else Skip(status)

    def send(self, row: Notification) -> Attempt:
        send(build_message(row))  # the module's ``send``, looked up now (tests stand in for the server)
        return Attempt()

    def is_permanent(self, error: Exception) -> bool:
        return bounces.is_permanent(error)

    def on_sent(self, row: Notification, attempt: Attempt) -> None:
        EMAILS.labels("sent").inc()

    def on_failed(self, row: Notification, attempt: Attempt, *, final: bool) -> None:
        if attempt.permanent:
            # The address does not exist (or refuses us for good): no more mail to it.
            bounces.mark_bouncing(row.email, attempt.error)
            EMAILS.labels("bounced").inc()
        else:
            EMAILS.labels("failed").inc()  # each failed attempt, whether retried or given up


EMAIL_OUTBOX = EmailOutbox()


def deliver(notification_id: int, now: datetime | None = None) -> bool:
    """Send one pending, due email; True if this call sent it (``manhattan_site.outbox``).

    A worker that dies between the server's acceptance and the record leaves
    its claim to expire; the sweep then sends the email again with the same
    Message-ID — the one at-least-once window, documented in docs/play-by-email.md.
    """
    return EMAIL_OUTBOX.deliver(notification_id, now)


def pending_due(now: datetime | None = None, limit: int = 500) -> list[int]:
    return EMAIL_OUTBOX.pending_due(now, limit)


def sweep_outbox(now: datetime | None = None) -> int:
    """Send everything pending and due (the safety net behind on-commit tasks)."""
    return EMAIL_OUTBOX.sweep(now)
