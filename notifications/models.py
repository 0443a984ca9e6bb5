"""The outbox of emails, and each user's email preferences.

A ``Notification`` row is written in the same transaction as the event that
causes it, so a move and its emails are stored together or not at all. Its
``key`` is unique (game, seat, event seq, kind), so a redelivered task or an
overlapping sweep can never create, or send, the same email twice.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any, ClassVar

from django.conf import settings
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
)
# With the daily digest, these are gathered into one email a day instead.
DIGESTIBLE = (Kind.YOUR_TURN, Kind.ROUND_SCORED, Kind.GAME_STARTED)


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

    class Meta:
        ordering: ClassVar[list[str]] = ["-created"]
        indexes: ClassVar[list[models.Index]] = [
            models.Index(fields=["status", "next_attempt"], name="notification_due"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} to {self.email} ({self.status})"

    @property
    def message_id(self) -> str:
        """A stable Message-ID: a duplicate delivery after a crash is recognisable."""
        import hashlib

        digest = hashlib.sha256(self.key.encode()).hexdigest()[:32]
        return f"<{digest}@manhattan-by-mail>"


class Preference(models.Model):
    class Frequency(models.TextChoices):
        EVERY_TURN = "every_turn", _("An email for every turn")
        DAILY_DIGEST = "daily_digest", _("One digest a day")
        NONE = "none", _("No game emails")

    LANGUAGES = (("en", "English"), ("de", "Deutsch"), ("nl", "Nederlands"), ("fr", "Français"), ("ko", "한국어"))
    MAX_VACATION = timedelta(days=30)

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="preference")
    frequency = models.CharField(max_length=12, choices=Frequency.choices, default=Frequency.EVERY_TURN)
    language = models.CharField(max_length=5, choices=LANGUAGES, default="en")
    unsubscribed = models.JSONField(default=list, blank=True, help_text="Kinds of email switched off.")
    vacation_until = models.DateTimeField(null=True, blank=True)
    last_digest = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"preferences of {self.user_id}"

    def on_vacation(self, now: Any = None) -> bool:
        now = now or timezone.now()
        return self.vacation_until is not None and self.vacation_until > now
