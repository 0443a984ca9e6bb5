"""The outbox of emails, and each user's email preferences.

A ``Notification`` row is written in the same transaction as the event that
causes it, so a move and its emails are stored together or not at all. Its
``key`` is unique (game, seat, event seq, kind), so a redelivered task or an
overlapping sweep can never create, or send, the same email twice.

What else it owns, and why each is safe:
- ``Preference`` (one per user): what a player gets and when; a kind they switched
  off is written and then skipped, so the record of what happened stays whole.
- ``TurnClock`` (one per game, keyed by the game): when the player to act is reminded
  and when a bot moves for them; moved on in the transaction that begins a turn, and
  claimed by the sweeps with the game row locked, so two sweeps never remind twice.
- ``Reply`` (unique by the SHA-256 of the whole Message-ID): a redelivered reply is
  recognised and never played twice; ``InboundRefusal`` records what was not played.
- ``Suppression`` (unique per address and reason): a bouncing address or one that
  asked for no invitations gets no more of that mail.
- ``DataExport``: a person's data, only through the signed link emailed to them, and
  deleted by the sweep when the link expires.
Addresses and names here are personal data: closing an account removes them
(``forget_the_person`` in ``notifications.receivers``).
"""

from __future__ import annotations

import hashlib
from datetime import timedelta
from typing import Any, ClassVar

from django.conf import settings
from django.core.validators import MaxValueValidator
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class Kind(models.TextChoices):
    LOGIN = "login", _("Sign-in link")
    INVITATION = "invitation", _("Invitation")
    GAME_STARTED = "game_started", _("Game started")
    YOUR_TURN = "your_turn", _("Your turn")
    ROUND_SCORED = "round_scored", _("Round scored")
    GAME_OVER = "game_over", _("Game over")
    REMINDER = "reminder", _("Reminder")
    TIMEOUT = "timeout", _("Timed out")
    MOVE_REFUSED = "move_refused", _("Move refused")
    DIGEST = "digest", _("Daily digest")
    SEAT_ANSWERED = "seat_answered", _("A player joined or declined")
    DATA_EXPORT = "data_export", _("Your data, ready to download")


# Kinds a player can switch off; sign-in links and replies to their own mail cannot be.
UNSUBSCRIBABLE = (
    Kind.INVITATION,
    Kind.GAME_STARTED,
    Kind.YOUR_TURN,
    Kind.ROUND_SCORED,
    Kind.GAME_OVER,
    Kind.REMINDER,
    Kind.TIMEOUT,
    Kind.DIGEST,
    Kind.SEAT_ANSWERED,
)
# With the daily digest, these are gathered into one email a day instead
# (reminders too, except the warning that a bot is about to move).
DIGESTIBLE = (Kind.YOUR_TURN, Kind.ROUND_SCORED, Kind.GAME_STARTED, Kind.REMINDER)


class Notification(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", _("Pending")
        SENT = "sent", _("Sent")
        SKIPPED = "skipped", _("Skipped (preferences)")
        DIGESTED = "digested", _("Gathered into a digest")
        FAILED = "failed", _("Failed for good")

    key = models.CharField(max_length=200, unique=True)
    kind = models.CharField(max_length=20, choices=Kind.choices)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True, blank=True)
    email = models.EmailField()
    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, null=True, blank=True, related_name="+")
    seat = models.SmallIntegerField(null=True, blank=True)
    context = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    next_attempt = models.DateTimeField(default=timezone.now)
    last_error = models.TextField(blank=True)
    created = models.DateTimeField(default=timezone.now)
    sent = models.DateTimeField(null=True, blank=True)
    # A worker that is sending this email holds it until then (outbox.deliver):
    # claimed and committed before the mail server is spoken to.
    claimed_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering: ClassVar[list[str]] = ["-created"]
        indexes: ClassVar[list[models.Index]] = [
            models.Index(fields=["status", "next_attempt"], name="notification_due"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} to {self.email} ({self.status})"

    @staticmethod
    def key_for(
        kind: str,
        *,
        game_id: int | None = None,
        seat: int | None = None,
        seq: int | None = None,
        subject: object = "",
        detail: object = "",
    ) -> str:
        """The outbox key of an email: the one place keys are made.

        A game email is one per (game, seat, event, kind), and ``detail``
        tells apart several of a kind at one event (the reminder's level, the
        refused reply); any other email is one per (kind, ``subject``,
        ``detail``), e.g. a sign-in link per address and moment.
        """
        key = f"{game_id}:{seat}:{seq}:{kind}" if game_id is not None else f"{kind}:{subject}"
        if detail != "":
            key = f"{key}:{detail}"
        return key[:200]

    @property
    def message_id(self) -> str:
        """This email's Message-ID: the same on every retry (a duplicate delivery
        after a crash is recognisable), different for every email of every
        installation (``mail_ids``), on the site's domain."""
        from .mail_ids import message_id

        return message_id(self.key, self.created)


class Preference(models.Model):
    class Frequency(models.TextChoices):
        EVERY_TURN = "every_turn", _("An email for every turn")
        DAILY_DIGEST = "daily_digest", _("One digest a day")
        NONE = "none", _("No game emails")

    MAX_VACATION = timedelta(days=30)

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="preference")
    frequency = models.CharField(max_length=12, choices=Frequency.choices, default=Frequency.EVERY_TURN)
    unsubscribed = models.JSONField(default=list, blank=True, help_text="Kinds of email switched off.")
    vacation_until = models.DateTimeField(null=True, blank=True)
    last_digest = models.DateTimeField(null=True, blank=True)
    digest_hour = models.PositiveSmallIntegerField(
        default=8,
        validators=[MaxValueValidator(23)],
        help_text="The hour of the day (in the player's time zone) the digest goes out.",
    )

    def __str__(self) -> str:
        return f"preferences of {self.user_id}"


