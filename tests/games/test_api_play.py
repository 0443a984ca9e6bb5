"""Playing through the real HTTP layer: create, join, start, act, read."""

from __future__ import annotations

from typing import Any

import pytest

from games import services
from games.models import Game, GameEvent

pytestmark = pytest.mark.django_db


def act(client: Any, game: Game, action: Any, version: int | None = None, **headers: Any) -> Any:
    version = game.version if version is None else version
    return client.post(
        f"/api/v1/games/{game.public_id}/actions",
        {"action": action, "expected_version": version},
        format="json",
        **headers,
    )


def test_create_join_start_over_http(alice, bob, client_for):
    a, b = client_for(alice), client_for(bob)
    created = a.post(
        "/api/v1/games",
        {"options": {"players": 2}, "seats": [{"kind": "me"}, {"kind": "invite", "email": bob.email}]},
        format="json",
    )
    assert created.status_code == 201, created.content
    game_id = created.json()["id"]
    assert created.json()["status"] == "lobby"
    assert created.json()["state"] is None

    too_early = a.post(f"/api/v1/games/{game_id}/start")
    assert too_early.status_code == 409
    assert too_early["Content-Type"] == "application/problem+json"
    assert too_early.json()["code"] == "seats_open"

    joined = b.post(f"/api/v1/games/{game_id}/join", {}, format="json")
    assert joined.status_code == 200, joined.content
    assert joined.json()["my_seat"] == 1

    # The last seat taken, the game started by itself.
    started = a.get(f"/api/v1/games/{game_id}")
    assert started.status_code == 200, started.content
    body = started.json()
    assert body["status"] == "active"
    assert body["version"] == 1
    assert len(body["state"]["hand"]) == 4
    assert "draw_pile" not in body["state"]
    assert body["state"]["draw_pile_size"] == 45 - 8


def test_a_human_plays_a_whole_game_against_bots(alice, client_for, bot_game):
    client = client_for(alice)
    for _ in range(400):
        services.play_bot_turns(game_id=bot_game.public_id)
        bot_game.refresh_from_db()
        if bot_game.status == Game.Status.FINISHED:
            break
        legal = client.get(f"/api/v1/games/{bot_game.public_id}/legal-actions").json()
        assert legal["my_turn"], legal
        if legal["selection"]:
            reserve = legal["selection"]["reserve"]
            pieces = [int(s) for s, n in reserve.items() for _ in range(n)][: legal["selection"]["count"]]
            action: Any = {"type": "select", "pieces": pieces}
        else:
            first = legal["placements"][0]
            option = first["options"][0]
            action = f"card {first['card']} city {option['city']} size {option['size']}"
        response = act(client, bot_game, action, version=legal["version"])
        assert response.status_code == 200, response.content
        # The answer carries the events it made as /events gives them: whole, redacted alike.
        logged = client.get(f"/api/v1/games/{bot_game.public_id}/events", {"after": legal["version"]}).json()
        assert response.json()["events"] == logged["events"][: len(response.json()["events"])]
        assert response.json()["events"][0]["seq"] == legal["version"] + 1
    assert bot_game.status == Game.Status.FINISHED
    record = client.get(f"/api/v1/games/{bot_game.public_id}/record")
    assert record.status_code == 200
    assert record.json()["format"] == "manhattan-record/1"
    seqs = list(GameEvent.objects.filter(game=bot_game).values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))


def test_the_reminder_policy_is_chosen_at_creation(alice, client_for):
    created = client_for(alice).post(
        "/api/v1/games",
        {
            "seats": [{"kind": "me"}, {"kind": "bot", "bot": "random"}],
            "reminders": {"first_hours": 12, "every_hours": 24, "timeout_hours": None},
        },
        format="json",
    )
    assert created.status_code == 201, created.content
    body = created.json()
    assert (body["reminder_first_hours"], body["reminder_every_hours"], body["timeout_hours"]) == (12, 24, None)


def test_a_bad_reminder_policy_is_refused(alice, client_for):
    created = client_for(alice).post(
        "/api/v1/games",
        {"seats": [{"kind": "me"}, {"kind": "bot", "bot": "random"}], "reminders": {"first_hours": 0}},
        format="json",
    )
    assert created.status_code == 400
    assert created.json()["code"] == "invalid"


def test_the_answer_of_an_action_carries_whole_events_also_when_replayed(alice, client_for, bot_game):
    client = client_for(alice)
    legal = client.get(f"/api/v1/games/{bot_game.public_id}/legal-actions").json()
    reserve = legal["selection"]["reserve"]
    pieces = [int(s) for s, n in reserve.items() for _ in range(n)][: legal["selection"]["count"]]
    body = {"action": {"type": "select", "pieces": pieces}, "expected_version": legal["version"]}
    url = f"/api/v1/games/{bot_game.public_id}/actions"

    first = client.post(url, body, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    again = client.post(url, body, format="json", HTTP_IDEMPOTENCY_KEY="k-1")

    assert first.status_code == 200, first.content
    events = first.json()["events"]
    assert events[0]["type"] == "pieces_selected"
    assert events[0]["pieces"]  # the body, not only its type (issue 20)
    assert {"seq", "created", "v", "player"} <= set(events[0])
    logged = client.get(f"/api/v1/games/{bot_game.public_id}/events", {"after": legal["version"]}).json()["events"]
    assert events == logged[: len(events)]
    assert again.json() == first.json()
