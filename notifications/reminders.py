"""Reminders and timeouts: the turn clock of each game, and the sweeps that read it.

When a person's turn begins, their game's ``TurnClock`` is set from the
game's reminder policy (``start_turn``, called in the move's transaction).
The periodic sweep reminds the players whose reminder is due, and lets a bot
move for those whose turn has timed out. Each sweep claims its rows with a
locking read that skips rows another sweep (or a move) holds, and moves the
clock on in the same transaction, so overlapping sweeps never remind twice.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from datetime import datetime, timedelta
from typing import Any

from django.db import DatabaseError, connection, transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone

from accounts.models import User
from games import services
from games.errors import GameError
from games.models import Game
from games.services import presence
from games.table import LoadedGame
from manhattan_site.metrics import REMINDERS, TIMEOUTS

from . import outbox
from .models import Kind, Notification, Preference, TurnClock

logger = logging.getLogger(__name__)
REMINDER_CHUNK = 250  # clocks claimed per transaction by the reminder sweep


def start_turn(loaded: LoadedGame, now: datetime) -> None:
    """Set the clock for the turn that just began: reminders and a timeout
    for a person, nothing for a bot or a finished game. One statement."""
    game = loaded.game
    seat = loaded.seat_at(game.to_act_seat) if game.status == Game.Status.ACTIVE else None
    clock = TurnClock(game=game, version=game.version, turn_since=now)
    # Nobody to remind while the timeout bot plays for an absent player.
    if seat is not None and seat.user_id is not None and seat.absent_since is None:
        clock.seat = seat.index
        clock.user_id = seat.user_id
        clock.next_reminder_at = now + timedelta(hours=game.reminder_first_hours)
        clock.timeout_at = now + timedelta(hours=game.timeout_hours) if game.timeout_hours else None
    TurnClock.objects.bulk_create(
        [clock],
        update_conflicts=True,
        unique_fields=["game"],
        update_fields=[
            "seat",
            "user",
            "version",
            "turn_since",
            "next_reminder_at",
            "reminders_sent",
            "timeout_at",
            "warned",
        ],
    )


# What the sweep reads of a due clock, its game and the player's vacation (one row each).
_DUE_FIELDS = (
    "game_id",
    "version",
    "seat",
    "turn_since",
    "game__timeout_hours",
    "game__reminder_every_hours",
    "reminders_sent",
    "timeout_at",
    "user_id",
    "user__email",
    "user__preference__vacation_until",
    "warned",
)


def due_reminders(now: datetime, limit: int, *, only: Q | None = None) -> QuerySet[TurnClock, tuple[Any, ...]]:
    """The clocks whose reminder is due, oldest first, with their game's policy
    and the player's vacation joined in (``_DUE_FIELDS``), locked (``FOR UPDATE
    OF`` the clock rows only, ``SKIP LOCKED``: a clock another sweep or a move
    is holding is left for the next sweep). Evaluate inside a transaction.

    The condition is the partial index ``clock_reminder_due``'s, so only the due
    rows are read however many games are active."""
    clocks = TurnClock.objects.filter(next_reminder_at__lte=now, game__status=Game.Status.ACTIVE)
    if only is not None:
        clocks = clocks.filter(only)
    return (
        clocks.order_by("next_reminder_at")
        .select_for_update(skip_locked=True, of=("self",))
        .values_list(*_DUE_FIELDS)[:limit]
    )


def send_due_reminders(now: datetime | None = None, limit: int = 1000) -> int:
    """One sweep: a reminder for every game whose reminder is due (at most
    ``limit``); the number of reminders written.

    The due clocks are claimed in chunks, each in one transaction: one locking
    query reads the chunk, a few bulk UPDATEs move each clock on, and one
    INSERT writes the reminders into the outbox. A player on vacation is not
    reminded; their reminders and timeout wait until the vacation ends.
    """
    now = now or timezone.now()
    sent = 0
    while limit > 0:
        size = min(REMINDER_CHUNK, limit)
        claimed, reminded = _remind_chunk(now, size)
        sent += reminded
        limit -= claimed
        if claimed < size:
            break  # nothing more is due (or the rest is locked by another sweep)
    return sent


def _remind_chunk(now: datetime, size: int) -> tuple[int, int]:
    """Claim up to ``size`` due clocks and write their reminders: (clocks claimed, reminders written)."""
    with transaction.atomic():
        # One lock order everywhere: the game rows first, then their clocks (a
        # move locks its game, then sets the clock). A game a move or another
        # sweep is holding is skipped and left for the next sweep.
        due = TurnClock.objects.filter(next_reminder_at__lte=now, game__status=Game.Status.ACTIVE)
        free = list(
            Game.objects.select_for_update(skip_locked=True)
            .filter(pk__in=due.order_by("next_reminder_at").values("game_id")[:size])
            .values_list("pk", flat=True)
        )
        if not free:
            return 0, 0
        mine = Q(game_id__in=free)
        rows = list(due_reminders(now, size, only=mine))
        claimed = len(rows)
        by_interval: dict[int, list[int]] = defaultdict(list)  # reminder_every_hours -> games reminded
        away: dict[tuple[datetime, int | None], list[int]] = defaultdict(list)  # (back, timeout_hours) -> games
        nobody: list[int] = []
        watched: dict[int, list[int]] = defaultdict(list)  # reminder_every_hours -> games whose player is on the page
        # (or whose timeout is here: the timeout sweep's warning is the one email, never a past deadline)
        at_table = presence.watching(((row[0], row[8]) for row in rows if row[8] is not None), now)
        reminders: list[Notification] = []
        for (
            game_id,
            version,
            seat,
            since,
            timeout_hours,
            every_hours,
            sent,
            timeout,
            user_id,
            email,
            back,
            warned,
        ) in rows:
            if seat is None or user_id is None:
                nobody.append(game_id)  # no player to remind (start_turn clears the clock in that case)
            elif back is not None and back > now:
                away[(back, timeout_hours)].append(game_id)
            elif (game_id, user_id) in at_table or warned or (timeout is not None and timeout <= now):
                watched[every_hours].append(game_id)  # they see it is their turn, or the warning speaks: later
            else:
                by_interval[every_hours].append(game_id)
                level = sent + 1
                reminders.append(
                    Notification(
                        kind=Kind.REMINDER,
                        key=Notification.key_for(Kind.REMINDER, game_id=game_id, seat=seat, seq=version, detail=level),
                        email=email,
                        user_id=user_id,
                        game_id=game_id,
                        seat=seat,
                        context={
                            "seq": version,
                            "level": level,
                            "since": since.isoformat() if since else None,
                            "timeout_at": timeout.isoformat() if timeout else None,
                        },
                    )
                )
        if nobody:
            TurnClock.objects.filter(game_id__in=nobody).update(next_reminder_at=None)
        for (back, timeout_hours), games in away.items():
            TurnClock.objects.filter(game_id__in=games).update(
                next_reminder_at=back,
                timeout_at=back + timedelta(hours=timeout_hours) if timeout_hours else None,
                warned=False,  # a new deadline after the vacation: warned again before the bot moves
            )
        for hours, games in watched.items():
            TurnClock.objects.filter(game_id__in=games).update(next_reminder_at=now + timedelta(hours=hours))
        for hours, games in by_interval.items():
            TurnClock.objects.filter(game_id__in=games).update(
                next_reminder_at=now + timedelta(hours=hours), reminders_sent=F("reminders_sent") + 1
            )
        if reminders:
            # The keys are unique: a reminder already in the outbox is left as it is.
            Notification.objects.bulk_create(reminders, ignore_conflicts=True)
            pending = Notification.objects.filter(
                key__in=[n.key for n in reminders], status=Notification.Status.PENDING
            ).values_list("pk", flat=True)
            outbox.publish_on_commit(list(pending))
        REMINDERS.inc(len(reminders))
        return claimed, len(reminders)


def warning_grace(timeout_hours: int | None) -> timedelta:
    """How long after its warning a timeout comes: a quarter of the timeout,
    between one hour and a day."""
    return timedelta(hours=min(24, max(1, (timeout_hours or 0) // 4)))


def time_out_absent_players(now: datetime | None = None, limit: int = 200) -> int:
    """For every turn that has timed out: wait for a player on vacation, warn
    a player who was not warned yet, else let the bot move. The number of bot moves.

    Each game is on its own: a database error in one (a lost connection, a
    lock that could not be had) is logged and the sweep goes on with the
    others; that game's timeout is still due and the next sweep retries it."""
    now = now or timezone.now()
    due = TurnClock.objects.filter(timeout_at__lte=now, game__status=Game.Status.ACTIVE).order_by("timeout_at")
    moved = 0
    for game_id, timeout_at in list(due.values_list("game_id", "timeout_at")[:limit]):
        if timeout_at is None:
            continue
        try:
            if _time_out(game_id, timeout_at, now):
                moved += 1
                TIMEOUTS.inc()
        except DatabaseError:
            logger.exception("timeout sweep: game %s failed; it stays due for the next sweep", game_id)
            connection.close_if_unusable_or_obsolete()  # a lost connection is opened again for the next game
    return moved


