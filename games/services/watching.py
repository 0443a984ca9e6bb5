"""Who may watch a game: anyone for a public game (which is listed), the
players and whoever holds the game's watch link for a private one. Spectators
only ever get the public view (``engine.spectator_view``), never a hand."""

from __future__ import annotations

from typing import Any

from django.core import signing
from django.db import transaction
from django.db.models import QuerySet
from django.utils.crypto import constant_time_compare

from accounts.models import User
from games import store
from games.errors import GameError, not_found
from games.models import Game

_SIGNER = signing.Signer(salt="games.watch")


def watch_key(game: Game) -> str:
    """The key in a private game's watch link: a signature of its id, so it
    needs no storage and cannot be made up."""
    return _SIGNER.signature(str(game.public_id))


def is_player(game: Game, user: Any) -> bool:
    pk = getattr(user, "pk", None)
    return pk is not None and any(seat.user_id == pk for seat in game.seats.all())


def may_watch(game: Game, user: Any, key: str | None) -> bool:
    if game.public or is_player(game, user):
        return True
    return bool(key) and constant_time_compare(str(key), watch_key(game))


def may_see(game: Game, user: Any) -> bool:
    """Whether ``user`` may open ``game`` at all (its page, ``GET /games/{id}``,
    its log and stream): a public or listed game anyone; a private one its
    players, its creator, the people invited to it and operators. Everyone
    else is told there is no such game, so a private game's id reveals nothing."""
    if game.public or game.listed or is_player(game, user) or _has_open_seat(game):
        return True
    if not getattr(user, "is_authenticated", False):
        return False
    email = str(getattr(user, "email", "")).lower()
    invited = any(seat.invited_email.lower() == email for seat in game.seats.all() if seat.invited_email)
    return game.creator_id == user.pk or invited or bool(getattr(user, "is_staff", False))


def _has_open_seat(game: Game) -> bool:
    """A game waiting with a seat for anyone: its link is how the players share it."""
    return game.status == Game.Status.LOBBY and any(
        not seat.is_filled and not seat.invited_email for seat in game.seats.all()
    )


def visible_to(game: Game, user: Any) -> Game:
    """``game`` if ``user`` may see it (``may_see``); else the unknown game's 404."""
    if not may_see(game, user):
        raise not_found()
    return game


def set_public(*, game: Game, user: User, public: bool) -> Game:
    """A player of the game makes it public (listed, anyone may watch) or private."""
    with transaction.atomic():
        locked = Game.objects.select_for_update().get(pk=game.pk)
        if not locked.seats.filter(user=user).exists():
            raise GameError("not_a_player", "You have no seat in this game.")
        locked.public = public
        locked.save(update_fields=["public", "updated"])
        return locked


def watchable_games() -> QuerySet[Game]:
    """Public games being played or finished, the most recently moved first."""
    games = Game.objects.filter(public=True, status__in=[Game.Status.ACTIVE, Game.Status.FINISHED])
    return store.with_seats(games).order_by("-updated", "pk")
