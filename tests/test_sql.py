"""The hand-written reads of the hot path (``manhattan_site.sql``) return what
their ORM queries return, field for field, on SQLite and on PostgreSQL."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.db.models import Model
from django.utils import timezone

from accounts.models import ApiToken, User
from accounts.services import create_api_token, find_active_token, revoke_api_token
from games import reads, services
from games.errors import NotFound
from games.models import Game, GameEvent, GameSecret
from manhattan_site import sql

from .concurrent import race
from .notifications.helpers import play_until

pytestmark = pytest.mark.django_db


def fields_of(instance: Model) -> dict[str, Any]:
    return {field.attname: getattr(instance, field.attname) for field in type(instance)._meta.concrete_fields}


def test_a_token_and_its_user_are_read_as_the_orm_reads_them(
    make_user: Callable[..., User], django_assert_num_queries: Any
) -> None:
    # Booleans, datetimes and empty strings: what SQLite stores differently.
    user = make_user("Carol@example.com", display_name="Carol", is_staff=True, last_login=timezone.now())
    new = create_api_token(user=user, name="cli")
    ApiToken.objects.filter(pk=new.token.pk).update(last_used=timezone.now() - timedelta(days=2))
    expected = ApiToken.objects.select_related("user").get(pk=new.token.pk)

    found = find_active_token(new.token.token_hash)

    assert found is not None
    assert fields_of(found) == fields_of(expected)
    assert fields_of(found.user) == fields_of(expected.user)
    assert not found._state.adding
    assert found._state.db == expected._state.db
    with django_assert_num_queries(0):
        assert found.user.email == user.email


def test_a_revoked_or_unknown_token_is_not_found(alice: User) -> None:
    new = create_api_token(user=alice, name="cli")
    revoke_api_token(token=new.token)
    assert find_active_token(new.token.token_hash) is None
    assert find_active_token("0" * 64) is None


def test_a_game_and_my_seat_are_read_as_the_orm_reads_them(started_game: Game, alice: User, bob: User) -> None:
    expected = Game.objects.get(pk=started_game.pk)

    game, seat = services.game_and_seat_index(str(started_game.public_id), bob)

    assert fields_of(game) == fields_of(expected)
    assert isinstance(game.options, dict)
    assert isinstance(game.public_id, uuid.UUID)
    assert seat == started_game.seats.get(user=bob).index == 1
    assert services.game_and_seat_index(started_game.public_id, alice)[1] == 0


def test_a_stranger_has_no_seat_and_an_unknown_game_is_not_found(started_game: Game, stranger: User) -> None:
    assert services.game_and_seat_index(started_game.public_id, stranger)[1] is None
    for bad in (str(uuid.uuid4()), "not-a-uuid", "1" * 40, ""):
        with pytest.raises(NotFound):
            services.game_and_seat_index(bad, stranger)


def test_the_locked_game_is_read_with_its_secret(started_game: Game) -> None:
    expected = Game.objects.select_related("secret").get(pk=started_game.pk)
    with transaction.atomic():
        game = reads.locked_game(started_game.public_id)
    assert game is not None
    assert fields_of(game) == fields_of(expected)
    assert fields_of(game.secret) == fields_of(expected.secret)
    assert reads.locked_game(uuid.uuid4()) is None


def test_a_lobby_game_has_no_secret_as_with_the_orm(alice: User) -> None:
    lobby = services.create_game(
        creator=alice, options={"players": 2}, seats=[services.SeatSpec("me"), services.SeatSpec("open")]
    )
    with transaction.atomic():
        game = reads.locked_game(lobby.public_id)
    assert game is not None
    assert game.status == Game.Status.LOBBY
    with pytest.raises(GameSecret.DoesNotExist):
        game.secret  # noqa: B018 — the access is the test


def test_event_payloads_are_read_as_the_orm_reads_them(started_game: Game) -> None:
    play_until(started_game, lambda g: g.version >= 4)
    game = Game.objects.get(pk=started_game.pk)
    every = list(GameEvent.objects.filter(game=game).order_by("seq").values_list("payload", flat=True))
    assert every
    assert isinstance(every[0], dict)
    assert reads.event_payloads(game.pk, after=0, upto=None) == every
    assert reads.event_payloads(game.pk, after=1, upto=None) == every[1:]
    assert reads.event_payloads(game.pk, after=0, upto=1) == every[:1]
    assert reads.event_payloads(game.pk, after=game.version, upto=None) == []


@pytest.mark.postgres  # row locks: SQLite serialises whole transactions instead
@pytest.mark.django_db(transaction=True)
def test_the_locked_game_stays_locked_until_the_transaction_ends(alice: User) -> None:
    game = services.create_game(
        creator=alice, options={"players": 2}, seats=[services.SeatSpec("me"), services.SeatSpec("open")]
    )

    def try_lock() -> bool:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SELECT id FROM games_game WHERE id = %s FOR UPDATE SKIP LOCKED", [game.pk])
            return cursor.fetchone() is not None

    with transaction.atomic():
        assert reads.locked_game(game.public_id) is not None
        assert race([try_lock]) == [False]
    assert race([try_lock]) == [True]


def test_seats_and_their_users_are_read_as_the_orm_reads_them(lobby_game: Game, bob: User) -> None:
    game = lobby_game
    services.join_game(game=game, user=bob)
    expected = list(game.seats.select_related("user").order_by("index"))

    seats = reads.seats_with_users(game)

    assert [fields_of(s) for s in seats] == [fields_of(s) for s in expected]
    assert [s.user and fields_of(s.user) for s in seats] == [s.user and fields_of(s.user) for s in expected]
    assert [s.user for s in seats][2:] == [None, None]
    assert all(s.game is game for s in seats)


def test_with_seats_answers_every_later_read_of_the_seats_from_memory(
    started_game: Game, bob: User, django_assert_num_queries: Any
) -> None:
    game = Game.objects.get(pk=started_game.pk)
    with django_assert_num_queries(1):
        services.with_seats(game)
    with django_assert_num_queries(0):
        assert [s.index for s in game.seats.all()] == [0, 1]
        assert services.seat_of(game, bob) is game.seats.all()[1]
        assert game.seats.all()[0].user.email == "alice@example.com"
    # Anything but .all() is a query of its own, as after prefetch_related.
    with django_assert_num_queries(1):
        assert game.seats.filter(index=1).get().user_id == bob.pk


def test_an_insert_writes_the_rows_bulk_create_writes(started_game: Game, alice: User) -> None:
    now = timezone.now()

    def events(first: int) -> list[GameEvent]:
        payloads = [{"type": "note", "text": "é ✓", "n": [1, None]}, {"type": "note", "ok": True}]
        return [
            GameEvent(game=started_game, seq=first + i, type=p["type"], payload=p, seat=1, actor=alice, created=now)
            for i, p in enumerate(payloads)
        ]

    sql.insert(connection, events(100))
    GameEvent.objects.bulk_create(events(200))

    def rows(low: int) -> list[dict[str, Any]]:
        found = GameEvent.objects.filter(game=started_game, seq__gte=low, seq__lt=low + 100).order_by("seq")
        return [{k: v for k, v in fields_of(e).items() if k not in ("id", "seq")} for e in found]

    assert rows(100) == rows(200)
    assert len(rows(100)) == 2


def test_an_insert_that_breaks_a_constraint_raises_integrity_error(started_game: Game) -> None:
    taken = GameEvent.objects.filter(game=started_game).first()
    assert taken is not None
    with pytest.raises(IntegrityError), transaction.atomic():
        sql.insert(connection, [GameEvent(game=started_game, seq=taken.seq, type="x", payload={})])


def test_an_update_writes_only_the_named_fields_and_the_auto_now_time(started_game: Game) -> None:
    game = Game.objects.get(pk=started_game.pk)
    before = game.updated
    Game.objects.filter(pk=game.pk).update(options={"players": 2, "changed": "elsewhere"})
    game.version, game.phase, game.turn_since = 77, "placement", None
    game.options = {"stale": True}  # not named: must not be written

    sql.update(connection, game, ["version", "phase", "turn_since", "updated"])

    stored = Game.objects.get(pk=game.pk)
    assert (stored.version, stored.phase, stored.turn_since) == (77, "placement", None)
    assert stored.options == {"players": 2, "changed": "elsewhere"}
    assert stored.updated == game.updated
    assert stored.updated > before


def test_an_update_of_a_missing_row_raises(started_game: Game) -> None:
    game = Game.objects.get(pk=started_game.pk)
    game.pk = 10**9
    with pytest.raises(DatabaseError):
        sql.update(connection, game, ["version"])
