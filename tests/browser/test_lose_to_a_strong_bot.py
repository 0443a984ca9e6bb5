"""A person alone creates a game against a strong bot from the new-game page,
plays every move carelessly through the page's forms, and loses. A thread
stands in for the Celery worker and plays the bot's turns."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest
from playwright.sync_api import Browser

from accounts.models import User
from games import store
from games.models import Game
from games.services import lobby
from tests.support.browser import PHONE, signed_in
from tests.support.pages import play_turn, wait_for, worker

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]
__all__ = ["worker"]  # the fixture, used by name


def test_a_person_plays_a_strong_bot_from_the_page_and_loses(
    live_server_connections_closed, live_server, browser: Browser, worker, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(lobby, "secrets", SimpleNamespace(token_hex=lambda _n: "one deal for the browser test"))
    player = User.objects.create_user("solo@example.com")
    page = signed_in(browser, live_server.url, player, PHONE).new_page()
    page.goto(f"{live_server.url}/games/new/")
    page.locator('select[name="players"]').select_option("2")
    page.locator('select[name="seat_2"]').select_option("strong")
    page.get_by_test_id("create-game").click()
    page.wait_for_load_state()
    game = Game.objects.get(creator=player)
    assert game.status == Game.Status.ACTIVE, "every seat is taken: it starts at once"
    assert "(strong bot)" in page.get_by_test_id("player-row").nth(1).inner_text()

    rng = random.Random(3)  # a careless player: any legal move
    for _ in range(200):
        game.refresh_from_db()
        if game.status == Game.Status.FINISHED:
            break
        if game.to_act_seat != 0:  # the bot's turn: the worker plays it
            wait_for(lambda v=game.version: Game.objects.get(pk=game.pk).version != v, worker)
            continue
        page.goto(f"{live_server.url}/games/{game.public_id}/")
        play_turn(page, game, player, rng)
    state = store.load(game.public_id).state
    assert state is not None
    assert state.is_finished
    assert 0 not in state.winners, "the strong bot beats a player who moves at random"
    page.goto(f"{live_server.url}/games/{game.public_id}/")
    assert "winner" in page.get_by_test_id("player-row").nth(1).inner_text()
    assert worker.failure is None
