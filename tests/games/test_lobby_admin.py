"""The public lobby in the admin: operators see open games, take one off the
lobby, or seat bots and start it; ratings and results are there to read."""

from __future__ import annotations

import pytest

from games.models import Game
from games.services import open_games
from tests.factories import resign, two_player_game

pytestmark = pytest.mark.django_db


def test_operators_see_the_open_games(admin, alice, bob, lobby_game):
    game = open_games.open_game(creator=alice, players=3, pace="fast")
    page = admin.get("/admin/games/opengame/")
    assert page.status_code == 200
    html = page.content.decode()
    assert str(game.public_id) in html
    assert str(lobby_game.public_id) not in html, "only listed games"
    assert "1 of 3" in html
    assert "fast" in html
    assert admin.get(f"/admin/games/opengame/{game.pk}/change/").status_code == 200


def test_an_operator_takes_a_game_off_the_lobby(admin, alice, client_for):
    game = open_games.open_game(creator=alice, players=2)
    response = admin.post("/admin/games/opengame/", {"action": "unlist", "_selected_action": [game.pk]}, follow=True)
    assert response.status_code == 200
    game.refresh_from_db()
    assert not game.listed
    assert client_for(None).get("/api/v1/lobby").json() == []


def test_an_operator_seats_bots_and_starts(admin, alice):
    game = open_games.open_game(creator=alice, players=3)
    admin.post("/admin/games/opengame/", {"action": "fill_with_bots_now", "_selected_action": [game.pk]})
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    assert [s.bot for s in game.seats.order_by("index")] == ["", open_games.FILL_BOT, open_games.FILL_BOT]


def test_the_ratings_admin_pages(admin, alice, bob):
    resign(two_player_game(alice, bob), alice)
    for path in (
        "/admin/ratings/rating/",
        "/admin/ratings/ratingchange/",
        "/admin/ratings/seatresult/",
        "/admin/ratings/profilesetting/",
    ):
        assert admin.get(path).status_code == 200, path
    rating = admin.get("/admin/ratings/rating/").content.decode()
    assert "bob@example.com" in rating
    from ratings.models import Rating

    detail = admin.get(f"/admin/ratings/rating/{Rating.objects.get(user=bob).pk}/change/")
    assert detail.status_code == 200
