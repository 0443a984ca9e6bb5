"""The lobby: create a game, invite, join, decline, and deal.

Every write is one transaction with the game row locked; the changes are
announced (``games.signals.lobby_changed``, and the deal through
``store.append``) so that invitations and emails are written with them.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from django.db import transaction
from django.utils import timezone

from accounts.addresses import has_mail_domain
from accounts.models import User
from games import engine, store
from games.engine import GameOptions, RuleError
from games.engine.bots import SEAT_BOTS, bot_for
from games.errors import GameError, from_rule_error
from games.models import Game, GameSecret, Seat
from games.names import clean_name, generated_name
from games.signals import Cause, lobby_changed
from games.table import LoadedGame

SeatKind = Literal["me", "invite", "open", "bot"]


@dataclass(frozen=True)
class SeatSpec:
    """One seat of a new game: the creator, an invitee, an open seat or a bot."""

    kind: SeatKind
    email: str = ""
    bot: str = ""


@dataclass(frozen=True)
class ReminderPolicy:
    """When an absent player is reminded, and when a bot moves for them."""

    first_hours: int = 24
    every_hours: int = 48
    timeout_hours: int | None = 7 * 24

    def check(self) -> None:
        if not 1 <= self.first_hours <= 24 * 30 or not 1 <= self.every_hours <= 24 * 30:
            raise GameError("bad_reminders", "Reminders come between 1 hour and 30 days apart.")
        if self.timeout_hours is not None and not 1 <= self.timeout_hours <= 24 * 60:
            raise GameError("bad_reminders", "The timeout is between 1 hour and 60 days, or none.")


def _options(options: dict[str, Any]) -> GameOptions:
    try:
        return GameOptions.from_json(options)
    except RuleError as error:
        raise from_rule_error(error) from error
    except (TypeError, ValueError) as error:
        raise GameError("bad_option", f"Bad options: {error}") from error


def _check_seats(creator: User, parsed: GameOptions, seats: Sequence[SeatSpec]) -> None:
    """Each way the seats can fail the game is its own code, so a client (and a page)
    can tell them apart: ``bad_seats`` is left for the number of seats."""
    if len(seats) != parsed.players:
        raise GameError(
            "bad_seats", f"A {parsed.players}-player game needs exactly {parsed.players} seats; {len(seats)} given."
        )
    if sum(1 for s in seats if s.kind == "me") > 1:
        raise GameError("creator_seated_twice", "The creator can take only one seat.")
    emails = [s.email.lower() for s in seats if s.kind == "invite"]
    if creator.email.lower() in emails:
        raise GameError("creator_invited", "The creator cannot invite their own address; take a seat of kind 'me'.")
    if len(set(emails)) != len(emails):
        duplicate = next(email for email in emails if emails.count(email) > 1)
        raise GameError(
            "duplicate_invitee", f"{duplicate} is invited to two seats; each invitee gets one.", email=duplicate
        )
    for email in emails:
        if not has_mail_domain(email):
            raise GameError(
                "no_mail_domain",
                f"Invitations go to real email addresses: {email} has no mail domain (an IP address is not one).",
                field="email",
            )
    for spec in seats:
        if spec.kind == "bot":
            try:
                bot_for(spec.bot)
            except ValueError as error:
                raise GameError(
                    "unknown_bot", f"There is no bot called {spec.bot!r}.", choices=list(SEAT_BOTS)
                ) from error


def create_game(
    *,
    creator: User,
    options: dict[str, Any],
    seats: Sequence[SeatSpec],
    reminders: ReminderPolicy | None = None,
    name: str = "",
) -> Game:
    """A new game in the lobby, its seats taken, offered or given to bots; a
    game whose seats are all taken at once (bots included) is dealt at once.
    Without a ``name`` from the creator, the game gets a made-up one."""
    reminders = reminders or ReminderPolicy()
    reminders.check()
    parsed = _options(options)
    _check_seats(creator, parsed, seats)
    with transaction.atomic():
        game = Game.objects.create(
            name=clean_name(name) or generated_name(),
            options=parsed.to_json(),
            creator=creator,
            reminder_first_hours=reminders.first_hours,
            reminder_every_hours=reminders.every_hours,
            timeout_hours=reminders.timeout_hours,
        )
        rows = []
        for index, spec in enumerate(seats):
            seat = Seat(game=game, index=index)
            if spec.kind == "me":
                seat.user, seat.joined = creator, timezone.now()
            elif spec.kind == "invite":
                seat.invited_email = spec.email.lower()
            elif spec.kind == "bot":
                seat.bot = spec.bot
            rows.append(seat)
        Seat.objects.bulk_create(rows)
        lobby_changed.send(sender=Game, game=game, seats=rows, change="created", user=creator)
        if all(seat.is_filled for seat in rows):
            return _deal(store.load(game.public_id, lock=True), actor=creator)
    return game


def _locked_lobby(game: Game) -> Game:
    locked = Game.objects.select_for_update().get(pk=game.pk)
    if locked.status != Game.Status.LOBBY:
        raise GameError("game_started", "This game has already started.")
    return locked


def join_game(*, game: Game, user: User, seat_index: int | None = None) -> Seat:
    """Take the seat ``user`` was invited to, or an open one."""
    with transaction.atomic():
        game = _locked_lobby(game)
        if game.seats.filter(user=user).exists():
            raise GameError("already_seated", "You already have a seat in this game.")
        free = game.seats.filter(user__isnull=True, bot="")
        invited = free.filter(invited_email__iexact=user.email)
        candidates = invited if invited.exists() else free.filter(invited_email="")
        if seat_index is not None:
            candidates = candidates.filter(index=seat_index)
        seat = candidates.order_by("index").first()
        if seat is None:
            raise GameError("no_seat", "There is no seat for you in this game.")
        seat.user, seat.joined = user, timezone.now()
        seat.save(update_fields=["user", "joined"])
        game.save(update_fields=["updated"])  # the lobby's ETag changes with its seats
        seats = list(game.seats.all())
        lobby_changed.send(sender=Game, game=game, seats=seats, change="joined", user=user)
        if all(s.is_filled for s in seats):  # the last seat taken: the game starts by itself
            _deal(store.load(game.public_id, lock=True), actor=user)
        return seat


def decline_invitation(*, game: Game, user: User, email: str | None = None) -> Seat:
    """``user`` turns down their invitation to a lobby game: the seat becomes
    open. ``email``: the address invited, if no longer ``user``'s (a closed account)."""
    with transaction.atomic():
        game = _locked_lobby(game)
        invited = email or user.email
        seat = game.seats.filter(user__isnull=True, bot="", invited_email__iexact=invited).order_by("index").first()
        if seat is None:
            raise GameError("not_invited", "You have no invitation to this game.")
        seat.invited_email = ""
        seat.save(update_fields=["invited_email"])
        game.save(update_fields=["updated"])  # the lobby's ETag changes with its seats
        lobby_changed.send(sender=Game, game=game, seats=list(game.seats.all()), change="declined", user=user)
        return seat


