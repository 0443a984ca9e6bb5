"""Lists never name a game their reader may not see: the lobby, the watch
list, "my games", profiles (API and page: recent games, rating history,
head-to-head, the opponents to choose from), the leaderboards and webhooks.

alice and bob finish a private game and a public one; a stranger, an
anonymous visitor, the players and an operator read every list, and each
document is searched for the private game's id.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.apps import apps
from django.test import Client

from accounts.models import User
from games import services
from games.models import Game
from games.services import open_games
from tests.factories import resign, two_player_game
from webhooks.models import Delivery, Endpoint

pytestmark = pytest.mark.django_db


def _finished(alice: User, bob: User, *, public: bool) -> Game:
    game = two_player_game(alice, bob)
    if public:
        Game.objects.filter(pk=game.pk).update(public=True)
    resign(game, bob)
    return Game.objects.get(pk=game.pk)


def _pages(user: User | None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def _documents(reader: User | None, client_for: Any, alice: User, bob: User) -> dict[str, str]:
    """Everything ``reader`` can list: API answers and pages."""
    pages = _pages(reader)
    docs = {
        "profile page": pages.get(f"/players/{alice.pk}/").content.decode(),
        "profile page vs bob": pages.get(f"/players/{alice.pk}/?opponent={bob.pk}").content.decode(),
        "leaderboard page": pages.get("/leaderboard/").content.decode(),
        "watch page": pages.get("/games/watch/").content.decode(),
        "lobby page": pages.get("/games/lobby/").content.decode(),
    }
    api = client_for(reader)
    for name, path in {
        "lobby": "/api/v1/lobby",
        "watch": "/api/v1/watch",
        "leaderboard": "/api/v1/leaderboard?players=2",
        "profile": f"/api/v1/players/{alice.pk}?opponent={bob.pk}",
        "games": "/api/v1/games",
    }.items():
        response = api.get(path)
        if response.status_code != 401:  # the API is for signed-in callers
            assert response.status_code == 200, (name, response.content)
            docs[name] = response.content.decode()
    return docs


def test_no_list_names_a_private_game_to_a_stranger(alice, bob, stranger, make_user, client_for):
    hidden = _finished(alice, bob, public=False)
    shown = _finished(alice, bob, public=True)
    operator = make_user("operator@example.com", is_staff=True)
    for reader in (stranger, None):
        docs = _documents(reader, client_for, alice, bob)
        for name, text in docs.items():
            assert str(hidden.public_id) not in text, f"{name} names the private game to {reader}"
        assert str(shown.public_id) in docs["profile page"], "the public game is still named"
    # The players and operators see both.
    for reader in (alice, operator):
        profile = client_for(reader).get(f"/api/v1/players/{alice.pk}?opponent={bob.pk}").json()
        assert {g["game"] for g in profile["recent"]} == {str(hidden.public_id), str(shown.public_id)}
        history = [p["game"] for r in profile["ratings"] for p in r["history"]]
        assert sorted(history) == sorted([str(hidden.public_id), str(shown.public_id)])
        assert profile["head_to_head"]["games"] == 2
    stranger_view = client_for(stranger).get(f"/api/v1/players/{alice.pk}?opponent={bob.pk}").json()
    assert [g["game"] for g in stranger_view["recent"]] == [str(shown.public_id)]
    assert stranger_view["head_to_head"]["games"] == 1
    assert [p["game"] for r in stranger_view["ratings"] for p in r["history"]] == [str(shown.public_id)]


def test_a_private_game_leaves_the_lobby_when_it_starts(alice, bob, stranger, client_for):
    game = open_games.open_game(creator=alice, players=2, pace="normal", six_rounds=False, public=False)
    listed = client_for(stranger).get("/api/v1/lobby").json()
    assert [g["id"] for g in listed] == [str(game.public_id)]  # waiting, anyone may join it
    open_games.take_seat(game=game, user=bob)
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    assert not game.listed
    assert client_for(stranger).get("/api/v1/lobby").json() == []
    assert client_for(stranger).get(f"/api/v1/games/{game.public_id}").status_code == 404
    assert client_for(bob).get(f"/api/v1/games/{game.public_id}").status_code == 200


def test_the_migration_unlists_games_already_dealt(alice, bob):
    game = open_games.open_game(creator=alice, players=2, pace="normal", six_rounds=False, public=False)
    waiting = open_games.open_game(creator=bob, players=3, pace="normal", six_rounds=False, public=False)
    open_games.take_seat(game=game, user=bob)
    Game.objects.filter(pk=game.pk).update(listed=True)  # as games dealt before the fix were left
    migration = __import__("games.migrations.0011_unlist_started_games", fromlist=["unlist_started_games"])
    migration.unlist_started_games(apps, None)
    assert not Game.objects.get(pk=game.pk).listed
    assert Game.objects.get(pk=waiting.pk).listed  # still waiting in the lobby


def test_my_games_hold_a_dealt_game_only_for_its_players(alice, bob, client_for, make_user):
    """A creator without a seat and an invitee who declined see the game while it waits, not once dealt."""
    dave = make_user("dave@example.com")
    seats = [
        services.SeatSpec("invite", email=bob.email),
        services.SeatSpec("invite", email=dave.email),
    ]
    game = services.create_game(creator=alice, options={"players": 2}, seats=seats)
    ids = lambda user: [g["id"] for g in client_for(user).get("/api/v1/games").json()]  # noqa: E731
    assert ids(alice) == ids(bob) == ids(dave) == [str(game.public_id)]
    services.decline_invitation(game=game, user=dave)
    services.join_game(game=game, user=bob)
    game.seats.filter(index=1).update(bot="random")
    services.start_game(game=game, user=alice)
    assert ids(bob) == [str(game.public_id)]
    assert ids(alice) == ids(dave) == []
    assert client_for(dave).get(f"/api/v1/games/{game.public_id}").status_code == 404


def test_webhooks_go_only_to_who_may_see_the_game(alice, bob, stranger):
    for owner in (alice, stranger):
        Endpoint.objects.create(
            owner=owner, url="https://hooks.example.com/in", event_types=["game.started", "game.over"], secret="s"
        )
    game = _finished(alice, bob, public=False)
    bodies = [json.dumps(d.payload) for d in Delivery.objects.all()]
    assert all(d.endpoint.owner == alice for d in Delivery.objects.all())
    assert bodies
    assert all(str(game.public_id) in body for body in bodies)
