"""Open games: the public lobby, "play now", filling with bots, and rematches.

An open game is ``listed``: anyone signed in may take one of its open seats,
and it starts by itself once every seat is taken (or, if its creator asked,
with bots in the seats still open after some hours). The writes go through
the lobby's own services (``create_game``, ``join_game``, ``start_game``),
each in its transaction with the game row locked.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Exists, F, OuterRef, QuerySet

from accounts.models import User
from games import store
from games.errors import GameError
from games.models import Game, PlayNowLine, Seat

from .lobby import ReminderPolicy, SeatSpec, create_game, join_game, start_game

logger = logging.getLogger(__name__)

# How hurried a game is: when an absent player is reminded, and when a bot moves for them.
PACES: dict[str, ReminderPolicy] = {
    "fast": ReminderPolicy(first_hours=2, every_hours=4, timeout_hours=12),
    "normal": ReminderPolicy(first_hours=24, every_hours=48, timeout_hours=7 * 24),
    "slow": ReminderPolicy(first_hours=72, every_hours=72, timeout_hours=14 * 24),
}
FILL_BOT = "greedy"  # quick to think, and a fair opponent while people are scarce
MAX_BOT_HOURS = 7 * 24


def pace_of(game: Game) -> str:
    """The pace whose policy the game has, or "custom"."""
    for name, policy in PACES.items():
        if (game.reminder_first_hours, game.reminder_every_hours, game.timeout_hours) == (
            policy.first_hours,
            policy.every_hours,
            policy.timeout_hours,
        ):
            return name
    return "custom"


def _policy(pace: str) -> ReminderPolicy:
    if pace not in PACES:
        raise GameError("bad_pace", f"The pace is one of {', '.join(PACES)}.")
    return PACES[pace]


def _open_seats() -> QuerySet[Seat]:
    return Seat.objects.filter(game=OuterRef("pk"), user__isnull=True, bot="", invited_email="")


def open_lobby(*, players: int | None = None, pace: str | None = None) -> QuerySet[Game]:
    """Listed games waiting for players with a seat anyone may take, the longest waiting first."""
    games = Game.objects.filter(listed=True, status=Game.Status.LOBBY).filter(Exists(_open_seats()))
    if players is not None:
        games = games.filter(options__players=players)
    if pace is not None:
        policy = _policy(pace)
        games = games.filter(
            reminder_first_hours=policy.first_hours,
            reminder_every_hours=policy.every_hours,
            timeout_hours=policy.timeout_hours,
        )
    return store.with_seats(games.select_related("creator")).order_by("created", "pk")


def _check_size(players: int, bots_after_hours: int | None) -> None:
    if players not in (2, 3, 4):
        raise GameError("bad_option", "Manhattan is played by 2, 3 or 4 players.")
    if bots_after_hours is not None and not 1 <= bots_after_hours <= MAX_BOT_HOURS:
        raise GameError("bad_option", f"Bots fill the open seats after 1 to {MAX_BOT_HOURS} hours, or never.")


def open_game(
    *,
    creator: User,
    players: int,
    pace: str = "normal",
    six_rounds: bool = False,
    bots_after_hours: int | None = None,
    public: bool = True,
) -> Game:
    """A new listed game with the creator in the first seat and the others open;
    a game met in public is watched in public unless its creator says otherwise."""
    _check_size(players, bots_after_hours)
    policy = _policy(pace)
    with transaction.atomic():
        game = create_game(
            creator=creator,
            options={"players": players, "six_rounds": six_rounds},
            seats=[SeatSpec("me"), *[SeatSpec("open") for _ in range(players - 1)]],
            reminders=policy,
        )
        game.listed, game.public = True, public
        if bots_after_hours is not None:
            game.fill_with_bots_at = game.created + timedelta(hours=bots_after_hours)
        game.save(update_fields=["listed", "public", "fill_with_bots_at", "updated"])
    return game


def _start_if_full(game: Game) -> None:
    """Open games and rematches start by themselves once every seat is taken."""
    with transaction.atomic():
        locked = Game.objects.select_for_update().get(pk=game.pk)
        full = not locked.seats.filter(user__isnull=True, bot="").exists()
        if locked.status == Game.Status.LOBBY and full and (locked.listed or locked.rematch_of_id is not None):
            start_game(game=locked, user=locked.creator)


def take_seat(*, game: Game, user: User, seat_index: int | None = None) -> Seat:
    """Join a game (an invitation or an open seat), and start it if that filled an open game."""
    with transaction.atomic():
        seat = join_game(game=game, user=user, seat_index=seat_index)
        _start_if_full(game)
    return seat


@dataclass(frozen=True)
class Seated:
    game: Game
    joined: bool  # True: a waiting game; False: a new open game
    already: bool = False  # True: the caller was waiting in this game before asking


def _wait_in_line(players: int, pace: str) -> None:
    """Take this table size and pace's turn for the rest of the transaction: an
    UPDATE locks on every database we run on (select_for_update does nothing
    on SQLite), and a second "play now" then waits and sees the game the first
    one opened."""
    line, _ = PlayNowLine.objects.get_or_create(players=players, pace=pace)
    PlayNowLine.objects.filter(pk=line.pk).update(asked=F("asked") + 1)


def play_now(*, user: User, players: int, pace: str = "normal", bots_after_hours: int | None = None) -> Seated:
    """A seat in the longest-waiting open game that fits, or a new open game.
    Asking again while waiting gives the same game back, never a second one."""
    _check_size(players, bots_after_hours)
    _policy(pace)  # refused before a line is made for a pace that does not exist
    with transaction.atomic():
        _wait_in_line(players, pace)
        fitting = open_lobby(players=players, pace=pace).filter(options__six_rounds=False)
        waiting = fitting.filter(seats__user=user).first()
        if waiting is not None:
            return Seated(waiting, joined=True, already=True)
        for game in fitting.exclude(seats__user=user)[:20]:
            try:
                take_seat(game=game, user=user)  # its own savepoint: a failed join keeps our place in line
            except GameError as error:  # taken or started meanwhile: try the next
                logger.info("play now: game %s no longer fits (%s)", game.public_id, error.code)
                continue
            game.refresh_from_db()
            return Seated(game, joined=True)
        return Seated(open_game(creator=user, players=players, pace=pace, bots_after_hours=bots_after_hours), False)


def games_due_for_bots(now: datetime) -> QuerySet[Game]:
    return Game.objects.filter(
        listed=True, status=Game.Status.LOBBY, fill_with_bots_at__isnull=False, fill_with_bots_at__lte=now
    )


def fill_with_bots(*, game_id: int, now: datetime) -> bool:
    """Bots take the open seats of one open game that waited long enough, and it
    starts; False if another sweep (or the last player) got there first."""
    with transaction.atomic():
        game = Game.objects.select_for_update(skip_locked=True).filter(pk=game_id).first()
        if game is None or not games_due_for_bots(now).filter(pk=game.pk).exists():
            return False
        free = list(game.seats.filter(user__isnull=True, bot=""))
        for seat in free:
            seat.bot, seat.invited_email = FILL_BOT, ""
        Seat.objects.bulk_update(free, ["bot", "invited_email"])
        game.fill_with_bots_at = None
        game.save(update_fields=["fill_with_bots_at", "updated"])
        start_game(game=game, user=game.creator)
        return True


def rematch(*, game: Game, user: User) -> Seated:
    """One click at the end of a game: a new game offered to the same players
    (the same bots sit in again). A second click, by anyone at the table, takes
    the seat offered in the rematch already made."""
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game.pk)
        if game.status != Game.Status.FINISHED:
            raise GameError("game_not_finished", "A rematch is offered once the game is finished.")
        seats = list(game.seats.select_related("user").order_by("index"))
        if not any(seat.user_id == user.pk for seat in seats):
            raise GameError("not_a_player", "You have no seat in this game.")
        offered = game.rematches.filter(status__in=[Game.Status.LOBBY, Game.Status.ACTIVE]).order_by("pk").first()
        if offered is not None:
            if offered.status == Game.Status.LOBBY and not offered.seats.filter(user=user).exists():
                take_seat(game=offered, user=user)
                offered.refresh_from_db()
            return Seated(offered, joined=True)
        specs = []
        for seat in seats:
            if seat.user_id == user.pk:
                specs.append(SeatSpec("me"))
            elif seat.user is not None:
                specs.append(SeatSpec("invite", email=seat.user.email))
            else:
                specs.append(SeatSpec("bot", bot=seat.bot))
        kept = ("players", "six_rounds", "copies_per_position")  # sides and the start player are dealt anew
        options = {key: game.options[key] for key in kept if key in game.options}
        policy = ReminderPolicy(game.reminder_first_hours, game.reminder_every_hours, game.timeout_hours)
        new = create_game(creator=user, options=options, seats=specs, reminders=policy)
        new.rematch_of, new.public = game, game.public
        new.save(update_fields=["rematch_of", "public", "updated"])
        _start_if_full(new)  # a rematch against bots alone starts at once
        new.refresh_from_db()
        return Seated(new, joined=False)