class TurnClock(models.Model):
    """When the player whose turn it is will be reminded, and when a bot
    moves for them: one row per game, moved on whenever a turn begins
    (``notifications.reminders.start_turn``) and by the reminder sweep.
    Empty (``seat`` None) while no person is to act."""

    game = models.OneToOneField("games.Game", on_delete=models.CASCADE, primary_key=True, related_name="+")
    seat = models.SmallIntegerField(null=True, blank=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    version = models.PositiveIntegerField(default=0, help_text="The game's version when the turn began.")
    turn_since = models.DateTimeField(null=True, blank=True)
    next_reminder_at = models.DateTimeField(null=True, blank=True)
    reminders_sent = models.PositiveSmallIntegerField(default=0)
    timeout_at = models.DateTimeField(null=True, blank=True)
    # Whether the player has been told when the bot will move (a timeout always comes after a warning).
    warned = models.BooleanField(default=False)

    class Meta:
        indexes: ClassVar[list[models.Index]] = [
            # The sweeps read only the clocks that are due: partial indexes keep
            # them to those rows however many games are active.
            models.Index(
                fields=["next_reminder_at"],
                name="clock_reminder_due",
                condition=models.Q(next_reminder_at__isnull=False),
            ),
            models.Index(fields=["timeout_at"], name="clock_timeout_due", condition=models.Q(timeout_at__isnull=False)),
        ]

    def __str__(self) -> str:
        return f"turn clock of {self.game_id}"


class Reply(models.Model):
    """An email reply that was read: a redelivery of the same message (by
    the hash of its whole Message-ID) is recognised and not played twice."""

    message_id = models.CharField(max_length=200, help_text="The Message-ID, cut to 200 characters (to read).")
    message_hash = models.CharField(
        max_length=64, unique=True, help_text="SHA-256 of the whole Message-ID: two ids alike in 200 characters differ."
    )
    notification = models.ForeignKey(Notification, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    received = models.DateTimeField(default=timezone.now)
    outcome = models.CharField(max_length=200, blank=True)

    def __str__(self) -> str:
        return f"reply {self.message_id}"


class Suppression(models.Model):
    """An address that gets no more mail of some kind: it bounced (a permanent
    SMTP refusal; cleared when its player confirms it again by signing in with
    a fresh link), or its owner asked for no more invitations."""

    class Reason(models.TextChoices):
        BOUNCING = "bouncing", _("Bouncing")
        NO_INVITATIONS = "no_invitations", _("No more invitations")

    email = models.EmailField()
    reason = models.CharField(max_length=20, choices=Reason.choices)
    created = models.DateTimeField(default=timezone.now)
    detail = models.TextField(blank=True, help_text="The mail server's answer, for a bounce.")

    class Meta:
        constraints: ClassVar[list[Any]] = [
            models.UniqueConstraint(fields=["email", "reason"], name="suppression_unique_reason")
        ]

    def __str__(self) -> str:
        return f"{self.email} ({self.reason})"


class InboundRefusal(models.Model):
    """Inbound mail that was dropped or refused, and why: for operators (the
    admin counts them by reason)."""

    class Reason(models.TextChoices):
        NO_TOKEN = "no_token", _("No valid reply address")
        UNKNOWN_EMAIL = "unknown_email", _("The address names no game email")
        WRONG_SENDER = "wrong_sender", _("Not from the player's address")
        FORGED_SENDER = "forged_sender", _("Neither SPF nor DKIM passed for the player's domain")
        AUTO_REPLY = "auto_reply", _("An automatic reply")
        UNREADABLE = "unreadable", _("Nested too deeply to read")
        GAME_OVER = "game_over", _("The game is over")
        STALE = "stale", _("A reply to an earlier position")
        CAPPED = "capped", _("Too many refusals to this player")

    received = models.DateTimeField(default=timezone.now, db_index=True)
    reason = models.CharField(max_length=20, choices=Reason.choices)
    sender = models.CharField(max_length=254, blank=True)
    message_id = models.CharField(max_length=200, blank=True)
    notification = models.ForeignKey(Notification, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    detail = models.CharField(max_length=500, blank=True)

    class Meta:
        ordering: ClassVar[list[str]] = ["-received"]

    def __str__(self) -> str:
        return f"{self.reason} from {self.sender or '?'}"


def message_hash(message_id: str) -> str:
    """The key a reply is recognised by: SHA-256 of its whole Message-ID."""
    return hashlib.sha256(message_id.encode("utf-8", "surrogatepass")).hexdigest()


class DataExport(models.Model):
    """A person's data, gathered by a worker into one JSON document (exports.py),
    downloadable by the signed link emailed to them until it expires; the
    periodic sweep deletes it then."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="data_exports")
    created = models.DateTimeField(default=timezone.now)
    ready = models.DateTimeField(null=True, blank=True, help_text="When the document was built.")
    document = models.JSONField(null=True, blank=True)

    class Meta:
        ordering: ClassVar[list[str]] = ["-created"]

    def __str__(self) -> str:
        return f"data export {self.pk} of {self.user_id}"
