"""What a move costs the database: the queries of one move (GET legal-actions,
then POST the action), each named and pinned, and none that grows with the
seats or the length of the game."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from accounts.models import User
from games import store
from games.models import Game
from tests.support.api import some_action
from tests.support.queries import statement_names


def _move(client: APIClient, game: Game) -> tuple[list[str], list[str]]:
    url = f"/api/v1/games/{game.public_id}"
    with CaptureQueriesContext(connection) as read:
        legal = client.get(f"{url}/legal-actions")
    assert legal.status_code == 200
    body = {"action": some_action(legal.json()), "expected_version": legal.json()["version"]}
    with CaptureQueriesContext(connection) as move:
        response = client.post(f"{url}/actions", body, format="json")
    assert response.status_code == 200, response.content
    return statement_names(read.captured_queries), statement_names(move.captured_queries)


PASSING_MOVE = [
    "SELECT accounts_apitoken",  # the token and its user
    "BEGIN",  # the move is one transaction
    # The seats and players with their game, locked, and its secret (the seed of chance);
    # and whether any player has a webhook endpoint (none here: the webhooks read nothing more).
    "SELECT games_seat",
    "INSERT games_gameevent",  # the new events, in one statement
    "UPDATE games_game",  # the game's version, phase and turn
    "INSERT notifications_notification",  # the "your turn" email to the next player
    "INSERT notifications_turnclock",  # the next player's reminder clock (an upsert)
    "COMMIT",
]
TRANSACTION = ("BEGIN", "COMMIT")


@pytest.mark.django_db
def test_a_move_reads_and_writes_in_eight_statements_each_needed(
    started_game: Game,
    alice: User,
    bob: User,
    client_for: Callable[[User | None], APIClient],
    django_capture_on_commit_callbacks: Any,
) -> None:
    clients = {alice.pk: client_for(alice), bob.pk: client_for(bob)}
    # Requests commit, and the fold cache remembers a state once it is committed:
    # the callbacks run here as they would after a real commit. A token's first
    # request also writes its last-used time, which is not counted.
    with django_capture_on_commit_callbacks(execute=True):
        for client in clients.values():
            client.get(f"/api/v1/games/{started_game.public_id}/legal-actions")
    seen = []
    for _ in range(12):
        started_game.refresh_from_db()
        seat = started_game.seats.get(index=started_game.to_act_seat)
        with django_capture_on_commit_callbacks(execute=True):
            read, move = _move(clients[seat.user_id], started_game)
        assert read == [
            "SELECT accounts_apitoken",  # the token and its user (authentication)
            "SELECT games_seat",  # the seats and their players with their game: is the caller seated, and where
        ], "the state is this process's latest fold: no event is read"
        assert move in (PASSING_MOVE, [q for q in PASSING_MOVE if q != "INSERT notifications_notification"])
        statements = [q for q in read + move if q not in TRANSACTION]
        assert len(statements) <= 8, "statements that read or write data"
        assert len(read) + len(move) <= 10, "and the write's BEGIN and COMMIT"
        seen.append(move)
    assert PASSING_MOVE in seen, "some move passed the turn to the other player"


@pytest.mark.django_db
def test_a_cold_process_reads_the_log_once(
    started_game: Game, alice: User, client_for: Callable[[User | None], APIClient]
) -> None:
    """Without the fold cache (a new process) a read adds one query for the log, not one per event."""
    client = client_for(alice)
    client.get("/api/v1/me")
    store.states.clear()
    read, _move_queries = _move(client, started_game)
    assert read.count("SELECT games_gameevent") == 1
    assert len(read) == 3


@pytest.mark.django_db
def test_seats_and_events_are_never_sorted_by_their_game(
    started_game: Game, alice: User, client_for: Callable[[User | None], APIClient]
) -> None:
    """Ordering them by the relation "game" instead of "game_id" would join games_game to
    sort by the game's own ordering. (A move reads the seats with their game on purpose:
    that join selects the game, and the order stays the seat's own columns.)"""
    client = client_for(alice)
    store.states.clear()
    url = f"/api/v1/games/{started_game.public_id}"
    with CaptureQueriesContext(connection) as queries:
        legal = client.get(f"{url}/legal-actions").json()
        client.post(
            f"{url}/actions", {"action": some_action(legal), "expected_version": legal["version"]}, format="json"
        )
        client.get(f"{url}/events")
    for query in queries.captured_queries:
        if re.search(r'FROM "games_(seat|gameevent)"', query["sql"]):
            order = query["sql"].partition(" ORDER BY ")[2].partition(" FOR UPDATE")[0]
            assert '"games_game"' not in order, query["sql"]


@pytest.mark.django_db
def test_an_idempotency_key_adds_its_receipt_and_the_answer_is_built_after_the_commit(
    started_game: Game,
    alice: User,
    client_for: Callable[[User | None], APIClient],
    django_capture_on_commit_callbacks: Any,
) -> None:
    """The key is checked and its receipt written inside the move's transaction, under the
    game's lock; nothing is read after the COMMIT: the answer is built from what the move holds."""
    client = client_for(alice)
    url = f"/api/v1/games/{started_game.public_id}"
    with django_capture_on_commit_callbacks(execute=True):
        legal = client.get(f"{url}/legal-actions").json()
    body = {"action": some_action(legal), "expected_version": legal["version"]}
    with django_capture_on_commit_callbacks(execute=True), CaptureQueriesContext(connection) as move:
        response = client.post(f"{url}/actions", body, format="json", HTTP_IDEMPOTENCY_KEY="once")
    assert response.status_code == 200, response.content
    named = statement_names(move.captured_queries)
    assert named[:5] == [
        "SELECT accounts_apitoken",
        "BEGIN",
        "SELECT games_seat",
        "SELECT games_idempotencykey",  # a repeat? (under the lock: a racing repeat waits, then finds it)
        "INSERT games_gameevent",
    ]
    assert "INSERT games_idempotencykey" in named
    assert named[-1] == "COMMIT"
    with CaptureQueriesContext(connection) as again:
        repeat = client.post(f"{url}/actions", body, format="json", HTTP_IDEMPOTENCY_KEY="once")
    assert repeat.json() == response.json()
    assert not any(name.startswith(("INSERT", "UPDATE")) for name in statement_names(again.captured_queries))


@pytest.mark.django_db
def test_the_table_comes_in_seat_order_though_the_database_sorts_nothing(started_game: Game) -> None:
    """The read has no ORDER BY (cheaper to compile); the seats are sorted after it. Seat 0
    stored again after seat 1 (a later row in every index) still comes first."""
    first = started_game.seats.get(index=0)
    first.delete()
    first.pk = None
    first.save()
    with CaptureQueriesContext(connection) as queries:
        table = store.load(started_game.public_id, fold=False)
    assert [seat.index for seat in table.seats] == [0, 1]
    assert " ORDER BY " not in queries.captured_queries[0]["sql"]
