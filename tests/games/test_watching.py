"""Watching: a public game is listed and anyone may watch it, live or move by
move; a private one only its players and holders of its watch link. Spectators
get the public view, never a hand."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from games.models import Game
from games.services import open_games, watching
from tests.factories import resign, two_player_game

pytestmark = pytest.mark.django_db


def signed_in(user):
    client = Client()
    client.force_login(user)
    return client


def test_a_public_game_is_listed_and_anyone_watches_it(alice, bob, client_for):
    game = open_games.open_game(creator=alice, players=2)
    open_games.take_seat(game=game, user=bob)
    game.refresh_from_db()
    assert game.public
    assert game.status == Game.Status.ACTIVE
    listed = client_for(None).get("/api/v1/watch").json()
    assert [g["id"] for g in listed] == [str(game.public_id)]
    assert listed[0]["public"] is True
    assert str(game.public_id) in Client().get("/games/watch/").content.decode()
    page = Client().get(f"/games/{game.public_id}/watch/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'data-testid="board"' in html
    assert 'data-testid="hand"' not in html
    assert "card-radio" not in html
    assert 'http-equiv="refresh"' not in html, "a live game's page follows it by its script, not by reloading"
    assert 'data-poll="30"' in html, "a live game's page follows it"


def test_a_private_game_needs_a_seat_or_its_link(started_game, alice, stranger):
    assert not started_game.public
    assert Client().get("/games/watch/").content.decode().count('data-testid="public-game"') == 0
    url = f"/games/{started_game.public_id}/watch/"
    # Signed out, without the link: sent to sign in, as for an unknown id.
    assert Client().get(url).status_code == 302
    assert signed_in(stranger).get(url).status_code == 404
    assert Client().get(url, {"key": "forged"}).status_code == 302
    assert signed_in(alice).get(url).status_code == 200
    player_page = signed_in(alice).get(f"/games/{started_game.public_id}/").content.decode()
    link = re.search(r'href="([^"]+)" data-testid="watch-link"', player_page)
    assert link is not None
    shared = link.group(1).replace("&amp;", "&")
    assert shared == f"{url}?key={watching.watch_key(started_game)}"
    assert Client().get(shared).status_code == 200


def test_a_finished_public_game_is_replayed_move_by_move(alice, bob):
    game = two_player_game(alice, bob)
    watching.set_public(game=game, user=bob, public=True)
    resign(game, alice)
    game.refresh_from_db()
    url = f"/games/{game.public_id}/watch/"
    first = Client().get(url, {"at": "1"}).content.decode()
    assert f"Event 1 of {game.version}" in first
    assert 'data-testid="replay-next"' in first
    assert 'data-testid="replay-prev"' not in first
    last = Client().get(url).content.decode()
    assert f"Event {game.version} of {game.version}" in last
    assert 'data-testid="watch-winners"' in last
    assert 'data-poll=""' in last, "a finished game's page has nothing left to follow"
    assert Client().get(url, {"at": "2"}).content.decode().count('data-testid="log-line"') == 2


def test_players_make_a_game_public_or_private(started_game, alice, stranger, client_for):
    response = client_for(alice).put(
        f"/api/v1/games/{started_game.public_id}/visibility", {"public": True}, format="json"
    )
    assert response.status_code == 200
    assert response.json() == {"public": True}
    assert Client().get(f"/games/{started_game.public_id}/watch/").status_code == 200
    outsider = client_for(stranger).put(
        f"/api/v1/games/{started_game.public_id}/visibility", {"public": False}, format="json"
    )
    assert outsider.status_code == 403
    assert outsider.json()["code"] == "not_a_player"
    signed_in(alice).post(f"/games/{started_game.public_id}/visibility/", {"public": "0"})
    started_game.refresh_from_db()
    assert not started_game.public


def test_a_lobby_game_is_not_listed_for_watching(alice, client_for):
    open_games.open_game(creator=alice, players=3)
    assert client_for(None).get("/api/v1/watch").json() == []


def test_a_rematch_keeps_the_visibility(alice, bob):
    game = two_player_game(alice, bob)
    watching.set_public(game=game, user=alice, public=True)
    resign(game, alice)
    rematch = open_games.rematch(game=game, user=alice).game
    assert rematch.public


def test_spectators_read_the_public_view_through_the_api(started_game, alice, stranger, client_for):
    private = client_for(stranger).get(f"/api/v1/games/{started_game.public_id}")
    assert private.status_code == 404, "a private game is its players' alone"
    assert client_for(None).get("/api/v1/watch").json() == [], "a private game is not listed"
    watching.set_public(game=started_game, user=alice, public=True)
    body = client_for(stranger).get(f"/api/v1/games/{started_game.public_id}").json()
    assert body["my_seat"] is None
    assert all("hand" not in player or player["hand"] is None for player in body["state"]["players"])


def test_the_watch_list_filters_by_status(alice, bob, client_for):
    game = two_player_game(alice, bob)
    watching.set_public(game=game, user=alice, public=True)
    anyone = client_for(None)
    assert [g["id"] for g in anyone.get("/api/v1/watch", {"status": "active"}).json()] == [str(game.public_id)]
    assert anyone.get("/api/v1/watch", {"status": "finished"}).json() == []
    bad = anyone.get("/api/v1/watch", {"status": "lobby"})
    assert bad.status_code == 400
    assert bad.json()["code"] == "bad_filter"