def _time_out(game_id: int, due_at: datetime, now: datetime) -> bool:
    """Act on the timed-out turn of game ``game_id``; True if the bot moved.
    False if it is no longer due (the player moved, or another sweep got
    there first), or if the player was warned or is away instead.

    The bot thinks first, with no transaction open and no lock taken (the
    strong bot takes about a second). Then, in one transaction, the game row
    is locked and then its clock: the order a move takes them in (it locks
    the game, then sets the clock), so the two never wait for each other in
    a circle. The bot's move is stored only if the game is still at the
    version it thought about; if not, the player has moved and nothing is done."""
    seen = _clock_of(TurnClock.objects.all(), game_id, due_at)
    if seen is None or seen.seat is None:
        return False
    decision = None
    if seen.warned and not _away(seen, now):
        try:
            decision = services.decide_for_absent_player(
                game_id=seen.game.public_id, seat=seen.seat, expected_version=seen.version
            )
        except GameError:
            decision = None  # the game cannot be played on (its log is out of step): nothing to time out
    with transaction.atomic():
        if not Game.objects.select_for_update().filter(pk=game_id).values_list("pk", flat=True):
            return False
        clock = _clock_of(
            TurnClock.objects.select_for_update(of=("self",)).filter(version=seen.version), game_id, due_at
        )
        if clock is None or clock.seat is None:
            return False  # the player moved (or another sweep acted) meanwhile
        claimed = TurnClock.objects.filter(game_id=game_id, timeout_at=due_at)
        hours = clock.game.timeout_hours
        back = _vacation_end(clock)
        if back is not None and back > now:
            # Vacation stops timeouts, not only reminders: the turn waits for them.
            # The deadline is new: the player is warned of it again (a warning before the vacation is stale).
            claimed.update(
                next_reminder_at=back, timeout_at=back + timedelta(hours=hours) if hours else None, warned=False
            )
            return False
        if not clock.warned:
            if clock.user_id is not None and presence.is_watching(game_id, clock.user_id, now):
                # No warning while they have the page open: the timeout waits for one.
                claimed.update(timeout_at=now + warning_grace(hours))
                return False
            _warn(clock, now + warning_grace(hours))
            claimed.update(warned=True, timeout_at=now + warning_grace(hours))
            return False
        if decision is None:
            if seen.warned:
                # The game is where the clock says but the seat has no move to make: nothing to time out.
                claimed.update(timeout_at=None)
            return False  # else warned meanwhile by another sweep: the bot thinks at the next one
        try:
            return services.apply_timeout(decision) is not None
        except GameError:
            claimed.update(timeout_at=None)
            return False


