"""The lobby page: open games for anyone to see, joining with one click,
play now, and the rematch button at the end of a game."""

from __future__ import annotations

import pytest
from django.test import Client

from games.models import Game
from games.services import open_games
from tests.factories import resign, two_player_game

pytestmark = pytest.mark.django_db


def test_anyone_sees_the_open_games_and_the_filters_work(alice, bob, browser):
    open_games.open_game(creator=alice, players=3, pace="fast", six_rounds=False)
    open_games.open_game(creator=bob, players=2, pace="slow")
    page = browser(None).get("/games/lobby/")
    assert page.status_code == 200
    html = page.content.decode()
    assert html.count('data-testid="open-game"') == 2
    assert "Opened by alice" in html
    assert "alice@example.com" not in html
    assert "Sign in to play" in html
    assert 'data-testid="lobby-join"' not in html
    filtered = browser(None).get("/games/lobby/?players=2&pace=slow").content.decode()
    assert filtered.count('data-testid="open-game"') == 1
    assert "Opened by bob" in filtered
    assert 'data-testid="lobby-empty"' in browser(None).get("/games/lobby/?pace=normal").content.decode()


def test_one_click_joins_and_the_full_game_starts(alice, bob, browser):
    game = open_games.open_game(creator=alice, players=2)
    assert 'data-testid="starts-when-full"' in browser(alice).get(f"/games/{game.public_id}/").content.decode()
    page = browser(bob).get("/games/lobby/").content.decode()
    assert f'action="/games/{game.public_id}/join/"' in page
    response = browser(bob).post(f"/games/{game.public_id}/join/")
    assert response.status_code == 302
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE


def test_play_now_from_the_page(alice, bob, browser):
    response = browser(alice).post("/games/lobby/play-now/", {"players": "2", "pace": "fast", "bots_after_hours": "6"})
    assert response.status_code == 302
    game = Game.objects.get(listed=True)
    assert response["Location"] == f"/games/{game.public_id}/"
    assert (game.reminder_first_hours, game.timeout_hours, game.fill_with_bots_at is not None) == (2, 12, True)
    again = browser(alice).post("/games/lobby/play-now/", {"players": "2", "pace": "fast"}, follow=True)
    assert again.redirect_chain[-1][0] == f"/games/{game.public_id}/"
    assert "already waiting in this game" in again.content.decode()
    joined = browser(bob).post("/games/lobby/play-now/", {"players": "2", "pace": "fast"})
    assert joined["Location"] == f"/games/{game.public_id}/"
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    bad = browser(bob).post("/games/lobby/play-now/", {"players": "7"})
    assert bad.status_code == 302
    assert bad["Location"] == "/games/lobby/"


def test_play_now_needs_a_sign_in(browser):
    response = browser(None).post("/games/lobby/play-now/", {"players": "2", "pace": "fast"})
    assert response.status_code == 302
    assert "/accounts/login/" in response["Location"]


def test_the_rematch_button_at_the_end_of_a_game(alice, bob, browser):
    game = two_player_game(alice, bob)
    assert 'data-testid="rematch-button"' not in browser(alice).get(f"/games/{game.public_id}/").content.decode()
    resign(game, alice)
    page = browser(alice).get(f"/games/{game.public_id}/").content.decode()
    assert 'data-testid="rematch-button"' in page
    assert 'data-testid="rematch-button"' not in Client().get(f"/games/{game.public_id}/").content.decode()
    response = browser(alice).post(f"/games/{game.public_id}/rematch/")
    rematch = Game.objects.get(rematch_of=game)
    assert response["Location"] == f"/games/{rematch.public_id}/"
    browser(bob).post(f"/games/{game.public_id}/rematch/")
    rematch.refresh_from_db()
    assert rematch.status == Game.Status.ACTIVE


def test_the_lobby_in_korean(alice, browser):
    open_games.open_game(creator=alice, players=4)
    html = browser(None, HTTP_ACCEPT_LANGUAGE="ko").get("/games/lobby/").content.decode()
    assert "열린 게임" in html
    assert "지금 플레이" in html
