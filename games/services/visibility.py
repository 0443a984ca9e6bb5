"""The one rule for who may see a game.

A game may be seen by:
- everyone, if it is public;
- everyone while it waits in the public lobby (listed) or with a seat open to
  whoever has its link: that is how its players find it;
- its players (a seat, or the timeout bot playing for them);
- the people invited to it while their invitation stands, and its creator
  while it waits;
- operators (staff);
- whoever holds its signed watch link (``?key=``).

Everyone else is told there is no such game, exactly as for an unknown id, so
a private game's id reveals nothing. Every route, page, stream, profile,
leaderboard, rating history, email and webhook asks ``may_see`` (one game) or
``visible_games`` (a list), never its own version of this rule.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.core import signing
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils.crypto import constant_time_compare

from games.errors import not_found
from games.models import Game, Seat

_SIGNER = signing.Signer(salt="games.watch")


def watch_key(game: Game) -> str:
    """The key in a private game's watch link: a signature of its id, so it
    needs no storage and cannot be made up."""
    return _SIGNER.signature(str(game.public_id))


def holds_watch_key(game: Game, key: Any) -> bool:
    return isinstance(key, str) and bool(key) and constant_time_compare(key, watch_key(game))


def _table(game: Game, seats: Iterable[Seat] | None) -> Iterable[Seat]:
    """The game's seats: as read with it (``store.load``), or its prefetched ``game.seats``."""
    return game.seats.all() if seats is None else seats


def is_player(game: Game, user: Any, seats: Iterable[Seat] | None = None) -> bool:
    pk = getattr(user, "pk", None)
    return pk is not None and any(seat.user_id == pk for seat in _table(game, seats))


def is_operator(user: Any) -> bool:
    return bool(getattr(user, "is_authenticated", False) and getattr(user, "is_staff", False))


def _waiting(game: Game) -> bool:
    return game.status == Game.Status.LOBBY


def _open_to_anyone(game: Game, seats: Iterable[Seat] | None) -> bool:
    """A waiting game in the lobby, or with a seat for whoever has its link."""
    if not _waiting(game):
        return False
    return game.listed or any(not seat.is_filled and not seat.invited_email for seat in _table(game, seats))


def _is_invited(game: Game, user: Any, seats: Iterable[Seat] | None) -> bool:
    """An invitation stands while its seat is empty and the game waits."""
    email = str(getattr(user, "email", "") or "").lower()
    return (
        bool(email)
        and _waiting(game)
        and any(
            seat.invited_email.lower() == email and seat.user_id is None
            for seat in _table(game, seats)
            if seat.invited_email
        )
    )


def may_see(game: Game, user: Any, key: Any = None, *, seats: Iterable[Seat] | None = None) -> bool:
    """Whether ``user`` (maybe anonymous), holding the watch ``key`` or not,
    may know that ``game`` exists and read its public view. ``seats``: the
    game's, when they were read with it (``store.load``) rather than prefetched."""
    if game.public or _open_to_anyone(game, seats) or holds_watch_key(game, key):
        return True
    if not getattr(user, "is_authenticated", False):
        return False
    if is_player(game, user, seats) or is_operator(user):
        return True
    return (_waiting(game) and game.creator_id == user.pk) or _is_invited(game, user, seats)


def visible_to(game: Game, user: Any, key: Any = None, *, seats: Iterable[Seat] | None = None) -> Game:
    """``game`` if ``user`` may see it (``may_see``); else the unknown game's 404."""
    if not may_see(game, user, key, seats=seats):
        raise not_found()
    return game


def visible_games(games: QuerySet[Game], user: Any) -> QuerySet[Game]:
    """``games`` narrowed to the ones ``user`` may see (``may_see`` without a
    key), for lists: profiles, rating histories, head-to-heads, the lobby."""
    if is_operator(user):
        return games
    open_seat = Seat.objects.filter(game=OuterRef("pk"), user__isnull=True, bot="", invited_email="")
    waiting = Q(status=Game.Status.LOBBY)
    rule: Q = Q(public=True) | (waiting & (Q(listed=True) | Q(Exists(open_seat))))
    if getattr(user, "is_authenticated", False):
        email = str(getattr(user, "email", "") or "")
        seated = Seat.objects.filter(game=OuterRef("pk"), user=user)
        rule |= Q(Exists(seated)) | (waiting & Q(creator=user))
        if email:
            invited = Seat.objects.filter(game=OuterRef("pk"), user__isnull=True, invited_email__iexact=email)
            rule |= waiting & Q(Exists(invited))
    return games.filter(rule)
