"""Races with real threads and real database connections.

On PostgreSQL the game row lock serialises writers; on SQLite the IMMEDIATE
transaction mode does. Either way exactly one of several clients acting at
the same version wins, and the log never has a gap or a duplicate.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import pytest
from rest_framework.test import APIClient

from games import services
from games.models import Game, GameEvent
from tests.support.concurrency import race

pytestmark = pytest.mark.django_db(transaction=True)


def selection_body(client: APIClient, game: Game) -> dict[str, Any]:
    legal = client.get(f"/api/v1/games/{game.public_id}/legal-actions").json()
    reserve = legal["selection"]["reserve"]
    pieces = [int(s) for s, n in reserve.items() for _ in range(n)][: legal["selection"]["count"]]
    return {"action": {"type": "select", "pieces": pieces}, "expected_version": legal["version"]}


def assert_log_is_contiguous(game: Game) -> None:
    game.refresh_from_db()
    seqs = list(GameEvent.objects.filter(game=game).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, game.version + 1))


def test_two_clients_at_the_same_version_exactly_one_wins(alice, bob, client_for, started_game):
    # Alice holds two connections (say, a phone and a laptop) and both send her move.
    clients = [client_for(alice) for _ in range(4)]
    body = selection_body(clients[0], started_game)
    url = f"/api/v1/games/{started_game.public_id}/actions"

    responses = race([partial(c.post, url, body, format="json") for c in clients])

    statuses = sorted(r.status_code for r in responses)
    assert statuses.count(200) == 1, [r.content for r in responses]
    assert all(s == 409 for s in statuses if s != 200)
    assert all(r.json()["code"] == "stale_version" for r in responses if r.status_code == 409)
    assert_log_is_contiguous(started_game)
    assert started_game.version == body["expected_version"] + 1


def test_idempotent_retries_racing_each_other_add_one_event(alice, client_for, started_game):
    clients = [client_for(alice) for _ in range(4)]
    body = selection_body(clients[0], started_game)
    url = f"/api/v1/games/{started_game.public_id}/actions"

    responses = race([partial(c.post, url, body, format="json", HTTP_IDEMPOTENCY_KEY="retry-1") for c in clients])

    # Every retry gets the stored success; only one event was added.
    assert [r.status_code for r in responses] == [200] * 4, [r.content for r in responses]
    assert all(r.json() == responses[0].json() for r in responses)
    assert_log_is_contiguous(started_game)
    assert started_game.version == body["expected_version"] + 1


def test_a_bot_task_racing_a_human_move_keeps_the_log_whole(alice, client_for, bot_game):
    """Alice selects while a (redundant) bot task runs: both serialise on the game."""
    client = client_for(alice)
    body = selection_body(client, bot_game)
    url = f"/api/v1/games/{bot_game.public_id}/actions"

    human, _ = race(
        [lambda: client.post(url, body, format="json"), lambda: services.play_bot_turns(game_id=bot_game.public_id)]
    )

    assert human.status_code == 200, human.content
    services.play_bot_turns(game_id=bot_game.public_id)  # whatever the first task did not get to
    assert_log_is_contiguous(bot_game)
    # Selections by the three bots follow alice's, so the game is back at her turn to place.
    assert bot_game.phase == "placement"
    assert bot_game.to_act_seat == 0


def test_people_asking_to_play_now_at_the_same_moment_share_one_game(make_user, client_for):
    users = [make_user() for _ in range(4)]
    body = {"players": 4, "pace": "fast"}
    calls = [partial(client_for(user).post, "/api/v1/lobby/play-now", body, format="json") for user in users]

    responses = race(calls)

    assert sorted(r.status_code for r in responses) == [200, 200, 200, 201], [r.content for r in responses]
    assert len({r.json()["game"]["id"] for r in responses}) == 1, "one game, not one each"
    game = Game.objects.get()
    assert game.status == Game.Status.ACTIVE  # the fourth seat filled it


def test_a_double_click_on_play_now_opens_one_game(alice, client_for):
    clients = [client_for(alice) for _ in range(3)]
    calls = [partial(c.post, "/api/v1/lobby/play-now", {"players": 2}, format="json") for c in clients]

    responses = race(calls)

    assert sorted(r.status_code for r in responses) == [200, 200, 201]
    assert Game.objects.count() == 1
