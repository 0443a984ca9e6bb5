"""When a person closes their account (``accounts.signals.account_closed``):
the bot takes their seats, as after a timeout, and what games kept of them
goes. The games themselves are not touched: their logs fold to the same
records, and the seat now shows "former player N" (the name is read from
the account)."""

from __future__ import annotations

from functools import partial
from typing import Any

from django.db import transaction
from django.dispatch import receiver
from django.utils import timezone

from accounts.models import User
from accounts.signals import account_closed

from . import store, tasks
from .models import Game, Presence
from .services import lobby
from .talk.models import Mute


@receiver(account_closed, dispatch_uid="games.leaving.bot_takes_the_seats")
def bot_takes_the_seats(sender: Any, *, user: User, email: str, **kwargs: Any) -> None:
    Presence.objects.filter(user=user).delete()
    # Invitations to the address are declined: whoever signs up with it later is someone new.
    lobbies = Game.objects.filter(status=Game.Status.LOBBY)
    invited = lobbies.filter(seats__invited_email__iexact=email, seats__user__isnull=True)
    for game in invited.order_by("pk").distinct():
        lobby.decline_invitation(game=game, user=user, email=email)
    Mute.objects.filter(user=user).delete()
    now = timezone.now()
    playing = Game.objects.filter(seats__user=user, status__in=[Game.Status.LOBBY, Game.Status.ACTIVE])
    for public_id in playing.order_by("pk").values_list("public_id", flat=True).distinct():
        # Game row first (then, through the listeners, its clock): the order every move takes.
        loaded = store.load(public_id, lock=True, fold=False)
        seat = loaded.seat_of(user)
        if seat is None or seat.absent_since is not None:
            continue
        # Absent for good: the timeout bot plays each of their turns, as after a timeout.
        seat.absent_since = now
        seat.save(update_fields=["absent_since"])
        if loaded.game.status == Game.Status.ACTIVE and loaded.game.to_act_seat == seat.index:
            transaction.on_commit(partial(tasks.queue_bot_turns, str(public_id)))
