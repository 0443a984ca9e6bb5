"""The lobby as the creator meets it: games with names, games that start by
themselves once every seat is taken, and lists that say who is to play and
who won."""

from __future__ import annotations

import re

import pytest

from accounts.models import User
from games import names, services
from games.engine import Resign
from games.models import Game
from tests.factories import open_game

API = "/api/v1"

pytestmark = pytest.mark.django_db


def test_a_game_of_bots_starts_by_itself_and_promises_no_invitations(client, alice):
    client.force_login(alice)
    response = client.post("/games/new/", {"players": "3", "seat_2": "random", "seat_3": "greedy"}, follow=True)
    game = Game.objects.get(creator=alice)
    assert game.status == Game.Status.ACTIVE
    assert game.version >= 1
    html = response.content.decode()
    assert "Invitations are on their way" not in html
    assert f"The game {game.title} is created and has started: every seat is taken." in html
    assert 'data-testid="lobby"' not in html


def test_invitations_are_announced_only_when_there_are_some(client, alice):
    client.force_login(alice)
    invited = client.post(
        "/games/new/", {"players": "2", "seat_2": "invite", "email_2": "bob@example.com"}, follow=True
    ).content.decode()
    assert "Invitations are on their way." in invited
    open_seat = client.post("/games/new/", {"players": "2", "seat_2": "open"}, follow=True).content.decode()
    assert "Invitations are on their way" not in open_seat
    assert "It starts when every seat is taken." in open_seat


def test_the_creator_names_the_game_and_the_name_is_shown_everywhere(client, alice):
    client.force_login(alice)
    client.post("/games/new/", {"name": "  Friday   night ", "players": "2", "seat_2": "open"})
    game = Game.objects.get(creator=alice)
    assert game.name == "Friday night"
    page = client.get(f"/games/{game.public_id}/").content.decode()
    assert "<title>Friday night · Manhattan by mail</title>" in page
    assert "<h1>Friday night</h1>" in page
    listed = client.get("/games/").content.decode()
    assert re.search(r'data-testid="game-name">Friday night</a>', listed)


def test_an_unnamed_game_gets_a_made_up_name(alice):
    game = open_game(alice)
    place, number = game.name.rsplit(" ", 1)
    assert place in names.PLACES
    assert 1 <= int(number) <= 99


def test_a_game_from_before_names_is_named_from_its_id(alice):
    game = open_game(alice)
    Game.objects.filter(pk=game.pk).update(name="")
    game.refresh_from_db()
    assert game.title == names.generated_name(game.public_id.int)
    assert game.title == Game.objects.get(pk=game.pk).title  # stable


def test_the_api_takes_and_gives_the_name(alice, client_for):
    api = client_for(alice)
    named = api.post(f"{API}/games", {"name": "Harbour 27", "seats": [{"kind": "me"}, {"kind": "open"}]}, format="json")
    assert named.status_code == 201, named.content
    assert named.json()["name"] == "Harbour 27"
    unnamed = api.post(f"{API}/games", {"seats": [{"kind": "me"}, {"kind": "bot", "bot": "random"}]}, format="json")
    assert unnamed.json()["name"]
    assert unnamed.json()["status"] == "active"  # every seat taken: dealt at once
    listed = api.get(f"{API}/games").json()
    assert {"Harbour 27", unnamed.json()["name"]} <= {g["name"] for g in listed}


def test_lists_show_the_winner_of_a_finished_game(client, alice):
    game = services.create_game(
        creator=alice,
        options={"players": 2},
        seats=[services.SeatSpec("me"), services.SeatSpec("bot", bot="random")],
    )
    # alice resigns: the bot wins.
    game.refresh_from_db()
    services.submit_action(game_id=game.public_id, user=alice, action=Resign(), expected_version=game.version)
    services.play_bot_turns(game_id=game.public_id)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    client.force_login(alice)
    html = client.get("/games/").content.decode()
    assert re.search(r'data-testid="game-winners">Winner: Bot 2 \(random bot\)\.', html)


def test_a_decline_and_a_join_reach_the_creator_and_the_last_join_starts(alice, bob):
    carol = User.objects.create_user(email="carol@example.com")
    game = services.create_game(
        creator=alice,
        options={"players": 3},
        seats=[services.SeatSpec("me"), services.SeatSpec("invite", email=bob.email), services.SeatSpec("open")],
    )
    services.decline_invitation(game=game, user=bob)
    services.join_game(game=game, user=carol)
    game.refresh_from_db()
    assert game.status == Game.Status.LOBBY
    services.join_game(game=game, user=bob)
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE


def test_the_lobby_says_the_game_starts_by_itself(alice, bob, client):
    game = services.create_game(
        creator=alice,
        options={"players": 2},
        seats=[services.SeatSpec("me"), services.SeatSpec("invite", email=bob.email)],
    )
    client.force_login(alice)
    html = client.get(f"/games/{game.public_id}/").content.decode()
    assert "The game starts by itself once every seat is taken." in html
    assert 'data-testid="start-button"' not in html
