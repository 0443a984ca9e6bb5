"""Leaving the table and coming back: while any of a player's pages of the game
is open (after a reload, in a second tab, on a phone beside the desktop) no "your turn" email comes; once the
last one is closed, the next turn brings the email again."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import Page

from accounts.models import User
from games.models import Game, Presence

from .live import deliver_pending, move_by_api, open_game, sent_turn_emails, signed_in, to_act, wait_until_present

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def back_to_alice(server, game: Game, alice: User, bob: User) -> None:
    """Alice moves, then bob, until it is alice's turn again; the emails go out."""
    while to_act(game) == alice:
        move_by_api(server, game, alice)
    while to_act(game) == bob:
        move_by_api(server, game, bob)
    deliver_pending()  # as the worker does on commit of each move


def close_and_wait_until_gone(page: Page, user: User) -> None:
    page_id = page.evaluate("document.getElementById('live-script').dataset.presencePage")
    page.close()
    for _ in range(100):
        if not Presence.objects.filter(user=user, page=page_id).exists():
            return
        time.sleep(0.05)  # the page is gone: its "I left" is on its way to the server
    raise AssertionError("the closed page never said it left")


def test_presence_follows_reloads_second_tabs_and_closing(server, browser, started_game: Game, alice: User, bob: User):
    context = signed_in(browser, server, alice)
    first = open_game(context, server, started_game)
    wait_until_present(first, alice)
    back_to_alice(server, started_game, alice, bob)
    assert sent_turn_emails(started_game, alice) == 0, "the page is open"

    first.reload()
    wait_until_present(first, alice)  # the new page load's own heartbeat
    back_to_alice(server, started_game, alice, bob)
    assert sent_turn_emails(started_game, alice) == 0, "the reloaded page is open"

    second = open_game(context, server, started_game)
    wait_until_present(second, alice)
    close_and_wait_until_gone(first, alice)
    back_to_alice(server, started_game, alice, bob)
    assert sent_turn_emails(started_game, alice) == 0, "the second tab is still open"

    phone = open_game(signed_in(browser, server, alice), server, started_game)  # another device at once
    phone.set_viewport_size({"width": 390, "height": 844})
    wait_until_present(phone, alice)
    close_and_wait_until_gone(second, alice)
    back_to_alice(server, started_game, alice, bob)
    assert sent_turn_emails(started_game, alice) == 0, "the phone is still at the table"

    close_and_wait_until_gone(phone, alice)
    back_to_alice(server, started_game, alice, bob)
    assert sent_turn_emails(started_game, alice) == 1, "no page open: the next turn brings the email"
