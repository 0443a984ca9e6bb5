"""Watching: making a game public or private, and the list of public games.
Who may watch is the one rule in ``games.services.visibility``. Spectators
only ever get the public view (``engine.spectator_view``), never a hand."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import QuerySet

from accounts.models import User
from games import store
from games.errors import GameError
from games.models import Game

from .visibility import is_player, may_see, visible_to, watch_key

__all__ = ["is_player", "may_see", "may_watch", "set_public", "visible_to", "watch_key", "watchable_games"]


def may_watch(game: Game, user: Any, key: str | None) -> bool:
    """The watch page's question is the one rule's (``visibility.may_see``)."""
    return may_see(game, user, key)


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
