"""Retries, caching and reading a game step by step over the API.

Idempotency-Key makes a retried action safe; ETag/If-None-Match saves
re-reading an unchanged game; filters, paging by ``after`` and the replay
states let a client follow a game; the record of a finished game is the
engine's record of the stored log.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from rest_framework.test import APIClient

from games import engine, services
from games.models import Game, GameEvent, IdempotencyKey
from tests.factories import open_game, play_to_end, two_player_game
from tests.support.api import event_count, legal_body

pytestmark = pytest.mark.django_db

API = "/api/v1"


def payloads(game: Game) -> list[dict[str, Any]]:
    return list(GameEvent.objects.filter(game=game).order_by("seq").values_list("payload", flat=True))


def as_json(data: Any) -> Any:
    """What ``data`` looks like after a trip through JSON (int keys become strings)."""
    return json.loads(json.dumps(data))


def post(client: APIClient, game: Game, body: Any, **headers: Any) -> Any:
    return client.post(f"{API}/games/{game.public_id}/actions", body, format="json", **headers)


# --- Idempotency-Key ------------------------------------------------------------------------


def test_same_key_and_body_replays_the_stored_response(api, alice, started_game):
    client = api(alice)
    body = legal_body(client, started_game)

    first = post(client, started_game, body, HTTP_IDEMPOTENCY_KEY="move-1")
    assert first.status_code == 200, first.content
    events = event_count(started_game)
    started_game.refresh_from_db()
    version = started_game.version

    again = post(client, started_game, body, HTTP_IDEMPOTENCY_KEY="move-1")
    assert again.status_code == 200, again.content
    assert again.json() == first.json()
    assert again["ETag"] == first["ETag"] == f'"{version}"'
    assert event_count(started_game) == events
    started_game.refresh_from_db()
    assert started_game.version == version
    assert IdempotencyKey.objects.filter(user=alice, game=started_game).count() == 1


def test_a_retry_after_the_game_moved_on_still_gets_the_stored_response(api, alice, bob, started_game):
    clients = {0: api(alice), 1: api(bob)}
    body = legal_body(clients[0], started_game)
    first = post(clients[0], started_game, body, HTTP_IDEMPOTENCY_KEY="slow-network")
    assert first.status_code == 200, first.content
    # Someone moves on before alice's retry arrives.
    started_game.refresh_from_db()
    mover = clients[started_game.to_act_seat]
    assert post(mover, started_game, legal_body(mover, started_game)).status_code == 200
    events = event_count(started_game)

    retry = post(clients[0], started_game, body, HTTP_IDEMPOTENCY_KEY="slow-network")
    assert retry.status_code == 200
    assert retry.json() == first.json()
    assert event_count(started_game) == events


def test_same_key_with_another_body_is_refused(api, alice, started_game):
    client = api(alice)
    body = legal_body(client, started_game)
    assert post(client, started_game, body, HTTP_IDEMPOTENCY_KEY="k").status_code == 200
    events = event_count(started_game)
    started_game.refresh_from_db()

    other = {**body, "expected_version": started_game.version}
    response = post(client, started_game, other, HTTP_IDEMPOTENCY_KEY="k")
    assert response.status_code == 422, response.content
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["code"] == "idempotency_key_reused"
    assert event_count(started_game) == events


def test_different_keys_are_processed_separately(api, alice, started_game):
    client = api(alice)
    body = legal_body(client, started_game)
    assert post(client, started_game, body, HTTP_IDEMPOTENCY_KEY="a").status_code == 200
    events = event_count(started_game)

    # The same body under a new key is a new request: at an old version, it is stale.
    stale = post(client, started_game, body, HTTP_IDEMPOTENCY_KEY="b")
    assert stale.status_code == 409, stale.content
    assert stale.json()["code"] == "stale_version"
    assert event_count(started_game) == events
    # A refused request stores nothing: key "b" is still free for a good request.
    # Alice selects for her second colour now.
    fresh = legal_body(client, started_game)
    assert fresh["expected_version"] == body["expected_version"] + 1
    done = post(client, started_game, fresh, HTTP_IDEMPOTENCY_KEY="b")
    assert done.status_code == 200, done.content
    assert done.json() != stale.json()
    assert event_count(started_game) > events
    assert set(IdempotencyKey.objects.filter(user=alice).values_list("key", flat=True)) == {"a", "b"}


def test_a_key_is_scoped_to_its_user(api, alice, bob, started_game):
    clients = {0: api(alice), 1: api(bob)}
    # Alice selects for both her colours, the first time with the key "shared".
    first = post(clients[0], started_game, legal_body(clients[0], started_game), HTTP_IDEMPOTENCY_KEY="shared")
    assert first.status_code == 200
    assert post(clients[0], started_game, legal_body(clients[0], started_game)).status_code == 200
    started_game.refresh_from_db()
    assert started_game.to_act_seat == 1
    events = event_count(started_game)
    # Bob's request with the same key value is his own, not a replay of alice's.
    response = post(clients[1], started_game, legal_body(clients[1], started_game), HTTP_IDEMPOTENCY_KEY="shared")
    assert response.status_code == 200, response.content
    assert response.json()["game"]["my_seat"] == 1
    assert response.json() != first.json()
    assert event_count(started_game) > events
    assert IdempotencyKey.objects.filter(key="shared").count() == 2


def test_a_key_is_scoped_to_its_game(api, alice, bob, started_game):
    other = two_player_game(alice, bob)
    client = api(alice)
    first = post(client, started_game, legal_body(client, started_game), HTTP_IDEMPOTENCY_KEY="same")
    second = post(client, other, legal_body(client, other), HTTP_IDEMPOTENCY_KEY="same")
    assert first.status_code == second.status_code == 200
    assert first.json()["game"]["id"] == str(started_game.public_id)
    assert second.json()["game"]["id"] == str(other.public_id)
    assert event_count(other) > 1


def test_without_a_key_a_repeat_is_just_stale(api, alice, started_game):
    client = api(alice)
    body = legal_body(client, started_game)
    assert post(client, started_game, body).status_code == 200
    events = event_count(started_game)
    again = post(client, started_game, body)
    assert again.status_code == 409
    assert again.json()["code"] == "stale_version"
    assert event_count(started_game) == events


# --- ETag and If-None-Match ---------------------------------------------------------------------


def test_etag_and_if_none_match(api, alice, started_game):
    client = api(alice)
    url = f"{API}/games/{started_game.public_id}"
    first = client.get(url)
    etag = first["ETag"]
    assert etag == f'"{started_game.version}"'

    cached = client.get(url, HTTP_IF_NONE_MATCH=etag)
    assert cached.status_code == 304
    assert cached.content == b""
    assert cached["ETag"] == etag

    assert client.get(url, HTTP_IF_NONE_MATCH='"0"').status_code == 200

    acted = post(client, started_game, legal_body(client, started_game))
    assert acted.status_code == 200
    started_game.refresh_from_db()
    assert acted["ETag"] == f'"{started_game.version}"'
    fresh = client.get(url, HTTP_IF_NONE_MATCH=etag)
    assert fresh.status_code == 200
    assert fresh["ETag"] == acted["ETag"] != etag


def test_a_304_carries_the_vary_of_the_200(api, alice, started_game):
    """RFC 9110 §15.4.5: a 304 must carry the Vary (and ETag) a 200 would have
    carried; without Vary a shared cache may mix up players' views."""
    client = api(alice)
    url = f"{API}/games/{started_game.public_id}"
    first = client.get(url)
    varies = {v.strip().lower() for v in first["Vary"].split(",")}
    assert {"authorization", "cookie"} <= varies
    cached = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert cached.status_code == 304
    assert cached.get("Vary") == first["Vary"]


