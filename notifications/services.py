"""Use cases of notifications: write emails into the outbox, deliver them,
remind absent players and time them out.

Writing happens in the caller's transaction (the move and its emails are
stored together); delivery happens after commit, by a task, and again by a
periodic sweep for anything still pending — so an outage of the broker or of
the mail server delays emails but loses none. Each row's unique ``key`` means
a redelivered task or an overlapping sweep never sends one twice.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from datetime import datetime, timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F, FilteredRelation, Q, QuerySet
from django.utils import timezone

from accounts.models import User
from games import engine
from games.models import Game, Seat

from .models import DIGESTIBLE, Kind, Notification, Preference

logger = logging.getLogger(__name__)
MAX_BACKOFF = timedelta(hours=1)
GIVE_UP_AFTER = timedelta(days=3)


def preference_for(user: User) -> Preference:
    preference, _ = Preference.objects.get_or_create(user=user)
    return preference


# --- writing into the outbox ----------------------------------------------------


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
    pk = notification.pk
    transaction.on_commit(lambda: _enqueue_delivery(pk))
    return notification


def enqueue_all(notifications: list[Notification]) -> None:
    """Write several emails into the outbox in one statement and deliver them after commit.

    ``enqueue`` guards each row with a savepoint (three statements per email);
    here one ``INSERT … ON CONFLICT (key)`` writes them all. The conflict
    clause updates a column to its own value rather than doing nothing, because
    only then are the ids of rows already there returned too; such a row (a key
    written before) is handed to delivery again, which sends only what is still
    pending — so nothing is written or sent twice either way.
    """
    if not notifications:
        return
    written = Notification.objects.bulk_create(
        notifications, update_conflicts=True, unique_fields=["key"], update_fields=["kind"]
    )
    pks = [row.pk for row in written if row.pk is not None]
    if len(pks) == 1:
        transaction.on_commit(lambda: _enqueue_delivery(pks[0]))
    elif pks:  # a round's end: one task message for its emails, not one each
        transaction.on_commit(lambda: _enqueue_deliveries(pks))


def _enqueue_delivery(pk: int) -> None:
    from .tasks import deliver_notification

    try:
        deliver_notification.delay(pk)
    except Exception:  # the broker is down: the outbox sweep will deliver it
        logger.warning("could not enqueue delivery of notification %s", pk, exc_info=True)


def _humans(game: Game) -> dict[int, Seat]:
    # .all() reads the seats the caller loaded (games.services.with_seats), if it did.
    return {seat.index: seat for seat in game.seats.all() if seat.user is not None}


def record_game_notifications(
    *, game: Game, state: engine.GameState, events: list[engine.Event], first_seq: int, acting_seat: int | None
) -> None:
    """The emails a batch of new events causes: game started, round scored,
    game over, and "your turn" when the turn passes to a human player."""
    humans = _humans(game)
    last_seq = first_seq + len(events) - 1
    started = False
    rows: list[Notification] = []

    def add(kind: str, seat: Seat, seq: int, context: dict[str, Any]) -> None:
        assert seat.user is not None
        rows.append(
            Notification(
                kind=kind,
                key=f"{game.pk}:{seat.index}:{seq}:{kind}",
                email=seat.user.email,
                user=seat.user,
                game=game,
                seat=seat.index,
                context=context,
            )
        )

    for offset, event in enumerate(events):
        seq = first_seq + offset
        kind = {
            "game_created": Kind.GAME_STARTED,
            "round_scored": Kind.ROUND_SCORED,
            "game_finished": Kind.GAME_OVER,
        }.get(event["type"])
        if kind is None:
            continue
        started = started or kind == Kind.GAME_STARTED
        for seat in humans.values():
            add(kind, seat, seq, {"seq": seq, "round": event.get("round")})
    to_act = state.to_act
    if to_act is not None and to_act != acting_seat and to_act in humans and not started:
        add(Kind.YOUR_TURN, humans[to_act], last_seq, {"seq": last_seq})
    enqueue_all(rows)


def record_invitations(game: Game) -> None:
    for seat in game.seats.exclude(invited_email="").filter(user__isnull=True):
        enqueue(
            kind=Kind.INVITATION,
            key=f"{game.pk}:{seat.index}:0:{Kind.INVITATION}",
            email=seat.invited_email,
            user=User.objects.filter(email__iexact=seat.invited_email).first(),
            game=game,
            seat=seat.index,
            context={"inviter": game.creator.public_name},
        )


def send_login_link(email: str, *, next_path: str = "") -> None:
    """A sign-in link for ``email``; the account is made now, so that the link
    carries its login stamp and works once, like every sign-in link."""
    user, _ = User.objects.get_or_create(email=email.lower())
    stamp = timezone.now().strftime("%Y%m%d%H%M%S%f")
    enqueue(
        kind=Kind.LOGIN,
        key=f"login:{email.lower()}:{stamp}",
        email=email.lower(),
        user=user,
        context={"next": next_path},
    )


# --- delivery ------------------------------------------------------------------------


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
    if preference is None or notification.kind in (Kind.LOGIN, Kind.MOVE_REFUSED):
        return None
    if notification.kind in preference.unsubscribed:
        return Notification.Status.SKIPPED
    if preference.frequency == Preference.Frequency.NONE and notification.kind != Kind.INVITATION:
        return Notification.Status.SKIPPED
    if preference.frequency == Preference.Frequency.DAILY_DIGEST and notification.kind in DIGESTIBLE:
        return Notification.Status.DIGESTED
    return None


def deliver(notification_id: int) -> bool:
    """Send one pending notification; True if this call sent it.

    The row stays locked while the mail is handed to the server, so a second
    worker (a redelivered task, the sweep) skips it, and afterwards sees it
    sent. Failures back off exponentially and give up after GIVE_UP_AFTER (by age).
    """
    from .emails import build_message
    from .mailer import send

    with transaction.atomic():
        notification = (
            Notification.objects.select_for_update(skip_locked=True, of=("self",))
            .select_related("user__preference", "game")
            .filter(pk=notification_id, status=Notification.Status.PENDING)
            .first()
        )
        if notification is None:
            return False
        preference = _loaded_preference(notification.user)
        suppressed = _suppressed_by_preferences(notification, preference)
        if suppressed is not None:
            notification.status = suppressed
            notification.save(update_fields=["status"])
            return False
        now = timezone.now()
        try:
            send(build_message(notification, preference))
        except Exception as error:
            notification.attempts += 1
            notification.last_error = f"{type(error).__name__}: {error}"[:2000]
            backoff = timedelta(seconds=30 * 2 ** min(notification.attempts, 12))
            notification.next_attempt = now + min(backoff, MAX_BACKOFF)
            # Give up by age, not by attempts: a mail server down for a few hours
            # must not lose the emails written meanwhile.
            if now - notification.created > GIVE_UP_AFTER:
                notification.status = Notification.Status.FAILED
            notification.save(update_fields=["attempts", "last_error", "next_attempt", "status"])
            logger.warning("delivery of notification %s failed: %s", notification.pk, error)
            return False
        notification.status = Notification.Status.SENT
        notification.sent = now
        notification.attempts += 1
        notification.save(update_fields=["status", "sent", "attempts"])
        return True


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


# --- reminders and timeouts ------------------------------------------------------------


def schedule_turn(game: Game, now: datetime) -> None:
    """Set the reminder clock for the turn that just began (called as the
    game's denormalised fields are updated; saved by the caller)."""
    seat = game.to_act_seat
    human = seat is not None and any(s.index == seat and s.user_id is not None for s in game.seats.all())
    if game.status != Game.Status.ACTIVE or not human:
        game.next_reminder_at = None
        game.timeout_at = None
        game.reminders_sent = 0
        return
    game.next_reminder_at = now + timedelta(hours=game.reminder_first_hours)
    game.timeout_at = now + timedelta(hours=game.timeout_hours) if game.timeout_hours else None
    game.reminders_sent = 0


REMINDER_CHUNK = 250  # games claimed per transaction by the reminder sweep
DELIVERY_BATCH = 20  # reminders per delivery task

# What the sweep reads of a due game and of the player to act (one row each).
_DUE_FIELDS = (
    "pk",
    "version",
    "to_act_seat",
    "turn_since",
    "timeout_hours",
    "reminder_every_hours",
    "reminders_sent",
    "turn__user_id",
    "turn__user__email",
    "turn__user__preference__vacation_until",
)


def due_reminders(now: datetime, limit: int, *, only: Q | None = None) -> QuerySet[Game, tuple[Any, ...]]:
    """The games whose reminder is due, oldest first, with the seat to act, its
    player and their vacation joined in (``_DUE_FIELDS``), locked (``FOR UPDATE
    OF`` the game rows only, ``SKIP LOCKED``: a game another sweep or a move is
    holding is left for the next sweep). Evaluate inside a transaction.

    The condition is the partial index ``game_reminder_due``'s, so only the due
    rows are read however many games are active."""
    games = Game.objects.filter(next_reminder_at__lte=now, status=Game.Status.ACTIVE)
    if only is not None:
        games = games.filter(only)
    return (
        games.annotate(turn=FilteredRelation("seats", condition=Q(seats__index=F("to_act_seat"))))
        .order_by("next_reminder_at")
        .select_for_update(skip_locked=True, of=("self",))
        .values_list(*_DUE_FIELDS)[:limit]
    )


def send_due_reminders(now: datetime | None = None, limit: int = 1000) -> int:
    """One sweep: a reminder for every game whose reminder is due (at most
    ``limit``); the number of reminders written.

    The due games are claimed in chunks, each in one transaction: one locking
    query reads the chunk (``due_reminders``), a few bulk UPDATEs move each
    game's reminder clock on, and one INSERT writes the reminders into the
    outbox. A claimed game is no longer due, and the rows stay locked until
    the chunk commits, so overlapping sweeps never remind a game twice (and the
    outbox keys would refuse a second identical reminder anyway). A player on
    vacation is not reminded; their reminders and timeout wait until the
    vacation ends. Delivery is published after commit, a task per
    ``DELIVERY_BATCH`` reminders; if the broker is down the outbox sweep sends
    them.
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


def remind(pk: int, due_at: datetime, now: datetime) -> bool:
    """Send the reminder of game ``pk`` that was due at ``due_at``, unless
    another sweep has claimed it already."""
    _, reminded = _remind_chunk(now, 1, only=Q(pk=pk, next_reminder_at=due_at))
    return reminded == 1


def _remind_chunk(now: datetime, size: int, *, only: Q | None = None) -> tuple[int, int]:
    """Claim up to ``size`` due games and write their reminders: (games claimed, reminders written)."""
    with transaction.atomic():
        rows = list(due_reminders(now, size, only=only))
        if not rows:
            return 0, 0
        by_interval: dict[int, list[int]] = defaultdict(list)  # reminder_every_hours -> games reminded
        away: dict[tuple[datetime, int | None], list[int]] = defaultdict(list)  # (back, timeout_hours) -> games
        nobody: list[int] = []
        reminders: list[Notification] = []
        for pk, version, seat, since, timeout_hours, every_hours, sent, user_id, email, back in rows:
            if seat is None or user_id is None:
                nobody.append(pk)  # no player to remind (schedule_turn clears the clock in that case)
            elif back is not None and back > now:
                away[(back, timeout_hours)].append(pk)
            else:
                by_interval[every_hours].append(pk)
                level = sent + 1
                reminders.append(
                    Notification(
                        kind=Kind.REMINDER,
                        key=f"{pk}:{seat}:{version}:{Kind.REMINDER}:{level}",
                        email=email,
                        user_id=user_id,
                        game_id=pk,
                        seat=seat,
                        context={"seq": version, "level": level, "since": since.isoformat() if since else None},
                    )
                )
        if nobody:
            Game.objects.filter(pk__in=nobody).update(next_reminder_at=None)
        for (back, timeout_hours), pks in away.items():
            Game.objects.filter(pk__in=pks).update(
                next_reminder_at=back,
                timeout_at=back + timedelta(hours=timeout_hours) if timeout_hours else None,
            )
        for hours, pks in by_interval.items():
            Game.objects.filter(pk__in=pks).update(
                next_reminder_at=now + timedelta(hours=hours), reminders_sent=F("reminders_sent") + 1
            )
        if reminders:
            # The keys are unique: a reminder already in the outbox is left as it is.
            Notification.objects.bulk_create(reminders, ignore_conflicts=True)
            keys = [n.key for n in reminders]
            pending = list(
                Notification.objects.filter(key__in=keys, status=Notification.Status.PENDING).values_list(
                    "pk", flat=True
                )
            )
            transaction.on_commit(lambda: _enqueue_deliveries(pending))
        return len(rows), len(reminders)


def _enqueue_deliveries(pks: list[int]) -> None:
    from .tasks import deliver_notifications

    for start in range(0, len(pks), DELIVERY_BATCH):
        try:
            deliver_notifications.delay(pks[start : start + DELIVERY_BATCH])
        except Exception:  # the broker is down: the outbox sweep will deliver them
            logger.warning("could not enqueue delivery of %s notifications", len(pks) - start, exc_info=True)
            return


def time_out_absent_players(now: datetime | None = None, limit: int = 200) -> int:
    """The greedy bot moves for every player whose turn has timed out."""
    from games.services import play_timeout_move

    now = now or timezone.now()
    moved = 0
    due = Game.objects.filter(timeout_at__lte=now, status=Game.Status.ACTIVE).order_by("timeout_at")  # oldest first
    for public_id, timeout_at in due.values_list("public_id", "timeout_at")[:limit]:
        if play_timeout_move(game_id=public_id, due_at=timeout_at):
            moved += 1
    return moved


def record_timeout(game: Game, seat: Seat, seq: int) -> None:
    if seat.user is None:
        return
    enqueue(
        kind=Kind.TIMEOUT,
        key=f"{game.pk}:{seat.index}:{seq}:{Kind.TIMEOUT}",
        email=seat.user.email,
        user=seat.user,
        game=game,
        seat=seat.index,
        context={"seq": seq},
    )


def set_vacation(*, user: User, until: datetime | None) -> Preference:
    """Pause reminders and timeouts until ``until`` (at most 30 days ahead)."""
    preference = preference_for(user)
    if until is not None:
        limit = timezone.now() + Preference.MAX_VACATION
        until = min(until, limit)
    preference.vacation_until = until
    preference.save(update_fields=["vacation_until"])
    return preference


def send_digests(now: datetime | None = None) -> int:
    """Once a day, one email per digest reader listing the games waiting for them."""
    now = now or timezone.now()
    since = now - timedelta(hours=23)
    sent = 0
    readers = Preference.objects.filter(frequency=Preference.Frequency.DAILY_DIGEST).exclude(last_digest__gt=since)
    for preference in readers.select_related("user"):
        user = preference.user
        waiting = list(
            Game.objects.filter(status=Game.Status.ACTIVE, seats__user=user, seats__index=F("to_act_seat")).values_list(
                "public_id", flat=True
            )
        )
        news = Notification.objects.filter(user=user, status=Notification.Status.DIGESTED)
        if preference.last_digest is not None:
            news = news.filter(created__gt=preference.last_digest)
        if not waiting and not news.exists():
            continue
        with transaction.atomic():
            claimed = Preference.objects.filter(pk=preference.pk, last_digest=preference.last_digest).update(
                last_digest=now
            )
            if not claimed:
                continue  # another sweep is sending this digest
            enqueue(
                kind=Kind.DIGEST,
                key=f"digest:{user.pk}:{now:%Y-%m-%d}",
                email=user.email,
                user=user,
                context={"games": [str(g) for g in waiting], "news": news.count()},
            )
        sent += 1
    return sent