def _clock_of(clocks: QuerySet[TurnClock], game_id: int, due_at: datetime) -> TurnClock | None:
    return clocks.select_related("game", "user__preference").filter(game_id=game_id, timeout_at=due_at).first()


def _away(clock: TurnClock, now: datetime) -> bool:
    back = _vacation_end(clock)
    return back is not None and back > now


def _vacation_end(clock: TurnClock) -> datetime | None:
    try:
        return clock.user.preference.vacation_until if clock.user is not None else None
    except Preference.DoesNotExist:
        return None


def _warn(clock: TurnClock, timeout_at: datetime) -> None:
    """The reminder that says when the bot will move: every timeout comes after one."""
    assert clock.user is not None
    level = clock.reminders_sent + 1
    outbox.enqueue(
        kind=Kind.REMINDER,
        key=Notification.key_for(
            # One per deadline: after a vacation the new deadline gets its own warning.
            Kind.REMINDER,
            game_id=clock.game_id,
            seat=clock.seat,
            seq=clock.version,
            detail=f"warning:{int(clock.timeout_at.timestamp()) if clock.timeout_at else 0}",
        ),
        email=clock.user.email,
        user=clock.user,
        game=clock.game,
        seat=clock.seat,
        context={
            "seq": clock.version,
            "level": max(level, 3),  # the firmest wording, whatever came before
            "reminder_number": level,  # what it says it is: the first, when the timeout comes before any reminder
            "warning": True,
            "since": clock.turn_since.isoformat() if clock.turn_since else None,
            "timeout_at": timeout_at.isoformat(),
        },
    )


def set_vacation(*, user: User, until: datetime | None) -> Preference:
    """Pause reminders and timeouts until ``until`` (at most 30 days ahead)."""
    preference = outbox.preference_for(user)
    if until is not None:
        until = min(until, timezone.now() + Preference.MAX_VACATION)
    preference.vacation_until = until
    preference.save(update_fields=["vacation_until"])
    return preference