def test_the_actions_etag_is_the_next_if_match(api, alice, started_game):
    client = api(alice)
    acted = post(client, started_game, legal_body(client, started_game))
    assert acted.status_code == 200
    started_game.refresh_from_db()
    assert started_game.to_act_seat == 0  # alice selects for her second colour
    body = legal_body(client, started_game)
    del body["expected_version"]
    again = post(client, started_game, body, HTTP_IF_MATCH=acted["ETag"])
    assert again.status_code == 200, again.content


def test_etag_changes_when_someone_joins_a_lobby_game(api, alice, bob):
    """A lobby game's ETag is built from its ``updated`` time, but joining
    does not save the game: the ETag must still change when a seat is taken."""
    game = open_game(alice)
    client = api(alice)
    url = f"{API}/games/{game.public_id}"
    before = client.get(url)
    assert before.json()["seats"][1]["player"] is None

    joined = api(bob).post(f"{url}/join", {}, format="json")
    assert joined.status_code == 200

    after = client.get(url, HTTP_IF_NONE_MATCH=before["ETag"])
    assert after.status_code == 200, "a stale ETag hid bob's arrival"
    assert after.json()["seats"][1]["player"] == "bob"
    assert after["ETag"] != before["ETag"]


def test_etag_changes_when_a_game_is_abandoned(api, alice, make_user, started_game):
    client = api(alice)
    url = f"{API}/games/{started_game.public_id}"
    etag = client.get(url)["ETag"]
    services.abandon_game(game=started_game, operator=make_user(is_staff=True))
    response = client.get(url, HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 200
    assert response.json()["status"] == "abandoned"
    assert response["ETag"] != etag
    assert client.get(url, HTTP_IF_NONE_MATCH=response["ETag"]).status_code == 304


# --- filters --------------------------------------------------------------------------------------


def test_status_and_my_turn_filters(api, alice, bob, make_user, started_game):
    lobby = open_game(alice)
    gone = services.create_game(
        creator=bob,
        options={"players": 2, "start_player": 1},
        seats=[services.SeatSpec("invite", email=alice.email), services.SeatSpec("me")],
    )
    services.join_game(game=gone, user=alice)
    waiting = services.create_game(
        creator=bob,
        options={"players": 2, "start_player": 1},
        seats=[services.SeatSpec("invite", email=alice.email), services.SeatSpec("me")],
    )
    services.join_game(game=waiting, user=alice)
    services.abandon_game(game=gone, operator=make_user(is_staff=True))
    a, b = api(alice), api(bob)

    def ids(client: APIClient, **params: str) -> set[str]:
        response = client.get(f"{API}/games", params)
        assert response.status_code == 200, response.content
        return {g["id"] for g in response.json()}

    everything = {str(g.public_id) for g in (lobby, gone, waiting, started_game)}
    assert ids(a) == everything
    assert ids(a, status="lobby") == {str(lobby.public_id)}
    assert ids(a, status="active") == {str(started_game.public_id), str(waiting.public_id)}
    assert ids(a, status="abandoned") == {str(gone.public_id)}
    assert ids(a, status="finished") == set()
    assert ids(a, my_turn="true") == {str(started_game.public_id)}
    assert ids(a, my_turn="1", status="active") == {str(started_game.public_id)}
    assert ids(a, my_turn="false") == everything
    assert ids(b, my_turn="true") == {str(waiting.public_id)}
    listed = {g["id"]: g for g in a.get(f"{API}/games").json()}
    assert listed[str(started_game.public_id)]["my_turn"] is True
    assert listed[str(waiting.public_id)]["my_turn"] is False
    assert listed[str(gone.public_id)]["my_turn"] is False


# --- paging events, replay states, the record ---------------------------------------------------


def test_events_after_pages_through_the_log(api, alice, bot_game):
    client = api(alice)
    url = f"{API}/games/{bot_game.public_id}/events"
    services.play_bot_turns(game_id=bot_game.public_id)
    assert post(client, bot_game, legal_body(client, bot_game)).status_code == 200
    services.play_bot_turns(game_id=bot_game.public_id)
    bot_game.refresh_from_db()
    version = bot_game.version
    assert version > 3

    everything = client.get(url).json()
    assert everything["version"] == version
    assert [e["seq"] for e in everything["events"]] == list(range(1, version + 1))
    assert client.get(url, {"after": 0}).json() == everything

    seen: list[dict[str, Any]] = []
    after = 0
    while True:
        page = client.get(url, {"after": after}).json()
        assert page["version"] == version
        if not page["events"]:
            break
        first = page["events"][0]
        assert first["seq"] == after + 1
        seen.append(first)  # one event at a time, as a slow client would
        after = first["seq"]
    assert seen == everything["events"]
    assert client.get(url, {"after": version}).json()["events"] == []
    assert client.get(url, {"after": version + 100}).json()["events"] == []
    assert [e["seq"] for e in client.get(url, {"after": 2}).json()["events"]] == list(range(3, version + 1))


def test_states_are_the_public_replay_of_the_log(api, alice, bob, started_game):
    client = api(alice)
    assert post(client, started_game, legal_body(client, started_game)).status_code == 200
    started_game.refresh_from_db()
    log = payloads(started_game)
    for n in range(1, started_game.version + 1):
        response = client.get(f"{API}/games/{started_game.public_id}/states/{n}")
        assert response.status_code == 200, response.content
        body = response.json()
        assert body["n"] == n
        assert body["version"] == started_game.version
        assert body["state"]["hand"] is None
        assert body["state"]["version"] == n
        assert body["state"] == as_json(engine.spectator_view(engine.fold(log[:n])).to_json())


def test_record_of_a_finished_game_is_the_engines_record(api, alice, bot_game):
    client = api(alice)
    play_to_end(bot_game, alice)
    bot_game.refresh_from_db()
    assert bot_game.status == Game.Status.FINISHED

    response = client.get(f"{API}/games/{bot_game.public_id}/record")
    assert response.status_code == 200, response.content
    assert response.json() == as_json(engine.game_record(payloads(bot_game)))
    assert response.json()["format"] == "manhattan-record/1"

    # The finished game is listed as such, and nobody's turn.
    listed = client.get(f"{API}/games", {"status": "finished"}).json()
    assert [g["id"] for g in listed] == [str(bot_game.public_id)]
    assert client.get(f"{API}/games", {"my_turn": "true"}).json() == []
    # A finished game takes no more actions.
    refused = post(client, bot_game, {"action": "resign", "expected_version": bot_game.version})
    assert refused.status_code == 409
    assert refused.json()["code"] == "game_finished"