def start_game(*, game: Game, user: User) -> Game:
    """Deal and begin: only the creator, and only when every seat is filled."""
    with transaction.atomic():
        loaded = store.load(game.public_id, lock=True)
        game = loaded.game
        if game.creator_id != user.pk:
            raise GameError("not_creator", "Only the game's creator can start it.")
        if game.status != Game.Status.LOBBY:
            raise GameError("game_started", "This game has already started.")
        if not all(s.is_filled for s in loaded.seats):
            raise GameError("seats_open", "Every seat must be taken before the game starts.")
        return _deal(loaded, actor=user)


def _deal(loaded: LoadedGame, *, actor: User) -> Game:
    """Deal and begin ``loaded`` (locked, in the lobby, every seat filled), inside the caller's transaction."""
    game = loaded.game
    seed = secrets.token_hex(16)
    GameSecret.objects.create(game=game, seed=seed)
    created = engine.create_game(GameOptions.from_json(game.options), store.chance(seed, 0))
    state = engine.initial_state(created)
    for seat in loaded.seats:
        seat.side = engine.SIDE_NAMES[state.sides[seat.index]]
        seat.colours = [engine.COLOUR_NAMES[c] for c in state.colours[seat.index]]
    Seat.objects.bulk_update(loaded.seats, ["side", "colours"])
    game.status = Game.Status.ACTIVE
    game.started = timezone.now()
    game.engine_version = created["engine"]
    # Out of the lobby once dealt: a listed private game is its players' alone
    # from now on (games.services.visibility).
    game.listed = False
    game.save(update_fields=["status", "started", "engine_version", "listed"])
    store.append(loaded, state, [created], seat=None, actor=actor, cause=Cause.START)
    return game
