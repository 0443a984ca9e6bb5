"""Joining an open game from the public lobby in headless Chromium.

A stranger opens the lobby, signs in through the emailed link (which brings
them back to the lobby), and joins alice's open two-player game with one
click: the game starts by itself and their page shows the board. Another
player presses "Play now" and is seated in a new open game, which then shows
in the lobby for others.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core import mail

from accounts.models import User
from games.models import Game
from games.services import open_games
from notifications import outbox

pytestmark = pytest.mark.django_db(transaction=True)
# The sign-in link with where it leads afterwards (?next=).
SIGN_IN_LINK = re.compile(r"https?://[^\s/]+/accounts/link/login/[^/\s]+/(\?next=[^\s]+)?")


def sign_in_link(email: str) -> str:
    for message in reversed(mail.outbox):
        match = SIGN_IN_LINK.search(str(message.body))
        if message.to == [email] and match:
            return match.group(0)
    raise AssertionError(f"no sign-in link was emailed to {email}")


def test_a_stranger_joins_an_open_game_from_the_lobby(
    live_server_connections_closed: Any, live_server: Any, settings: Any, browser: Any
) -> None:
    settings.SITE_URL = live_server.url
    alice = User.objects.create_user("alice@example.com")
    game = open_games.open_game(creator=alice, players=2, pace="fast")

    page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    page.goto(f"{live_server.url}/games/lobby/")
    listed = page.get_by_test_id("open-game")
    assert listed.count() == 1
    assert "alice" in listed.inner_text()
    page.get_by_text("Sign in to play").click()
    page.get_by_test_id("email-input").fill("zoe@example.com")
    page.get_by_test_id("send-link").click()
    page.wait_for_load_state()
    outbox.sweep_outbox()
    page.goto(sign_in_link("zoe@example.com"))
    page.get_by_test_id("link-continue").click()
    page.wait_for_load_state()
    assert page.url.endswith("/games/lobby/"), "the link brings them back to the lobby"

    page.get_by_test_id("lobby-join").click()
    page.wait_for_load_state()
    assert page.url.endswith(f"/games/{game.public_id}/")
    assert page.get_by_test_id("board").count() == 1, "the full open game started by itself"
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    assert {s.user.email for s in game.seats.all() if s.user} == {"alice@example.com", "zoe@example.com"}

    page.goto(f"{live_server.url}/games/lobby/")
    assert page.get_by_test_id("lobby-empty").count() == 1
    page.locator('input[name="players"][value="3"]').check()
    page.locator('input[name="pace"][value="slow"]').check()
    page.get_by_test_id("play-now-button").click()
    page.wait_for_load_state()
    opened = Game.objects.get(listed=True, status=Game.Status.LOBBY)
    assert page.url.endswith(f"/games/{opened.public_id}/")
    page.goto(f"{live_server.url}/games/lobby/")
    assert page.get_by_test_id("open-game").count() == 1
    assert "You have a seat in this game." in page.get_by_test_id("open-game").inner_text()
