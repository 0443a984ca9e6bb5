"""The game page is live: two players in two Chromium contexts see each other's
moves appear without a reload, and a player on the page gets no turn email
until they leave it. The site is served by the ASGI server (the streams need it)."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from django.db import connection
from django.test import Client
from playwright.sync_api import Browser, BrowserContext, Page

from accounts.models import User
from accounts.services import create_api_token
from games import engine, services, store
from games.engine.bots import random_bot
from games.models import Game
from notifications import outbox
from notifications.models import Kind, Notification
from tests.streams.conftest import AsgiServer, backend_pid, end_other_sessions

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


@pytest.fixture
def browser(chromium: Browser) -> Iterator[Browser]:
    yield chromium
    # The ORM calls made under Playwright's loop have a connection of their own,
    # which the next test's may use again: closed here, not ended from outside.
    connection.close()


@pytest.fixture
def server(transactional_db: Any) -> Iterator[AsgiServer]:
    # The fixtures' own connection, which the next test's fixtures use again: the
    # others (the server's, and the one the test's ORM calls open under
    # Playwright's loop) are ended after, or PostgreSQL would not drop the database.
    fixtures_connection = backend_pid()
    with AsgiServer() as running:
        yield running
    end_other_sessions(keep={fixtures_connection})


def signed_in(browser: Browser, server: AsgiServer, user: User) -> BrowserContext:
    client = Client()
    client.force_login(user)
    context = browser.new_context()
    context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": server.url}])
    return context


def move_by_api(server: AsgiServer, game: Game, user: User) -> int:
    """``user`` plays a random legal action through the API; the new version."""
    loaded = store.load(game.public_id)
    seat = loaded.seat_of(user)
    action = random_bot(engine.player_view(loaded.state, seat.index), random.Random(loaded.game.version))
    response = httpx.post(
        f"{server.url}/api/v1/games/{game.public_id}/actions",
        json={"action": engine.action_to_json(action), "expected_version": loaded.game.version},
        headers={"Authorization": f"Bearer {create_api_token(user=user, name='browser test').raw}"},
    )
    assert response.status_code == 200, response.text
    return int(response.json()["version"])


def to_act(game: Game) -> User:
    game = store.get(game.public_id)
    seat = next(s for s in game.seats.all() if s.index == game.to_act_seat)
    assert seat.user is not None
    return seat.user


def wait_for_version(page: Page, version: int) -> float:
    """Seconds until the page shows ``version`` (by itself: the page is never reloaded)."""
    started = time.monotonic()
    page.wait_for_function(
        "v => document.getElementById('live-script').dataset.version === String(v)", arg=version, timeout=5000
    )
    assert f"event {version}" in page.get_by_test_id("game-status").inner_text()
    return time.monotonic() - started


def open_game(context: BrowserContext, server: AsgiServer, game: Game) -> Page:
    page = context.new_page()
    page.goto(f"{server.url}/games/{game.public_id}/")
    page.evaluate("window.notReloaded = true")  # gone if the page ever reloads
    return page


def test_two_players_see_each_other_s_moves_appear_without_a_reload(server, browser, started_game, alice, bob):
    pages = {user.pk: open_game(signed_in(browser, server, user), server, started_game) for user in (alice, bob)}
    for _ in range(4):
        mover = to_act(started_game)
        watcher = bob if mover == alice else alice
        version = move_by_api(server, started_game, mover)
        delay = wait_for_version(pages[watcher.pk], version)
        assert delay < 1.5  # within a second of the move's answer, with the browser's own time
        wait_for_version(pages[mover.pk], version)
    for page in pages.values():
        assert page.evaluate("window.notReloaded") is True
        assert page.locator("[data-testid=log-line]").count() > 0
    # The tab of the player whose turn it is says so.
    current = to_act(started_game)
    page = pages[current.pk]
    page.wait_for_function("() => document.title.startsWith('(Your turn)')", timeout=3000)
    other = pages[(bob if current == alice else alice).pk]
    assert not other.title().startswith("(Your turn)")
    assert other.evaluate("document.querySelector('link[rel~=icon]').dataset.yourTurn") == "false"


def deliver_pending() -> None:
    """What the worker does on commit of each move."""
    for pk in Notification.objects.filter(status=Notification.Status.PENDING).values_list("pk", flat=True):
        outbox.deliver(pk)


def sent_turn_emails(game: Game, user: User) -> int:
    deliver_pending()
    return Notification.objects.filter(
        game=game, user=user, kind=Kind.YOUR_TURN, status=Notification.Status.SENT
    ).count()


def test_a_player_on_the_page_gets_no_turn_email_and_one_again_after_leaving(
    server, browser, bot_game, alice, mailoutbox
):
    page = open_game(signed_in(browser, server, alice), server, bot_game)
    page.wait_for_timeout(500)  # the page's first heartbeat
    for _ in range(3):  # alice plays, the bots answer: her turn comes back each time
        assert to_act(bot_game) == alice
        move_by_api(server, bot_game, alice)
        services.play_bot_turns(game_id=bot_game.public_id)
    assert Notification.objects.filter(game=bot_game, user=alice, kind=Kind.YOUR_TURN).exists()
    assert sent_turn_emails(bot_game, alice) == 0
    page.wait_for_function("() => document.title.startsWith('(Your turn)')", timeout=3000)

    page.goto("about:blank")  # she leaves the page
    page.wait_for_timeout(500)
    move_by_api(server, bot_game, alice)
    services.play_bot_turns(game_id=bot_game.public_id)
    assert sent_turn_emails(bot_game, alice) == 1
    assert any(message.to == [alice.email] for message in mailoutbox)
