"""The game reads of every move and every legal-actions request, as SQL.

Each stands for one ORM query (named in its docstring) and returns what that
query returns; ``manhattan_site.sql`` says why they are written out and how
they stay equal to the models. Only the hot path is here: everything else
reads through the ORM.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from django.db import connections
from django.db.backends.base.base import BaseDatabaseWrapper

from accounts.models import User
from games.engine import Event
from manhattan_site.sql import Columns, connection_for_read, connection_for_write, joined_select

from .models import Game, GameEvent, GameSecret, Seat

_GAME = Columns(Game, "g")
_SEAT = Columns(Seat, "s")
_PLAYER = Columns(User, "u")
_SECRET = Columns(GameSecret, "k")
_SEAT_INDEX = Columns(Seat, "s", only=["index"])
_PAYLOAD = Columns(GameEvent, "e", only=["payload"])
_PUBLIC_ID = Game._meta.get_field("public_id")


def _public_id(connection: BaseDatabaseWrapper, public_id: Any) -> Any:
    """``public_id`` as the database stores it; raises ``ValidationError``
    (or ``ValueError``/``TypeError``) for anything that is not a UUID."""
    return _PUBLIC_ID.get_db_prep_value(public_id, connection, prepared=False)


@cache
def _game_and_seat_sql(alias: str) -> str:
    c = connections[alias]
    return (
        joined_select(c, _GAME, _SEAT_INDEX, ("pk", "game"))
        + f" AND {_SEAT_INDEX.column(c, 'user')} = %s"
        + f" WHERE {_GAME.column(c, 'public_id')} = %s ORDER BY {_SEAT_INDEX.column(c, 'index')}"
    )


def game_and_seat_index(public_id: Any, user_id: int | None) -> tuple[Game, int | None] | None:
    """The game and the number of ``user_id``'s seat in it (``None`` if they
    have none) in one query: ``Game.objects.get(public_id=…)`` and
    ``game.seats.filter(user=…).values_list("index").first()``.
    ``None`` if there is no such game."""
    connection = connection_for_read(Game)
    with connection.cursor() as cursor:
        cursor.execute(_game_and_seat_sql(connection.alias), [user_id, _public_id(connection, public_id)])
        row = cursor.fetchone()
    if row is None:
        return None
    return _GAME.build(connection, row[: len(_GAME)]), row[len(_GAME)]


@cache
def _locked_game_sql(alias: str) -> str:
    c = connections[alias]
    lock = ""
    if c.features.has_select_for_update:
        # Only the game row: the secret may not exist yet, and PostgreSQL
        # refuses to lock the null side of an outer join.
        lock = f" FOR UPDATE OF {c.ops.quote_name('g')}" if c.features.has_select_for_update_of else " FOR UPDATE"
    return joined_select(c, _GAME, _SECRET, ("pk", "game")) + f" WHERE {_GAME.column(c, 'public_id')} = %s{lock}"


def locked_game(public_id: Any) -> Game | None:
    """The game, its row locked until the transaction ends, with its secret
    (``select_for_update(of=("self",)).select_related("secret").get(public_id=…)``).
    ``None`` if there is no such game."""
    connection = connection_for_write(Game)
    with connection.cursor() as cursor:
        cursor.execute(_locked_game_sql(connection.alias), [_public_id(connection, public_id)])
        row = cursor.fetchone()
    if row is None:
        return None
    game = _GAME.build(connection, row[: len(_GAME)])
    secret = row[len(_GAME) :]
    game.secret = _SECRET.build(connection, secret) if secret[0] is not None else None
    return game


@cache
def _seats_sql(alias: str) -> str:
    c = connections[alias]
    return (
        joined_select(c, _SEAT, _PLAYER, ("user", "pk"))
        + f" WHERE {_SEAT.column(c, 'game')} = %s ORDER BY {_SEAT.column(c, 'index')}"
    )


def seats_with_users(game: Game) -> list[Seat]:
    """The game's seats in order, each with its user (or ``None``) and its
    game set: ``game.seats.select_related("user")``."""
    connection = connection_for_read(Seat)
    with connection.cursor() as cursor:
        cursor.execute(_seats_sql(connection.alias), [game.pk])
        rows = cursor.fetchall()
    seats = []
    for row in rows:
        seat = _SEAT.build(connection, row[: len(_SEAT)])
        player = row[len(_SEAT) :]
        seat.user = _PLAYER.build(connection, player) if player[0] is not None else None
        seat.game = game
        seats.append(seat)
    return seats


@cache
def _payloads_sql(alias: str, upto: bool) -> str:
    c = connections[alias]
    seq = _PAYLOAD.column(c, "seq")
    bound = f" AND {seq} <= %s" if upto else ""
    return (
        f"SELECT {_PAYLOAD.select(c)} FROM {_PAYLOAD.table(c)}"
        f" WHERE {_PAYLOAD.column(c, 'game')} = %s AND {seq} > %s{bound} ORDER BY {seq}"
    )


def event_payloads(game_id: int, *, after: int, upto: int | None) -> list[Event]:
    """The payloads of the game's events ``after`` < seq <= ``upto``, in order
    (``GameEvent.objects.filter(…).values_list("payload", flat=True)``)."""
    connection = connection_for_read(GameEvent)
    params = [game_id, after] if upto is None else [game_id, after, upto]
    with connection.cursor() as cursor:
        cursor.execute(_payloads_sql(connection.alias, upto is not None), params)
        rows = cursor.fetchall()
    return [_PAYLOAD.convert(connection, row)[0] for row in rows]
