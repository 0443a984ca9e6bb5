"""The games app's tables: games as append-only event logs, their seats and secrets.

What it owns: ``Game`` (options, status, and a few denormalised fields for queries:
version, phase, round, whose turn and since when), ``GameEvent`` (the log the engine
folds into state), ``Seat`` (who plays which seat, person or bot), ``GameSecret`` (the
seed every chance outcome is drawn from), ``IdempotencyKey`` (stored answers of
retried moves), ``Presence`` (game pages open right now), ``PlayNowLine`` (the rows
"play now" serialises on) and ``GameReview`` (a finished game's bot review).

Why it is safe:
- Events are never changed or removed: ``GameEvent.save`` of a stored row, its
  ``delete`` and the queryset's ``update``/``delete`` raise, so corrections are new
  events and a state folded at version ``v`` stays right (``games.snapshots`` relies on
  it); ``(game, seq)`` is unique, so two writers can never both append event ``v + 1``.
- The denormalised fields of ``Game`` are written by ``games.store`` in the
  transaction that appends the events, with the game row locked (an operator's
  abandon clears whose turn it is, under the same lock), so they never run ahead of
  or behind the log.
- Hidden information stays out of reach: the seed lives in ``GameSecret``, a table of
  its own that no serializer of games touches, and event payloads (which hold hands and
  draws) leave the server only through ``engine.redact_events`` (``games.store``); the
  review's seed is never shown (``tests/reliability/test_secret_crawler.py`` and
  ``tests/games/test_api_visibility.py`` crawl every answer for secrets).
- The constraints hold the rest: one seat per index and per user, a seat is a person
  or a bot, never both; one idempotency key per user and game; one presence per page.
"""

from __future__ import annotations

import uuid
from typing import Any, ClassVar

from django.conf import settings
from django.db import models
from django.utils import timezone

from games.names import generated_name


class Game(models.Model):
    class Status(models.TextChoices):
        LOBBY = "lobby", "Waiting for players"
        ACTIVE = "active", "Being played"
        FINISHED = "finished", "Finished"
        ABANDONED = "abandoned", "Abandoned"

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    name = models.CharField(max_length=60, blank=True, help_text="What people call the game, e.g. Harbour 27.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.LOBBY)
    options = models.JSONField(help_text="The engine's game options.")
    engine_version = models.CharField(max_length=20, blank=True)
    version = models.PositiveIntegerField(default=0, help_text="Sequence number of the last event.")
    phase = models.CharField(max_length=12, blank=True)
    round = models.PositiveSmallIntegerField(default=0)
    to_act_seat = models.SmallIntegerField(null=True, blank=True, help_text="Seat index whose turn it is.")
    turn_since = models.DateTimeField(null=True, blank=True)
    # The reminder policy, chosen at creation (the notifications app keeps the clock).
    reminder_first_hours = models.PositiveSmallIntegerField(default=24)
    reminder_every_hours = models.PositiveSmallIntegerField(default=48)
    timeout_hours = models.PositiveSmallIntegerField(
        null=True, blank=True, default=7 * 24, help_text="After this long a bot moves for the absent player."
    )
    creator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="created_games")
    # Open games (games/services/open_games.py): listed in the public lobby for anyone to join.
    listed = models.BooleanField(default=False, help_text="Listed in the public lobby: anyone may take an open seat.")
    fill_with_bots_at = models.DateTimeField(
        null=True, blank=True, help_text="An open game still waiting then gets bots in its open seats and starts."
    )
    public = models.BooleanField(
        default=False,
        help_text="Anyone may watch it and it is listed; otherwise players and holders of its watch link.",
    )
    rematch_of = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="rematches",
        help_text="The finished game whose players this game was offered to.",
    )  # fmt: skip
    created = models.DateTimeField(default=timezone.now)
    updated = models.DateTimeField(auto_now=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering: ClassVar[list[str]] = ["-updated"]
        indexes: ClassVar[list[models.Index]] = [
            # Lists look for active games whose turn started long ago.
            models.Index(fields=["status", "turn_since"], name="game_status_turn_since"),
            # The public lobby: listed games still waiting for players.
            models.Index(fields=["listed", "status", "created"], name="game_listed_status_created"),
        ]

    def __str__(self) -> str:
        return f"{self.title} ({self.get_status_display()})"

    @property
    def title(self) -> str:
        """The game's name; a game made before games had names gets one from its id."""
        if self.name:
            return self.name
        return generated_name(self.public_id.int if self.public_id else 0)

    @property
    def players(self) -> int:
        return int(self.options.get("players", 4))


class GameSecret(models.Model):
    """What must never reach a client: the seed every chance outcome is drawn
    from. Kept apart from ``Game`` so that no serializer of games can reach it."""

    game = models.OneToOneField(Game, on_delete=models.CASCADE, primary_key=True, related_name="secret")
    seed = models.CharField(max_length=64)

    def __str__(self) -> str:
        return f"secret of {self.game_id}"


class Seat(models.Model):
    class Bot(models.TextChoices):
        NONE = "", "Human"
        RANDOM = "random", "Random bot"
        GREEDY = "greedy", "Greedy bot"
        STRONG = "strong", "Strong bot"
        # The levels a person chooses by (games.engine.bots.LEVELS), weakest first.
        EASY = "easy", "Bot level easy"
        MEDIUM = "medium", "Bot level medium"
        HARD = "hard", "Bot level hard"
        STRONGEST = "strongest", "Bot level strongest"

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats")
    index = models.PositiveSmallIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="seats"
    )
    invited_email = models.EmailField(blank=True)
    bot = models.CharField(max_length=10, choices=Bot.choices, blank=True, default=Bot.NONE)
    side = models.CharField(max_length=1, blank=True)
    colours = models.JSONField(default=list, blank=True)
    joined = models.DateTimeField(null=True, blank=True)
    # Set when the player's turn timed out: the timeout bot then plays every
    # turn of theirs until they come back (any move of theirs, or "I'm back").
    absent_since = models.DateTimeField(null=True, blank=True)

    class Meta:
        # By the column, not the relation: ordering by "game" would join every
        # seat query to games_game to sort by the game's own ordering.
        ordering: ClassVar[list[str]] = ["game_id", "index"]
        constraints: ClassVar[list[Any]] = [
            models.UniqueConstraint(fields=["game", "index"], name="seat_unique_index"),
            models.UniqueConstraint(
                fields=["game", "user"], condition=models.Q(user__isnull=False), name="seat_one_per_user"
            ),
            models.CheckConstraint(
                condition=~(models.Q(user__isnull=False) & ~models.Q(bot="")), name="seat_human_or_bot"
            ),
        ]

    def __str__(self) -> str:
        return f"seat {self.index + 1}"  # counted from 1, as the pages, the emails and the admin count

    @property
    def is_bot(self) -> bool:
        return bool(self.bot)

    @property
    def is_filled(self) -> bool:
        return self.is_bot or self.user_id is not None


