"""Leaving the table and coming back: while any of a player's pages of the game
is open (after a reload, in a second tab, on a phone beside the desktop) no "your turn" email comes; once the
last one is closed, the next turn brings the email again."""

from __future__ import annotations

import random

import pytest

from accounts.models import User
from games.models import Game, Presence
from tests.support.browser import signed_in
from tests.support.pages import (
    close_and_wait_until_gone,
    deliver_pending,
    move_by_api,
    open_game,
    select_by_form,
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


def test_a_move_from_the_page_keeps_the_player_at_the_table_between_the_two_pages(
    server, browser, started_game: Game, alice: User
):
    """The page a move leads to takes over the page's presence, and the old page
    says no goodbye: otherwise a turn coming straight back to the mover (their
    own move ended the round) finds nobody at the table and sends its email."""
    page = open_game(signed_in(browser, server, alice), server, started_game)
    wait_until_present(page, alice)
    before = page.evaluate("document.getElementById('live-script').dataset.presencePage")
    goodbyes: list[str] = []
    page.on(
        "request",
        lambda request: (
            goodbyes.append(request.url)
            if request.method == "POST" and "/presence/" in request.url and "state=hidden" in (request.post_data or "")
            else None
        ),
    )
    select_by_form(page, started_game, random.Random(1))  # alice's move, from her page
    wait_until_present(page, alice)
    assert page.evaluate("document.getElementById('live-script').dataset.presencePage") == before
    assert goodbyes == [], "the old page said goodbye before the new one said hello"
    assert Presence.objects.filter(user=alice, game=started_game).count() == 1

    close_and_wait_until_gone(page, alice)  # leaving for good still says so at once
