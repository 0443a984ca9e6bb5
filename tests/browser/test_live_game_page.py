"""The game page is live: two players in two Chromium contexts see each other's
moves appear without a reload, and a player on the page gets no turn email
until they leave it. The site is served by the ASGI server (the streams need it)."""

from __future__ import annotations

import pytest

from games import services
from notifications.models import Kind, Notification
from tests.support.browser import signed_in
from tests.support.pages import (
    move_by_api,
    open_game,
    sent_turn_emails,
    to_act,
    wait_for_version,
    wait_until_left,
    wait_until_present,
)
from tests.support.waiting import PAGE_TIMEOUT_MS, within

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def test_two_players_see_each_other_s_moves_appear_without_a_reload(server, browser, started_game, alice, bob):
    pages = {user.pk: open_game(signed_in(browser, server, user), server, started_game) for user in (alice, bob)}
    for _ in range(4):
        mover = to_act(started_game)
        watcher = bob if mover == alice else alice
        version = move_by_api(server, started_game, mover)
        delay = wait_for_version(pages[watcher.pk], version)
        assert delay < within(1.5)  # within a second of the move's answer, with the browser's own time
        wait_for_version(pages[mover.pk], version)
    for page in pages.values():
        assert page.evaluate("window.notReloaded") is True
        assert page.locator("[data-testid=log-line]").count() > 0
    # The tab of the player whose turn it is says so.
    current = to_act(started_game)
    page = pages[current.pk]
    page.wait_for_function("() => document.title.startsWith('(Your turn)')", timeout=PAGE_TIMEOUT_MS)
    other = pages[(bob if current == alice else alice).pk]
    assert not other.title().startswith("(Your turn)")
    assert other.evaluate("document.querySelector('link[rel~=icon]').dataset.yourTurn") == "false"


def test_a_player_on_the_page_gets_no_turn_email_and_one_again_after_leaving(
    server, browser, bot_game, alice, mailoutbox
):
    page = open_game(signed_in(browser, server, alice), server, bot_game)
    wait_until_present(page, alice)  # the page's first heartbeat
    for _ in range(3):  # alice plays, the bots answer: her turn comes back each time
        assert to_act(bot_game) == alice
        move_by_api(server, bot_game, alice)
        services.play_bot_turns(game_id=bot_game.public_id)
    assert Notification.objects.filter(game=bot_game, user=alice, kind=Kind.YOUR_TURN).exists()
    assert sent_turn_emails(bot_game, alice) == 0
    page.wait_for_function("() => document.title.startsWith('(Your turn)')", timeout=PAGE_TIMEOUT_MS)

    page_id = page.evaluate("document.getElementById('live-script').dataset.presencePage")
    page.goto("about:blank")  # she leaves the page
    wait_until_left(page_id, alice)
    move_by_api(server, bot_game, alice)
    services.play_bot_turns(game_id=bot_game.public_id)
    assert sent_turn_emails(bot_game, alice) == 1
    assert any(message.to == [alice.email] for message in mailoutbox)
