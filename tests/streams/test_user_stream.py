"""GET /api/v1/stream: what happens across a user's games, resumable with Last-Event-ID."""

from __future__ import annotations

from games import services, store
from games.models import Game
from tests.factories import play_one
from tests.support.api import token


def kinds_until(stream, kind: str, game: Game) -> list[str]:
    seen = []
    while True:
        event = stream.next(timeout=3)
        seen.append(event.data["type"])
        if event.data["type"] == kind and event.data["game"] == str(game.public_id):
            return seen


def test_a_new_stream_says_where_it_starts_then_reports_moves_and_my_turn(asgi_server, sse, started_game, alice, bob):
    stream = sse(f"{asgi_server.url}/api/v1/stream", **token(bob))
    ready = stream.next()
    assert ready.data == {"type": "ready"}
    assert ready.id
    game = store.get(started_game.public_id)
    mover = alice if game.to_act_seat == 0 else bob
    play_one(game, mover)
    if mover == alice:
        kinds = kinds_until(stream, "move", game)
        assert kinds[-1] == "move"
    # Play until it is bob's turn after a move by alice.
    for _ in range(10):
        game = store.get(started_game.public_id)
        bob_seat = store.load(game.public_id).seat_of(bob).index
        if game.to_act_seat == bob_seat:
            break
        play_one(game, alice)
    event = stream.until(lambda e: e.data["type"] == "your_turn", timeout=3)
    assert event.data["game"] == str(started_game.public_id)
    assert "event" not in event.data


def test_an_invitation_and_the_game_start_reach_the_invited_player(asgi_server, sse, alice, bob):
    stream = sse(f"{asgi_server.url}/api/v1/stream", **token(bob))
    stream.next()  # ready
    game = services.create_game(
        creator=alice,
        options={"players": 2, "start_player": 0},
        seats=[services.SeatSpec("me"), services.SeatSpec("invite", email=bob.email)],
    )
    invitation = stream.until(lambda e: e.data["type"] == "invitation", timeout=3)
    assert invitation.data["game"] == str(game.public_id)
    services.join_game(game=game, user=bob)
    # bob's join takes the last seat: the game deals itself
    started = stream.until(lambda e: e.data["type"] == "game_started", timeout=3)
    hands = started.data["event"]["hands"]
    assert hands[0] is None  # alice's hand stays hers
    assert hands[1] is not None


def test_resuming_the_user_stream_loses_nothing_of_any_game(asgi_server, sse, started_game, alice, bob):
    first = sse(f"{asgi_server.url}/api/v1/stream", **token(bob))
    ready = first.next()
    first.close()
    for _ in range(3):  # moves while bob is away
        game = store.get(started_game.public_id)
        seat = game.to_act_seat
        play_one(game, alice if store.load(game.public_id).seat_at(seat).user_id == alice.pk else bob)
    second = sse(f"{asgi_server.url}/api/v1/stream", **token(bob), **{"Last-Event-ID": ready.id})
    moves: list[int] = []
    while len(moves) < 3:
        event = second.next(timeout=3)
        if event.data["type"] == "move":
            moves.append(event.data["seq"])
    assert moves == [started_game.version + 1, started_game.version + 2, started_game.version + 3]


def test_game_over_is_reported(asgi_server, sse, started_game, alice, bob):
    stream = sse(f"{asgi_server.url}/api/v1/stream", **token(bob))
    stream.next()
    while store.get(started_game.public_id).status == Game.Status.ACTIVE:
        game = store.get(started_game.public_id)
        seat = store.load(game.public_id).seat_at(game.to_act_seat)
        play_one(game, alice if seat.user_id == alice.pk else bob)
    stream.until(lambda e: e.data["type"] == "game_over", timeout=10)


def test_a_cursor_this_stream_never_sent_is_refused(asgi_server, bob):
    import httpx

    response = httpx.get(f"{asgi_server.url}/api/v1/stream", headers={**token(bob), "Last-Event-ID": "x:1"})
    assert response.status_code == 400
    assert response.json()["code"] == "bad_last_event_id"


def test_a_cursor_beyond_a_games_last_event_is_refused(asgi_server, bob, started_game):
    import httpx

    cursor = f"{started_game.pk}:{started_game.version + 5}"
    response = httpx.get(f"{asgi_server.url}/api/v1/stream", headers={**token(bob), "Last-Event-ID": cursor})
    assert response.status_code == 400
    assert response.json()["code"] == "bad_last_event_id"


def test_an_invitation_sent_while_away_is_there_on_resuming(asgi_server, sse, alice, bob):
    first = sse(f"{asgi_server.url}/api/v1/stream", **token(bob))
    ready = first.next()
    first.close()
    game = services.create_game(
        creator=alice,
        options={"players": 2},
        seats=[services.SeatSpec("me"), services.SeatSpec("invite", email=bob.email)],
    )
    second = sse(f"{asgi_server.url}/api/v1/stream", **token(bob), **{"Last-Event-ID": ready.id})
    invitation = second.next()
    assert invitation.data["type"] == "invitation"
    assert invitation.data["game"] == str(game.public_id)
    assert invitation.id.endswith(f"{game.pk}:0") or f"{game.pk}:0," in invitation.id
