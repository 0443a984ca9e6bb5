"""A game's events reach its players' endpoints: invited, started, moves,
your turn, rounds scored, game over — each redacted for the receiving seat,
written with the move and sent after commit, signed."""

from __future__ import annotations

import json
from typing import Any

import pytest
from standardwebhooks import Webhook

from games import services as games
from games.models import Game
from tests.factories import two_player_game
from webhooks import delivery, services
from webhooks.models import Delivery, Endpoint
from webhooks.tasks import deliver_webhooks

pytestmark = pytest.mark.django_db

API = "/api/v1"


def select_body(client, game: Game) -> dict[str, Any]:
    legal = client.get(f"{API}/games/{game.public_id}/legal-actions").json()
    choice = legal["selection"]
    pieces = [int(s) for s, n in choice["reserve"].items() for _ in range(n)][: choice["count"]]
    return {"action": {"type": "select", "pieces": pieces}, "expected_version": legal["version"]}


def types_of(endpoint: Endpoint) -> list[str]:
    return list(endpoint.deliveries.order_by("pk").values_list("event_type", flat=True))


def test_a_move_over_the_api_reaches_the_other_players_receiver_signed(
    alice, bob, client_for, receiver, endpoint_for, broker, django_capture_on_commit_callbacks
):
    bobs = endpoint_for(bob)
    game = two_player_game(alice, bob)
    client = client_for(alice)
    broker.published.clear()

    with django_capture_on_commit_callbacks(execute=True):
        for _ in range(2):  # alice selects for both her colours; then it is bob's turn
            response = client.post(f"{API}/games/{game.public_id}/actions", select_body(client, game), format="json")
            assert response.status_code == 200, response.content
    assert broker.ids  # handed to the workers once the moves committed

    deliver_webhooks(broker.ids)  # the task's body, as a worker runs it

    received = [Webhook(bobs.secret).verify(r.body, r.headers) for r in receiver.requests]
    assert [body["type"] for body in received] == ["game.move", "game.move", "game.your_turn"]
    move = received[1]
    assert move["data"]["game"] == str(game.public_id)
    assert move["data"]["seat"] == 1
    assert move["data"]["acting_seat"] == 0
    assert move["data"]["cause"] == "move"
    assert move["data"]["events"][0]["type"] == "pieces_selected"
    assert move["data"]["events"][0]["seq"] == move["data"]["version"]
    turn = received[2]["data"]
    assert turn["phase"] == "selection"
    assert turn["seat"] == 1
    sent = Delivery.objects.filter(pk__in=broker.ids)
    assert {d.status for d in sent} == {Delivery.Status.DELIVERED}
    assert {d.event_id for d in sent} == {r.headers["webhook-id"] for r in receiver.requests}


def test_a_started_game_shows_each_receiver_only_its_own_hand(alice, bob, receiver, endpoint_for):
    alices, bobs = endpoint_for(alice), endpoint_for(bob)
    two_player_game(alice, bob)

    for endpoint, seat in ((alices.endpoint, 0), (bobs.endpoint, 1)):
        started = endpoint.deliveries.get(event_type="game.started")
        event = started.payload["data"]["event"]
        assert event["type"] == "game_created"
        assert event["hands"][seat] is not None
        assert len(event["hands"][seat]) == 4
        assert event["hands"][1 - seat] is None
        assert event["hand_sizes"] == [4, 4]
        assert "draw_pile" not in event  # the deck's order: only its size is shown
        assert event["draw_pile_size"] == 37
        assert '"draw_pile":' not in json.dumps(started.payload)
    # The start player is told it is their turn; the other is not.
    assert "game.your_turn" in types_of(alices.endpoint)
    assert "game.your_turn" not in types_of(bobs.endpoint)


