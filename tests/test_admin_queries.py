"""The admin with many rows: a page asks the database the same number of
statements however many games, events or messages it shows, and no page
lists every account of the site in a drop-down."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from accounts.models import User
from games.models import Game
from games.talk import services as talk
from tests.factories import open_game, select_all, two_player_game

pytestmark = pytest.mark.django_db


def statements(client: Client, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200, url
    return len(captured)


def players(make_user: Callable[..., User], count: int, tag: str) -> list[User]:
    return [make_user(f"{tag}{i}@example.com") for i in range(count)]


def test_the_games_list_with_fifty_games(admin, make_user):
    people = players(make_user, 4, "few")
    two_player_game(people[0], people[1])
    few = statements(admin, "/admin/games/game/")
    people = players(make_user, 100, "many")
    for i in range(50):
        two_player_game(people[2 * i], people[2 * i + 1])
    assert statements(admin, "/admin/games/game/") == few


def test_a_game_page_asks_as_much_at_the_first_event_as_after_many(admin, alice, bob):
    game = two_player_game(alice, bob)
    url = f"/admin/games/game/{game.pk}/change/"
    statements(admin, url)  # the first look folds the log into the process's cache
    dealt = statements(admin, url)
    select_all(game)
    game.refresh_from_db()
    assert game.version > 3
    statements(admin, url)
    assert statements(admin, url) == dealt


def test_the_table_talk_list_with_many_hidden_messages(admin, operator, make_user):
    def hide_messages(count: int, tag: str) -> None:
        people = players(make_user, 2 * count, tag)
        for i in range(count):
            game = two_player_game(people[2 * i], people[2 * i + 1])
            talk.hide(talk.post_message(game.public_id, people[2 * i], f"hello {i}", via="web"), operator)

    hide_messages(2, "few")
    few = statements(admin, "/admin/talk/tablemessage/")
    hide_messages(30, "many")
    assert statements(admin, "/admin/talk/tablemessage/") == few


@pytest.mark.parametrize("stage", ["lobby", "active"])
def test_a_game_page_does_not_list_every_account(admin, alice, bob, make_user, stage):
    others = players(make_user, 30, "someone")
    game: Game = open_game(alice) if stage == "lobby" else two_player_game(alice, bob)
    page = admin.get(f"/admin/games/game/{game.pk}/change/").content.decode()
    assert alice.email in page
    for other in others:
        assert other.email not in page


def test_the_new_token_page_does_not_list_every_account(admin, make_user):
    others = players(make_user, 30, "someone")
    page: Any = admin.get("/admin/accounts/apitoken/add/")
    assert page.status_code == 200
    for other in others:
        assert other.email not in page.content.decode()
