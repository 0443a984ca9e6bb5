"""A game is called by its name wherever it is named: the lobby, the watch list,
the spectator page, the game page and the tabs' titles; never "Game <id>"."""

from __future__ import annotations

import re

import pytest

from games.models import Game
from games.services import open_games

pytestmark = pytest.mark.django_db


def title_of(html: str) -> str:
    found = re.search(r"<title>(.*?)</title>", html, re.S)
    assert found
    return found.group(1)


def assert_named(html: str, game: Game) -> None:
    assert game.title in html
    text = re.sub(r"<[^>]*>", " ", html)  # what a reader sees (links and attributes carry the id)
    assert str(game.public_id)[:8] not in text, "the id stands for the name"
    assert not re.search(r"\bGame [0-9a-f]{8}\b", html)


def test_the_lobby_names_its_open_games(alice, browser):
    game = open_games.open_game(creator=alice, players=3)
    html = browser(None).get("/games/lobby/").content.decode()
    assert_named(html, game)


def test_the_watch_list_and_the_spectator_page_name_the_game(started_game, stranger, browser):
    started_game.public = True
    started_game.save(update_fields=["public"])
    assert_named(browser(stranger).get("/games/watch/").content.decode(), started_game)
    spectator = browser(stranger).get(f"/games/{started_game.public_id}/watch/").content.decode()
    assert started_game.title in title_of(spectator)
    assert f"<h1>{started_game.title}</h1>" in spectator


def test_the_game_page_and_its_tab_carry_the_name(started_game, alice, browser):
    html = browser(alice).get(f"/games/{started_game.public_id}/").content.decode()
    assert title_of(html).startswith(started_game.title)
    assert f"<h1>{started_game.title}</h1>" in html
