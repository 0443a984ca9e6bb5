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
from games.errors import GameError
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
