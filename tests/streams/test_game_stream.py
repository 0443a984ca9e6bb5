"""GET /api/v1/games/{id}/stream through a live ASGI server and a real SSE client."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from games import store
from games.models import Game
from tests.factories import play_one
from tests.support.api import token
from tests.support.waiting import wait_until, within


def drain(stream) -> None:
    """Read until the stream ends (the assertion of ``next``) or 5 s pass."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        stream.next(timeout=5)


def api_events(server, game, user, after=0) -> list[dict[str, Any]]:
    response = httpx.get(f"{server.url}/api/v1/games/{game.public_id}/events?after={after}", headers=token(user))
    assert response.status_code == 200
    return list(response.json()["events"])


def test_the_stream_replays_then_follows_each_move_as_the_events_endpoint_shows_it(
    asgi_server, sse, started_game, alice, bob
):
    url = f"{asgi_server.url}/api/v1/games/{started_game.public_id}/stream"
    stream = sse(url, **token(bob))
    assert stream.status == 200
    assert stream.content_type.startswith("text/event-stream")
    replayed = [stream.next() for _ in range(started_game.version)]
    assert [e.id for e in replayed] == [str(n) for n in range(1, started_game.version + 1)]

    before = started_game.version
    started = time.monotonic()
    play_one(started_game, alice)
    live = stream.next(timeout=2)
    assert time.monotonic() - started < within(1.0)
    assert live.id == str(before + 1)
    # Exactly what /events says to bob, byte for byte once parsed.
    assert [e.data for e in replayed] + [live.data] == api_events(asgi_server, started_game, bob)


def test_other_hands_never_reach_the_stream(asgi_server, sse, started_game, alice, bob):
    stream = sse(f"{asgi_server.url}/api/v1/games/{started_game.public_id}/stream", **token(bob))
    created = stream.next()
    assert created.data["type"] == "game_created"
    hands = created.data["hands"]
    bob_seat = store.load(started_game.public_id).seat_of(bob).index
    assert hands[bob_seat] is not None
    assert all(hand is None for seat, hand in enumerate(hands) if seat != bob_seat)
    assert "draw_pile" not in created.data
    for _ in range(started_game.version - 1):
        stream.next()
    for _ in range(4):  # alice's moves: her draws stay hers
        game = store.get(started_game.public_id)
        mover = alice if game.to_act_seat != bob_seat else bob
        play_one(game, mover)
        event = stream.next(timeout=2)
        if event.data.get("player") not in (None, bob_seat) and "drew" in event.data:
            assert event.data["drew"] is None
    assert "seed" not in str(stream.comments)


def test_a_reconnect_with_last_event_id_loses_nothing(asgi_server, sse, started_game, alice, bob):
    url = f"{asgi_server.url}/api/v1/games/{started_game.public_id}/stream"
    first = sse(url, **token(bob))
    seen = [first.next() for _ in range(started_game.version)]
    first.close()
    play_one(started_game, alice)  # while bob is away
    second = sse(url, **token(bob), **{"Last-Event-ID": seen[-1].id})
    resumed = second.next()
    assert resumed.id == str(int(seen[-1].id) + 1)
    assert resumed.data == api_events(asgi_server, started_game, bob, after=int(seen[-1].id))[0]


def test_the_page_can_start_after_its_version_without_the_header(asgi_server, sse, started_game, bob):
    url = f"{asgi_server.url}/api/v1/games/{started_game.public_id}/stream?after={started_game.version - 1}"
    stream = sse(url, **token(bob))
    assert stream.next().id == str(started_game.version)


def test_heartbeat_comments_keep_the_stream_open(asgi_server, sse, started_game, bob, settings):
    settings.STREAMS_HEARTBEAT_SECONDS = 0.3
    stream = sse(f"{asgi_server.url}/api/v1/games/{started_game.public_id}/stream", **token(bob))
    wait_until(lambda: ": heartbeat" in stream.comments, timeout=10, message="no heartbeat came")


def test_an_idle_stream_ends_and_says_why(asgi_server, sse, started_game, bob, settings):
    settings.STREAMS_IDLE_SECONDS = 0.5
    settings.STREAMS_HEARTBEAT_SECONDS = 0.2
    stream = sse(f"{asgi_server.url}/api/v1/games/{started_game.public_id}/stream", **token(bob))
    with pytest.raises(AssertionError, match="the stream ended"):
        drain(stream)
    assert any("idle" in comment for comment in stream.comments)


def test_unknown_game_is_a_404_problem(asgi_server, bob):
    response = httpx.get(
        f"{asgi_server.url}/api/v1/games/4e1b2c3d-0000-0000-0000-000000000000/stream", headers=token(bob)
    )
    assert response.status_code == 404
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["code"] == "game_not_found"


def test_without_credentials_is_a_401_problem(asgi_server, started_game):
    response = httpx.get(f"{asgi_server.url}/api/v1/games/{started_game.public_id}/stream")
    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"
    response = httpx.get(f"{asgi_server.url}/api/v1/stream", headers={"Authorization": "Bearer mbm_nope"})
    assert response.status_code == 401


def test_a_bad_last_event_id_is_a_400_problem(asgi_server, started_game, bob):
    headers = {**token(bob), "Last-Event-ID": "seven"}
    response = httpx.get(f"{asgi_server.url}/api/v1/games/{started_game.public_id}/stream", headers=headers)
    assert response.status_code == 400
    assert response.json()["code"] == "bad_last_event_id"


