"""Presence through the API (``PUT /api/v1/games/{id}/presence``): a client showing the
game to its player says so, as the game page does, and the player gets no "your turn"
email for it meanwhile. A whole game played in such a client sends none; the same game
played without presence sends one a turn; "hidden" brings them back at once."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts.models import User
from accounts.services import create_api_token
from games import services
from games.models import Game, Presence
from notifications import outbox
from notifications.models import Kind, Notification
from tests.factories import two_player_bot_game

pytestmark = pytest.mark.django_db

API = "/api/v1/games"


def presence(api: APIClient, game: Game, **body: Any) -> Any:
    return api.put(f"{API}/{game.public_id}/presence", body, format="json")


def delivered(user: User, kind: str) -> int:
    """The emails of ``kind`` sent to ``user`` once everything pending was delivered (as the
    worker does on commit of each move)."""
    for pk in Notification.objects.filter(status=Notification.Status.PENDING).values_list("pk", flat=True):
        outbox.deliver(pk)
    return Notification.objects.filter(user=user, kind=kind, status=Notification.Status.SENT).count()


def play_in_a_client(client: APIClient, game: Game, *, present: bool) -> int:
    """Alice plays the game to its end through the API (the first legal action each turn),
    her client saying it shows the game before each of her moves if ``present``; the bot
    answers each time. The number of her moves."""
    url = f"{API}/{game.public_id}"
    moves = 0
    while True:
        services.play_bot_turns(game_id=game.public_id)
        delivered(game.creator, Kind.YOUR_TURN)  # the mail the bot's move made goes now, or is skipped
        body = client.get(url).json()
        if body["status"] != "active":
            return moves
        if present:
            assert presence(client, game, client="phone-1").status_code == 204
        legal = client.get(f"{url}/legal-actions").json()
        if legal.get("selection"):
            selection = legal["selection"]
            pool = [int(size) for size, n in selection["reserve"].items() for _ in range(n)]
            action = {"type": "select", "pieces": sorted(pool)[: selection["count"]]}
        else:
            placement = legal["placements"][0]
            option = placement["options"][0]
            action = {"type": "place", "card": placement["card"], "city": option["city"], "size": option["size"]}
            action["colour"] = option["colour"]
        answer = client.post(f"{url}/actions", {"action": action, "expected_version": legal["version"]}, format="json")
        assert answer.status_code == 200, answer.content
        moves += 1


def test_a_game_played_in_a_client_that_says_it_shows_the_game_sends_no_turn_email(
    alice: User, client_for: Callable[[User | None], APIClient]
) -> None:
    client = client_for(alice)
    played = play_in_a_client(client, two_player_bot_game(alice), present=True)
    assert played > 20
    assert delivered(alice, Kind.YOUR_TURN) == 0
    assert Notification.objects.filter(user=alice, kind=Kind.YOUR_TURN, status=Notification.Status.SKIPPED).exists()
    assert delivered(alice, Kind.GAME_OVER) == 1  # the other emails still come

    # The same, without presence: a turn email for her turns (those the bot's move gave her).
    played = play_in_a_client(client, two_player_bot_game(alice), present=False)
    assert delivered(alice, Kind.YOUR_TURN) > played // 4


def test_hidden_brings_the_turn_emails_back_and_leaves_other_clients_and_pages_present(
    alice: User, client_for: Callable[[User | None], APIClient]
) -> None:
    game = two_player_bot_game(alice)
    client = client_for(alice)
    assert presence(client, game, client="phone-1").status_code == 204
    assert presence(client, game, client="desk").status_code == 204
    assert presence(client, game, client="desk", state="hidden").status_code == 204
    assert set(Presence.objects.values_list("page", flat=True)) == {"api:phone-1"}
    assert presence(client, game, client="phone-1", state="hidden").status_code == 204
    assert not Presence.objects.exists()

    page = Presence.objects.create(game=game, user=alice, page="phone-1", seen=game.created)
    assert presence(client, game, client="phone-1", state="hidden").status_code == 204
    assert Presence.objects.filter(pk=page.pk).exists()  # a page's row is never a client's


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"client": "not an id!"}, 400, "invalid"),
        ({"client": "x" * 61}, 400, "invalid"),
        ({"client": 5}, 400, "invalid"),
        ({"state": "away"}, 400, "invalid"),
        ({"visible": True}, 422, "unknown_field"),
    ],
)
def test_a_bad_body_is_a_problem(
    alice: User, client_for: Callable[[User | None], APIClient], body: dict[str, Any], status: int, code: str
) -> None:
    game = two_player_bot_game(alice)
    answer = presence(client_for(alice), game, **body)
    assert answer.status_code == status, answer.content
    assert answer["Content-Type"].startswith("application/problem+json")
    assert code in answer.content.decode()
    assert not Presence.objects.exists()


def test_only_a_player_with_a_token_that_may_play_says_so(
    alice: User, stranger: User, client_for: Callable[[User | None], APIClient]
) -> None:
    game = two_player_bot_game(alice)
    assert presence(client_for(stranger), game).status_code == 404  # a private game is not there for him
    Game.objects.filter(pk=game.pk).update(public=True)
    refused = presence(client_for(stranger), game)
    assert refused.status_code == 403
    assert refused.json()["code"] == "not_a_player"
    reader = APIClient()
    reader.credentials(HTTP_AUTHORIZATION=f"Bearer {create_api_token(user=alice, name='r', scope='games:read').raw}")
    assert presence(reader, game).status_code == 403
    assert presence(client_for(None), game).status_code == 401
    assert not Presence.objects.exists()


def test_the_endpoint_is_in_the_openapi_schema(alice: User, client_for: Callable[[User | None], APIClient]) -> None:
    schema = client_for(alice).get("/api/v1/schema/", {"format": "json"}).json()
    operation = schema["paths"]["/api/v1/games/{game_id}/presence"]["put"]
    assert operation["operationId"] == "set_presence"
    assert "204" in operation["responses"]
