"""What the players wrote at a table, and whom each player has muted."""

from __future__ import annotations

from typing import Any, ClassVar

from django.conf import settings
from django.db import models
from django.utils import timezone

from games.models import Game

MAX_LENGTH = 500


class TableMessage(models.Model):
    """One message, kept for good: hiding it marks it, never deletes it."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="messages")
    seat = models.PositiveSmallIntegerField(help_text="The author's seat index.")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="table_messages")
    text = models.CharField(max_length=MAX_LENGTH)
    via = models.CharField(max_length=5, choices=[("web", "web"), ("api", "API"), ("email", "email")])
    created = models.DateTimeField(default=timezone.now)
    hidden_at = models.DateTimeField(null=True, blank=True)
    hidden_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering: ClassVar[list[str]] = ["game_id", "created", "id"]
        indexes: ClassVar[list[models.Index]] = [
            models.Index(fields=["game", "created"], name="talk_game_created"),
            # The rate limit counts one author's recent messages in one game.
            models.Index(fields=["author", "game", "created"], name="talk_author_recent"),
        ]

    def __str__(self) -> str:
        return f"message {self.pk} in game {self.game_id}"

    @property
    def hidden(self) -> bool:
        return self.hidden_at is not None


class Mute(models.Model):
    """``user`` no longer sees what ``muted`` writes, in any game."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="mutes")
    muted = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints: ClassVar[list[Any]] = [
            models.UniqueConstraint(fields=["user", "muted"], name="mute_once"),
            models.CheckConstraint(condition=~models.Q(user=models.F("muted")), name="mute_not_self"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} mutes {self.muted_id}"
