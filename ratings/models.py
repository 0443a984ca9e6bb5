"""Ratings: OpenSkill (Weng–Lin, Plackett–Luce) per player count, for people
and for each kind of bot, and every change with the game that made it."""

from __future__ import annotations

from typing import Any, ClassVar

from django.conf import settings
from django.db import models
from django.utils import timezone

PROVISIONAL_GAMES = 10  # a rating is marked provisional until this many rated games


class Rating(models.Model):
    """Where one player (a person, or one kind of bot) stands in games of ``players`` players."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True, blank=True, related_name="ratings"
    )
    bot = models.CharField(max_length=10, blank=True, help_text="The bot's kind, for a bot's rating.")
    players = models.PositiveSmallIntegerField()
    mu = models.FloatField()
    sigma = models.FloatField()
    games = models.PositiveIntegerField(default=0)
    updated = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints: ClassVar[list[Any]] = [
            models.UniqueConstraint(fields=["user", "players"], name="rating_one_per_user_and_size"),
            models.UniqueConstraint(
                fields=["bot", "players"], condition=~models.Q(bot=""), name="rating_one_per_bot_and_size"
            ),
            models.CheckConstraint(
                condition=models.Q(user__isnull=False, bot="") | models.Q(user__isnull=True) & ~models.Q(bot=""),
                name="rating_of_a_person_or_a_bot",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user_id or self.bot} ({self.players} players): {self.ordinal:.1f}"

    @property
    def ordinal(self) -> float:
        """The number shown: a conservative estimate (mu - 3 sigma)."""
        return self.mu - 3 * self.sigma

    @property
    def provisional(self) -> bool:
        return self.games < PROVISIONAL_GAMES


class RatingChange(models.Model):
    """What one rated game did to one rating: the history a profile draws."""

    rating = models.ForeignKey(Rating, on_delete=models.CASCADE, related_name="changes")
    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="+")
    rank = models.PositiveSmallIntegerField(help_text="1 for the winner(s); resigned players last.")
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    mu_after = models.FloatField()
    sigma_after = models.FloatField()
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering: ClassVar[list[str]] = ["created", "pk"]
        constraints: ClassVar[list[Any]] = [
            models.UniqueConstraint(fields=["rating", "game"], name="rating_change_once_per_game")
        ]

    def __str__(self) -> str:
        return f"{self.rating_id} in game {self.game_id}: {self.mu_before:.1f} -> {self.mu_after:.1f}"


class SeatResult(models.Model):
    """How one seat ended a finished game: what a profile counts (games, wins,
    scores, head-to-head) without folding every game again. Written in the
    transaction that finishes the game, for people and bots alike."""

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="+")
    seat = models.PositiveSmallIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True, blank=True, related_name="seat_results"
    )
    bot = models.CharField(max_length=10, blank=True)
    players = models.PositiveSmallIntegerField()
    score = models.IntegerField()
    rank = models.PositiveSmallIntegerField(help_text="1 for the winner(s); resigned players last.")
    won = models.BooleanField()
    resigned = models.BooleanField(default=False)
    rated = models.BooleanField(default=False, help_text="Whether the game moved this seat's rating.")
    finished = models.DateTimeField()

    class Meta:
        ordering: ClassVar[list[str]] = ["-finished", "pk"]
        constraints: ClassVar[list[Any]] = [
            models.UniqueConstraint(fields=["game", "seat"], name="seat_result_once_per_seat")
        ]
        indexes: ClassVar[list[models.Index]] = [
            models.Index(fields=["user", "-finished"], name="seat_result_user_finished"),
        ]

    def __str__(self) -> str:
        return f"seat {self.seat} of {self.game_id}: {self.score} (rank {self.rank})"


class ProfileSetting(models.Model):
    """A player's choices about their profile, kept here rather than on the user:
    a hidden profile is shown to nobody else and leaves the leaderboards."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile_setting")
    hidden = models.BooleanField(default=False)
    updated = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"profile of {self.user_id}{' (hidden)' if self.hidden else ''}"