def test_an_invitation_reaches_an_invitee_with_an_account(alice, bob, receiver, endpoint_for):
    bobs = endpoint_for(bob, ["game.invited"])
    game = games.create_game(
        creator=alice,
        options={"players": 2},
        seats=[games.SeatSpec("me"), games.SeatSpec("invite", email=bob.email.upper())],
    )
    [invited] = bobs.endpoint.deliveries.all()
    assert invited.payload["type"] == "game.invited"
    assert invited.payload["data"] == {"game": str(game.public_id), "version": 0, "seat": 1, "inviter": "alice"}


def test_an_endpoint_gets_only_the_types_it_asked_for(alice, bob, receiver, endpoint_for):
    bobs = endpoint_for(bob, ["game.your_turn"])
    game = two_player_game(alice, bob)
    for _ in range(2):
        game.refresh_from_db()
        games.submit_action(game_id=game.public_id, user=alice, action=_select(), expected_version=game.version)
    assert types_of(bobs.endpoint) == ["game.your_turn"]


def test_a_switched_off_endpoint_and_a_stranger_get_nothing(alice, bob, stranger, receiver, endpoint_for):
    bobs = endpoint_for(bob)
    strangers = endpoint_for(stranger)
    services.update_endpoint(endpoint=bobs.endpoint, enabled=False)
    two_player_game(alice, bob)
    assert not Delivery.objects.filter(endpoint__in=[bobs.endpoint, strangers.endpoint]).exists()


def test_a_whole_game_against_bots_tells_of_rounds_and_the_end(alice, receiver, endpoint_for, client_for):
    alices = endpoint_for(alice, ["game.started", "game.round_scored", "game.over"])
    watching = endpoint_for(alice, ["game.move"])
    game = games.create_game(
        creator=alice,
        options={"players": 2, "start_player": 0},
        seats=[games.SeatSpec("me"), games.SeatSpec("bot", bot="random")],
    )
    game.refresh_from_db()  # every seat is taken: the game has dealt itself
    client = client_for(alice)
    for _ in range(400):
        games.play_bot_turns(game_id=game.public_id)
        game.refresh_from_db()
        if game.status == Game.Status.FINISHED:
            break
        legal = client.get(f"{API}/games/{game.public_id}/legal-actions").json()
        if legal["selection"]:
            reserve = legal["selection"]["reserve"]
            action: Any = {
                "type": "select",
                "pieces": [int(s) for s, n in reserve.items() for _ in range(n)][: legal["selection"]["count"]],
            }
        else:
            first = legal["placements"][0]
            option = first["options"][0]
            action = f"card {first['card']} city {option['city']} size {option['size']}"
            if "colour" in option:
                action += f" {option['colour']}"
        response = client.post(
            f"{API}/games/{game.public_id}/actions",
            {"action": action},
            format="json",
            HTTP_IF_MATCH=f'"{legal["version"]}"',
        )
        assert response.status_code == 200, response.content
    assert game.status == Game.Status.FINISHED
    kinds = types_of(alices.endpoint)
    assert kinds == ["game.started"] + ["game.round_scored"] * 6 + ["game.over"]
    over = alices.endpoint.deliveries.get(event_type="game.over")
    assert over.payload["data"]["event"]["type"] == "game_finished"
    # Each delivery is written once, however often the event is announced.
    assert len({d.event_id for d in alices.endpoint.deliveries.all()}) == len(kinds)
    assert delivery.deliver(over.pk) is True

    # The bot's draws are only "drew a card" to alice, and the deck order never appears.
    moves = [event for d in watching.endpoint.deliveries.all() for event in d.payload["data"]["events"]]
    bot_draws = [e for e in moves if e["type"] == "piece_placed" and e["player"] == 1]
    assert bot_draws
    assert all(e["drew"] is None for e in bot_draws)
    assert any(e["drew"] is not None for e in moves if e["type"] == "piece_placed" and e["player"] == 0)
    assert not any("draw_pile" in e or "reshuffle" in e for e in moves)


def _select():
    from games.engine import SelectPieces

    return SelectPieces(pieces=(1, 1, 1, 1))