@pytest.mark.parametrize("header", ["Last-Event-ID", "after"])
def test_an_id_beyond_the_last_event_is_a_400_problem(asgi_server, started_game, bob, header):
    """A seq the game has not reached was never sent: a silent stream would hide the client's bug."""
    url = f"{asgi_server.url}/api/v1/games/{started_game.public_id}/stream"
    beyond = str(started_game.version + 1)
    if header == "after":
        response = httpx.get(url, headers=token(bob), params={"after": beyond})
    else:
        response = httpx.get(url, headers={**token(bob), header: beyond})
    assert response.status_code == 400
    assert response.json()["code"] == "bad_last_event_id"


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE"])
@pytest.mark.parametrize("path", ["/api/v1/stream", "/api/v1/games/{game}/stream"])
def test_a_write_to_a_stream_is_a_405_problem_not_the_csrf_page(started_game, alice, method, path):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)  # a session, whose unsafe requests Django checks for CSRF
    response = client.generic(method, path.format(game=started_game.public_id))
    assert response.status_code == 405
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["code"] == "method_not_allowed"
    assert response["Allow"] == "GET"


def test_too_many_streams_is_a_429_problem_until_one_closes(asgi_server, sse, started_game, bob, settings):
    settings.STREAMS_PER_USER = 2
    url = f"{asgi_server.url}/api/v1/games/{started_game.public_id}/stream"
    headers = token(bob)
    first, _second = sse(url, **headers), sse(url, **headers)
    third = sse(url, **headers)
    assert third.status == 429
    assert b'"too_many_streams"' in third.body
    first.close()
    wait_until(
        lambda: sse(url, **headers).status == 200, interval=0.2, message="the closed stream's slot was never freed"
    )


def test_the_session_of_a_signed_in_page_opens_the_stream(asgi_server, sse, started_game, bob, client):
    client.force_login(bob)
    cookie = client.cookies["sessionid"].value
    stream = sse(f"{asgi_server.url}/api/v1/games/{started_game.public_id}/stream", Cookie=f"sessionid={cookie}")
    assert stream.status == 200
    assert stream.next().id == "1"


def test_the_wsgi_application_still_serves_the_api_and_says_where_streams_are(client, started_game, bob):
    client.force_login(bob)
    response = client.get(f"/api/v1/games/{started_game.public_id}/events")
    assert response.status_code == 200
    # Under WSGI a stream would be collected whole, never sent: refused at once.
    response = client.get(f"/api/v1/games/{started_game.public_id}/stream")
    assert response.status_code == 503
    assert response.json()["code"] == "streams_need_asgi"
    response = client.post(f"/api/v1/games/{started_game.public_id}/stream")
    assert response.status_code == 405
    assert response.json()["code"] == "method_not_allowed"


def test_streams_woken_together_share_a_read_but_each_sees_only_its_own_draws(
    asgi_server, sse, started_game, alice, bob
):
    url = f"{asgi_server.url}/api/v1/games/{started_game.public_id}/stream?after={started_game.version}"
    streams = {user.pk: sse(url, **token(user)) for user in (alice, bob)}
    seats = {user.pk: store.load(started_game.public_id).seat_of(user).index for user in (alice, bob)}
    seen: dict[int, list[dict[str, Any]]] = {alice.pk: [], bob.pk: []}
    while not any(e["type"] == "piece_placed" for e in seen[alice.pk]):
        game = store.get(started_game.public_id)
        mover = alice if game.to_act_seat == seats[alice.pk] else bob
        play_one(game, mover)
        for user_pk, stream in streams.items():
            seen[user_pk].append(stream.next(timeout=2).data)
    for user_pk, events in seen.items():
        for event in events:
            if event["type"] == "piece_placed":
                own = event["player"] == seats[user_pk]
                assert (event["drew"] is not None) == own, (user_pk, event)


def test_with_redis_down_streams_still_open_and_hear_this_process_s_moves(
    asgi_server, sse, started_game, alice, bob, settings
):
    settings.STREAMS_REDIS_URL = "redis://127.0.0.1:9/0"  # nothing listens there
    stream = sse(f"{asgi_server.url}/api/v1/games/{started_game.public_id}/stream", **token(bob))
    assert stream.status == 200  # the per-user limit fails open
    for _ in range(started_game.version):
        stream.next()
    game = store.get(started_game.public_id)
    play_one(game, alice if game.to_act_seat == 0 else bob)  # its wake-up cannot be published
    assert stream.next(timeout=3).id == str(started_game.version + 1)


def test_a_message_at_the_table_reaches_the_players_streams_within_a_second(
    asgi_server, sse, started_game, alice, bob, stranger
):
    Game.objects.filter(pk=started_game.pk).update(public=True)  # a stranger may watch it, not hear it
    url = f"{asgi_server.url}/api/v1/games/{started_game.public_id}/stream"
    bobs = sse(url + f"?after={started_game.version}", **token(bob))
    strangers = sse(url + f"?after={started_game.version}", **token(stranger))
    assert bobs.status == 200
    assert strangers.status == 200

    started = time.monotonic()
    posted = httpx.post(
        f"{asgi_server.url}/api/v1/games/{started_game.public_id}/messages",
        json={"text": "Your move, Bob"},
        headers=token(alice),
    )
    assert posted.status_code == 201
    said = bobs.next(timeout=2)
    assert time.monotonic() - started < within(1.0)
    assert said.name == "talk"
    assert said.data["text"] == "Your move, Bob"
    assert said.id == str(started_game.version)  # the cursor stays the game's seq
    play_one(started_game, alice)
    assert strangers.next(timeout=2).name == "message"  # strangers see the move, never the talk
