"""A whole game in headless Chromium, through the web forms.

Two invited players follow their magic links from the outbox, join, select
and place pieces, and see each other's moves, while a bot fills the third
seat. A thread stands in for the Celery worker (``tests.support.pages.Worker``): it
delivers the outbox and plays the bot's turns, calling the same services the
tasks call.
"""

from __future__ import annotations

import random
import re

import pytest
from django.core import mail
from playwright.sync_api import Browser, Page

from accounts.models import User
from games import services as games
from games.models import Game
from tests.support.browser import PHONE
from tests.support.pages import play_turn, wait_for, worker

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]
__all__ = ["worker"]  # the fixture, used by name

LINK = re.compile(r"https?://[^\s/]+/accounts/link/[a-z]+/[^/\s]+/")


def link_for(email: str, kind: str) -> str:
    for message in reversed(mail.outbox):
        if message.to == [email]:
            match = LINK.search(str(message.body))
            if match and f"/link/{kind}/" in match.group(0):
                return match.group(0)
    raise AssertionError(f"no {kind} link was emailed to {email}")


def test_two_invited_players_play_a_whole_game_in_the_browser(
    live_server_connections_closed, live_server, settings, browser: Browser, worker
):
    settings.SITE_URL = live_server.url
    organiser = User.objects.create_user("organiser@example.com")
    alice, bob = "alice@example.com", "bob@example.com"
    game = games.create_game(
        creator=organiser,
        options={"players": 3, "start_player": 0},
        seats=[
            games.SeatSpec("invite", email=alice),
            games.SeatSpec("invite", email=bob),
            games.SeatSpec("bot", bot="greedy"),
        ],
    )
    wait_for(lambda: len(mail.outbox) >= 2, worker)

    pages: dict[str, Page] = {}
    for email in (alice, bob):
        page = browser.new_context(viewport=PHONE).new_page()  # phone width
        page.goto(link_for(email, "invite"))
        page.get_by_test_id("link-continue").click()  # opening a link only asks; the button signs in
        page.wait_for_load_state()
        assert "/accounts/link/" not in page.url  # the token left the address bar
        page.get_by_test_id("join-button").click()
        page.wait_for_load_state()
        pages[email] = page
    game.refresh_from_db()  # the last join started it
    users = {email: User.objects.get(email=email) for email in (alice, bob)}

    rng = random.Random(5)
    seen_other_move = False
    for _ in range(400):
        game.refresh_from_db()
        if game.status == Game.Status.FINISHED:
            break
        seat = game.to_act_seat
        mover = next((e for e, u in users.items() if game.seats.get(user=u).index == seat), None)
        if mover is None:  # the bot's turn: the worker plays it
            version = game.version
            wait_for(lambda v=version: Game.objects.get(pk=game.pk).version != v, worker)
            continue
        page = pages[mover]
        page.goto(f"{live_server.url}/games/{game.public_id}/")
        before = game.version
        play_turn(page, game, users[mover], rng)
        game.refresh_from_db()
        assert game.version > before
        if not seen_other_move:
            other = pages[bob if mover == alice else alice]
            other.goto(f"{live_server.url}/games/{game.public_id}/")
            seen_other_move = users[mover].public_name in other.get_by_test_id("recent-moves").inner_text()
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert seen_other_move
    final = pages[alice]
    final.goto(f"{live_server.url}/games/{game.public_id}/")
    assert final.get_by_test_id("scores").is_visible()
    assert worker.failure is None
