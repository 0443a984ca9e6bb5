"""What this app does when the others announce something (connected in
``NotificationsConfig.ready``): the emails a game's new events cause, the
turn clock, invitations, and sign-in links. Each runs in the announcer's
transaction, so its rows are stored with the events or not at all."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import Q
from django.dispatch import receiver
from django.utils import timezone

from accounts.models import User
from accounts.signals import account_closed, address_confirmed, sign_in_link_requested
from games.models import Game, Seat
from games.services import visibility
from games.signals import Appended, Cause, events_appended, lobby_changed, player_returned
from games.table import LoadedGame

from . import bounces, outbox, reminders, review_mail
from .models import DataExport, InboundRefusal, Kind, Notification, Preference, Suppression, TurnClock

# The emails an event causes for every person at the table.
_EVENT_KINDS = {
    "game_created": Kind.GAME_STARTED,
    "round_scored": Kind.ROUND_SCORED,
    "game_finished": Kind.GAME_OVER,
}


def _email(kind: str, seat: Seat, seq: int, context: dict[str, Any]) -> Notification:
    assert seat.user is not None
    return Notification(
        kind=kind,
        key=Notification.key_for(kind, game_id=seat.game_id, seat=seat.index, seq=seq),
        email=seat.user.email,
        user=seat.user,
        game_id=seat.game_id,
        seat=seat.index,
        context=context,
    )


@receiver(events_appended, dispatch_uid="notifications.game_emails")
def write_game_emails(sender: Any, *, appended: Appended, **kwargs: Any) -> None:
    """Game started, round scored, game over; "your turn" when the turn passes
    to a person; "timed out" to the player a bot moved for. Then the turn clock."""
    loaded, events, first_seq, acting_seat = appended.loaded, appended.events, appended.first_seq, appended.acting_seat
    humans = {seat.index: seat for seat in loaded.seats if seat.user is not None}
    state = loaded.state
    assert state is not None
    rows: list[Notification] = []
    started = False
    for offset, event in enumerate(events):
        kind = _EVENT_KINDS.get(event["type"])
        if kind is None:
            continue
        seq = first_seq + offset
        started = started or kind == Kind.GAME_STARTED
        rows += [_email(kind, seat, seq, {"seq": seq, "round": event.get("round")}) for seat in humans.values()]
    last_seq = appended.last_seq
    if appended.cause == Cause.TIMEOUT and acting_seat in humans:
        # Says what the bot played (events first_seq..last_seq), and that it goes on until they come back.
        context = {"seq": last_seq, "from_seq": first_seq}
        rows.append(_email(Kind.TIMEOUT, humans[acting_seat], last_seq, context))
    to_act = state.to_act
    absent = to_act in humans and humans[to_act].absent_since is not None  # the bot plays their turns
    if to_act is not None and to_act != acting_seat and to_act in humans and not started and not absent:
        rows.append(_email(Kind.YOUR_TURN, humans[to_act], last_seq, {"seq": last_seq}))
    # The one rule, asked here too.
    rows = [row for row in rows if visibility.may_see(loaded.game, row.user, seats=loaded.seats)]
    if any(row.kind == Kind.GAME_OVER for row in rows) and review_mail.waits_for_review(loaded.game, loaded.seats):
        # The game-over email waits (boundedly) for the review, to link to it.
        review_mail.hold([row for row in rows if row.kind == Kind.GAME_OVER], appended.now)
        rows = [row for row in rows if row.kind != Kind.GAME_OVER]
    outbox.write(rows)
    reminders.start_turn(loaded, appended.now)


@receiver(lobby_changed, dispatch_uid="notifications.invitations")
def write_invitations(sender: Any, *, game: Game, seats: list[Seat], change: str, **kwargs: Any) -> None:
    """A new game's invitations, one per invited address."""
    if change != "created":
        return
    for seat in seats:
        if not seat.invited_email or seat.user_id is not None:
            continue
        outbox.enqueue(
            kind=Kind.INVITATION,
            key=Notification.key_for(Kind.INVITATION, game_id=game.pk, seat=seat.index, seq=0),
            email=seat.invited_email,
            user=User.objects.filter(email__iexact=seat.invited_email).first(),
            game=game,
            seat=seat.index,
            context={"inviter": game.creator.public_name},
        )


@receiver(lobby_changed, dispatch_uid="notifications.seat_answered")
def tell_the_creator(sender: Any, *, game: Game, seats: list[Seat], change: str, user: User, **kwargs: Any) -> None:
    """Someone joined or declined: the creator hears of it. Not when the join
    took the last seat: the game starts with it, and its email says who plays."""
    if change not in ("joined", "declined") or user.pk == game.creator_id:
        return
    if change == "joined" and all(seat.is_filled for seat in seats):
        return
    creator = game.creator
    outbox.enqueue(
        kind=Kind.SEAT_ANSWERED,
        key=Notification.key_for(Kind.SEAT_ANSWERED, game_id=game.pk, detail=f"{change}:{user.pk}"),
        email=creator.email,
        user=creator,
        game=game,
        context={"player": user.public_name, "change": change, "open_seats": sum(not s.is_filled for s in seats)},
    )


@receiver(sign_in_link_requested, dispatch_uid="notifications.sign_in_link")
def write_sign_in_link(sender: Any, *, user: User, next_path: str = "", **kwargs: Any) -> None:
    stamp = timezone.now().strftime("%Y%m%d%H%M%S%f")
    outbox.enqueue(
        kind=Kind.LOGIN,
        key=Notification.key_for(Kind.LOGIN, subject=user.email, detail=stamp),
        email=user.email,
        user=user,
        context={"next": next_path},
    )


@receiver(address_confirmed, dispatch_uid="notifications.address_confirmed")
def clear_bounce(sender: Any, *, user: User, **kwargs: Any) -> None:
    """A sign-in link reached the player: mail to their address works again."""
    bounces.confirm(user.email)


@receiver(player_returned, dispatch_uid="notifications.player_returned")
def restart_turn_clock(sender: Any, *, loaded: LoadedGame, now: datetime, **kwargs: Any) -> None:
    """A player took their seat back: if it is their turn, its clock starts now."""
    reminders.start_turn(loaded, now)


@receiver(account_closed, dispatch_uid="notifications.account_closed")
def forget_the_person(sender: Any, *, user: User, email: str, **kwargs: Any) -> None:
    """A closed account gets no email ever again: what is waiting is skipped,
    the address is erased from every email kept (sent ones included), their
    preferences and bounce records go, and no clock reminds them any more."""
    theirs = Notification.objects.filter(Q(user=user) | Q(email__iexact=email))
    theirs.filter(status=Notification.Status.PENDING).update(status=Notification.Status.SKIPPED)
    theirs.update(email=user.email, context={})
    Preference.objects.filter(user=user).delete()
    Suppression.objects.filter(email__iexact=email).delete()
    TurnClock.objects.filter(user=user).update(user=None, next_reminder_at=None, timeout_at=None)
    DataExport.objects.filter(user=user).delete()
    InboundRefusal.objects.filter(sender__iexact=email).update(sender="")
