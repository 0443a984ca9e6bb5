"""The loop a player repeats every turn, on one page: the other player's move
arrives live, and the next building still goes up by touching the board; the
player sits on the page the whole time and gets no "your turn" email."""

from __future__ import annotations

import random

import pytest

from accounts.models import User
from games.models import Game

from .live import (
    click_to_build_is_ready,
    deliver_pending,
    move_by_api,
    open_game,
    sent_turn_emails,
    signed_in,
    to_act,
    wait_for_version,
    wait_until_present,
)
from .playing import build_by_touching, select_by_form

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def test_every_building_after_a_live_move_goes_up_by_touching_and_no_turn_email_comes(
    server, browser, started_game: Game, alice: User, bob: User
):
    page = open_game(signed_in(browser, server, alice), server, started_game)
    rng = random.Random(21)
    built_after_a_live_move = 0
    live_move_arrived = False
    for _ in range(80):
        if built_after_a_live_move >= 6:
            break
        if to_act(started_game) == bob:
            version = move_by_api(server, started_game, bob)
            wait_for_version(page, version)  # by itself: this page is never reloaded
            deliver_pending()  # as the worker does on commit: alice is on the page
            live_move_arrived = True
            continue
        started_game.refresh_from_db()
        if page.get_by_test_id("select-form").count():
            select_by_form(page, started_game, rng)
        else:
            click_to_build_is_ready(page)
            build_by_touching(page, started_game, rng)  # which needs "Build here" visible
            built_after_a_live_move += live_move_arrived
        live_move_arrived = False
        wait_until_present(page, alice)  # the new page (after alice's own move) says so
    assert built_after_a_live_move >= 6
    assert sent_turn_emails(started_game, alice) == 0


@pytest.mark.parametrize("language", ["en", "de"])
def test_a_whole_two_player_game_by_clicking_with_the_page_open_throughout(
    server, browser, started_game: Game, alice: User, bob: User, language: str
):
    """The journey: every building of alice's whole game goes up by touching the
    board, with bob's moves arriving live, and she gets no turn email at all."""
    User.objects.filter(pk=alice.pk).update(language=language)
    page = open_game(signed_in(browser, server, alice), server, started_game)
    rng = random.Random(language)
    built = 0
    for _ in range(400):
        started_game.refresh_from_db()
        if started_game.status != Game.Status.ACTIVE:
            break
        if to_act(started_game) == bob:
            wait_for_version(page, move_by_api(server, started_game, bob))
            deliver_pending()
            continue
        if page.get_by_test_id("select-form").count():
            select_by_form(page, started_game, rng)
        else:
            click_to_build_is_ready(page)
            build_by_touching(page, started_game, rng)
            built += 1
        started_game.refresh_from_db()
        if started_game.status == Game.Status.ACTIVE:  # a finished game's page says nothing
            wait_until_present(page, alice)
    started_game.refresh_from_db()
    assert started_game.status == Game.Status.FINISHED
    assert built >= 16
    page.wait_for_function("() => !document.querySelector('[data-testid=place-form]')")
    assert page.get_by_test_id("hand").count() == 0  # a finished game shows no cards
    assert sent_turn_emails(started_game, alice) == 0