class AppendOnlyQuerySet(models.QuerySet["GameEvent"]):
    """Events are never changed or removed: corrections are new events."""

    def update(self, **kwargs: Any) -> int:
        raise TypeError("game events are append-only")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise TypeError("game events are append-only")


class GameEvent(models.Model):
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="events")
    seq = models.PositiveIntegerField()
    type = models.CharField(max_length=32)
    payload = models.JSONField(help_text="The engine's event, as folded. Holds secrets: never serialise it raw.")
    seat = models.SmallIntegerField(null=True, blank=True, help_text="The seat whose action made this event.")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created = models.DateTimeField(default=timezone.now)

    objects = AppendOnlyQuerySet.as_manager()

    class Meta:
        ordering: ClassVar[list[str]] = ["game_id", "seq"]  # no join to games_game: see Seat
        constraints: ClassVar[list[Any]] = [models.UniqueConstraint(fields=["game", "seq"], name="event_unique_seq")]

    def __str__(self) -> str:
        return f"{self.game_id}#{self.seq} {self.type}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.pk is not None:
            raise TypeError("game events are append-only")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise TypeError("game events are append-only")


class IdempotencyKey(models.Model):
    """A player's idempotency key (the API's ``Idempotency-Key``, the page's form
    key, an email reply's Message-ID): a repeat with the same key and ask gets
    the first move's result again, and no new event. ``response`` is the move's
    receipt, its first and last event (``games.store.replay``)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=255)
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+")
    fingerprint = models.CharField(max_length=64)
    status_code = models.PositiveSmallIntegerField()
    response = models.JSONField()
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints: ClassVar[list[Any]] = [
            models.UniqueConstraint(fields=["user", "game", "key"], name="idempotency_unique_key")
        ]

    def __str__(self) -> str:
        return f"{self.key} by {self.user_id}"


class OpenGame(Game):
    """Listed games, as the operators' admin shows the public lobby."""

    class Meta:
        proxy = True
        verbose_name = "open game"
        verbose_name_plural = "open games (the public lobby)"


class Presence(models.Model):
    """A player has this game's page open and visible: the time of its last
    heartbeat. Kept in the database, since every web process and worker asks."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    # Each page load has an id of its own, so a reloaded page's late "I left"
    # removes only its own row, never the new page's "I'm here".
    page = models.CharField(max_length=64, blank=True, default="")
    seen = models.DateTimeField()

    class Meta:
        constraints: ClassVar[list[Any]] = [
            models.UniqueConstraint(fields=["game", "user", "page"], name="presence_one_per_page")
        ]

    def __str__(self) -> str:
        return f"{self.user_id} watching {self.game_id}"


class PlayNowLine(models.Model):
    """One row per table size and pace, updated at the start of every "play now"
    for it. The update holds the row (PostgreSQL) or the database's write lock
    (SQLite) to the end of the transaction, so two people asking at the same
    moment are seated in one game instead of each opening their own."""

    players = models.PositiveSmallIntegerField()
    pace = models.CharField(max_length=16)
    asked = models.PositiveIntegerField(default=0, help_text="how many times play now was asked for it")

    class Meta:
        constraints: ClassVar[list[Any]] = [
            models.UniqueConstraint(fields=["players", "pace"], name="play_now_line_unique")
        ]

    def __str__(self) -> str:
        return f"play now: {self.players} players, {self.pace}"


class GameReview(models.Model):
    """The bot's review of one finished game (``games.services.review``): made once, a
    slice of moves per task on the bots queue, and stored. It exists only for finished games, so nothing of
    it can be seen while the game is played."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="review")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.QUEUED)
    moves_done = models.PositiveIntegerField(default=0, help_text="Moves reviewed so far.")
    moves_total = models.PositiveIntegerField(default=0, help_text="Moves to review (known once it runs).")
    seed = models.CharField(max_length=64, help_text="Seeds the review's searches; never shown.")
    iterations = models.PositiveIntegerField(default=0, help_text="Search iterations a move, as configured.")
    moves = models.JSONField(default=list, blank=True, help_text="One reviewed move a row, in log order.")
    created = models.DateTimeField(default=timezone.now)
    progressed = models.DateTimeField(
        null=True, blank=True, help_text="When its last slice of moves was stored (none for long: its task was lost)."
    )
    finished = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"review of {self.game_id}: {self.status}"

    @property
    def progress(self) -> float:
        return self.moves_done / self.moves_total if self.moves_total else 0.0
