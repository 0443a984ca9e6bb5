"""Leaving the table and coming back: while any of a player's pages of the game
is open (after a reload, in a second tab, on a phone beside the desktop) no "your turn" email comes; once the
last one is closed, the next turn brings the email again."""

from __future__ import annotations

import pytest

from accounts.models import User
from games.models import Game
from tests.support.browser import signed_in
from tests.support.pages import (
    close_and_wait_until_gone,
    deliver_pending,
    move_by_api,
    open_game,
    sent_turn_emails,
    to_act,
    wait_until_present,
)

pytestmark = pytest.mark.django_db(transaction=True)


def back_to_alice(server, game: Game, alice: User, bob: User) -> None:
    """Alice moves, then bob, until it is alice's turn again; the emails go out."""
    while to_act(game) == alice:
        move_by_api(server, game, alice)
    while to_act(game) == bob:
        move_by_api(server, game, bob)
    deliver_pending()  # as the worker does on commit of each move


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
