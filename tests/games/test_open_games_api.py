"""Open games through the API: the public lobby with its filters, joining in
one request (a full open game starts), play now, bots after N hours, rematch."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games import services, store
from games.models import Game
from games.services import open_games
from games.tasks import fill_open_games_with_bots
from tests.factories import resign, two_player_game

pytestmark = pytest.mark.django_db


def open_via_api(client, **body):
    response = client.post("/api/v1/lobby", {"players": 2, **body}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def test_the_lobby_lists_open_games_with_players_options_pace_and_waiting_time(alice, client_for):
    game = open_via_api(client_for(alice), players=3, pace="fast", six_rounds=True, bots_after_hours=6)
    Game.objects.filter(public_id=game["id"]).update(created=timezone.now() - timedelta(hours=1))
    response = client_for(None).get("/api/v1/lobby")  # anyone may look
    assert response.status_code == 200
    [listed] = response.json()
    assert listed["id"] == game["id"]
    assert (listed["players"], listed["six_rounds"], listed["pace"], listed["open_seats"]) == (3, True, "fast", 2)
    assert listed["reminders"] == {"first_hours": 2, "every_hours": 4, "timeout_hours": 12}
    assert listed["creator"] == "alice"
    assert [s["player"] for s in listed["seats"]] == ["alice", None, None]
    assert 3600 <= listed["waiting_seconds"] < 3700
    assert listed["fill_with_bots_at"] is not None
    assert "alice@example.com" not in response.content.decode()


def test_the_lobby_filters_by_player_count_and_pace(alice, bob, client_for):
    open_via_api(client_for(alice), players=2, pace="fast")
    open_via_api(client_for(bob), players=4, pace="slow")
    lobby = client_for(None)
    assert [g["players"] for g in lobby.get("/api/v1/lobby", {"players": "4"}).json()] == [4]
    assert [g["pace"] for g in lobby.get("/api/v1/lobby", {"pace": "fast"}).json()] == ["fast"]
    assert lobby.get("/api/v1/lobby", {"players": "4", "pace": "fast"}).json() == []
    bad = lobby.get("/api/v1/lobby", {"pace": "glacial"})
    assert bad.status_code == 400
    assert bad.json()["code"] == "bad_filter"


def test_invitation_only_and_full_games_are_not_listed(alice, bob, lobby_game, client_for):
    assert client_for(None).get("/api/v1/lobby").json() == [], "an unlisted game with an open seat is private"
    game = open_via_api(client_for(alice))
    client_for(bob).post(f"/api/v1/games/{game['id']}/join", {}, format="json")
    assert client_for(None).get("/api/v1/lobby").json() == []


def test_joining_an_open_game_in_one_request_starts_it_when_full(alice, bob, client_for):
    game = open_via_api(client_for(alice), players=2)
    response = client_for(bob).post(f"/api/v1/games/{game['id']}/join", {}, format="json")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "active", "the last open seat taken: the game is dealt"
    assert body["my_seat"] == 1
    assert body["state"] is not None
    again = client_for(bob).post(f"/api/v1/games/{game['id']}/join", {}, format="json")
    assert again.status_code == 409
    assert again["Content-Type"] == "application/problem+json"


def test_play_now_seats_you_in_a_waiting_game_that_fits_or_opens_one(alice, bob, make_user, client_for):
    carol = make_user("carol@example.com")
    first = client_for(alice).post("/api/v1/lobby/play-now", {"players": 3, "pace": "fast"}, format="json")
    assert first.status_code == 201
    assert first.json()["joined"] is False
    opened = first.json()["game"]["id"]
    other_pace = client_for(bob).post("/api/v1/lobby/play-now", {"players": 3, "pace": "slow"}, format="json")
    assert other_pace.status_code == 201
    assert other_pace.json()["game"]["id"] != opened
    joined = client_for(carol).post("/api/v1/lobby/play-now", {"players": 3, "pace": "fast"}, format="json")
    assert joined.status_code == 200
    assert joined.json()["joined"] is True
    assert joined.json()["game"]["id"] == opened
    again = client_for(alice).post("/api/v1/lobby/play-now", {"players": 3, "pace": "fast"}, format="json")
    assert again.status_code == 200
    assert again.json()["game"]["id"] == opened, "asking again while waiting gives the same game, not a second"
    assert [s["player"] for s in again.json()["game"]["seats"]].count(alice.public_name) == 1


@pytest.mark.parametrize(
    "body", [{"players": 5}, {"players": 2, "pace": "glacial"}, {"players": 2, "bots_after_hours": 0}, {}]
)
def test_bad_play_now_requests_are_problems(alice, client_for, body):
    response = client_for(alice).post("/api/v1/lobby/play-now", body, format="json")
    assert response.status_code == 400
    assert response["Content-Type"] == "application/problem+json"


def test_play_now_needs_an_account(client_for):
    assert client_for(None).post("/api/v1/lobby/play-now", {"players": 2}, format="json").status_code == 401


def test_bots_fill_an_open_game_after_the_hours_asked(alice, bob, client_for):
    game = open_via_api(client_for(alice), players=4, bots_after_hours=3)
    client_for(bob).post(f"/api/v1/games/{game['id']}/join", {}, format="json")
    assert fill_open_games_with_bots() == 0, "not yet"
    Game.objects.filter(public_id=game["id"]).update(fill_with_bots_at=timezone.now() - timedelta(minutes=1))
    assert fill_open_games_with_bots() == 1
    assert fill_open_games_with_bots() == 0, "filled once"
    loaded = store.load(game["id"])
    assert loaded.game.status == Game.Status.ACTIVE
    assert [s.bot for s in loaded.seats] == ["", "", open_games.FILL_BOT, open_games.FILL_BOT]


def test_a_rematch_offers_the_same_players_a_new_game(alice, bob, client_for):
    finished = two_player_game(alice, bob)
    resign(finished, alice)
    response = client_for(bob).post(f"/api/v1/games/{finished.public_id}/rematch")
    assert response.status_code == 201, response.content
    rematch = response.json()["game"]
    assert rematch["status"] == "lobby"
    assert [s["player"] for s in rematch["seats"]] == [None, "bob"], "everyone keeps their seat"
    assert rematch["seats"][0]["invited"] is True
    accepted = client_for(alice).post(f"/api/v1/games/{finished.public_id}/rematch")
    assert accepted.status_code == 200
    assert accepted.json()["joined"] is True
    assert accepted.json()["game"]["id"] == rematch["id"]
    assert accepted.json()["game"]["status"] == "active", "everyone is back: the rematch starts"
    assert Game.objects.get(public_id=rematch["id"]).rematch_of == finished


def test_a_rematch_against_bots_starts_at_once(alice, bot_game, client_for):
    resign(bot_game, alice)
    services.play_bot_turns(game_id=bot_game.public_id)
    body = client_for(alice).post(f"/api/v1/games/{bot_game.public_id}/rematch").json()
    assert body["game"]["status"] == "active"
    assert [s["bot"] for s in body["game"]["seats"]] == ["", "greedy", "random", "random"]


def test_only_players_of_a_finished_game_ask_for_a_rematch(alice, bob, stranger, started_game, client_for):
    early = client_for(alice).post(f"/api/v1/games/{started_game.public_id}/rematch")
    assert early.status_code == 409
    assert early.json()["code"] == "game_not_finished"
    resign(started_game, alice)
    outsider = client_for(stranger).post(f"/api/v1/games/{started_game.public_id}/rematch")
    assert outsider.status_code == 404  # a private game is not there for a stranger
    assert outsider.json()["code"] == "game_not_found"
    started_game.public = True
    started_game.save(update_fields=["public"])
    outsider = client_for(stranger).post(f"/api/v1/games/{started_game.public_id}/rematch")
    assert outsider.status_code == 403
    assert outsider.json()["code"] == "not_a_player"
    assert client_for(alice).post("/api/v1/games/not-a-game/rematch").status_code == 404


def test_the_bot_fill_sweep_is_scheduled(settings):
    from manhattan_site.celery import app

    entry = settings.CELERY_BEAT_SCHEDULE["fill-open-games-with-bots"]
    assert entry["task"] in app.tasks
    assert entry["task"] == fill_open_games_with_bots.name


def test_the_demo_leaves_one_open_game_in_the_lobby(client_for):
    from io import StringIO

    from django.core.management import call_command

    call_command("seed_demo", stdout=StringIO())
    call_command("seed_demo", stdout=StringIO())  # safe to run again
    [waiting] = client_for(None).get("/api/v1/lobby").json()
    assert (waiting["creator"], waiting["players"], waiting["pace"]) == ("Alice", 2, "fast")
