"""What the live page tests share: the site served by the ASGI server (the
streams need it), players signed in to it, moves made by the API, and waiting
for a page to show a version by itself."""

from __future__ import annotations

import random
import time

import httpx
from django.test import Client
from playwright.sync_api import Browser, BrowserContext, Page

from accounts.models import User
from accounts.services import create_api_token
from games import engine, store
from games.engine.bots import random_bot
from games.models import Game, Presence
from notifications import outbox
from notifications.models import Kind, Notification
from tests.streams.conftest import AsgiServer


def signed_in(
    browser: Browser, server: AsgiServer, user: User, viewport: dict[str, int] | None = None
) -> BrowserContext:
    client = Client()
    client.force_login(user)
    context = browser.new_context(viewport=viewport) if viewport else browser.new_context()
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


def wait_for_version(page: Page, version: int, timeout: float = 5000) -> float:
    """Seconds until the page shows ``version`` (by itself: the page is never reloaded)."""
    started = time.monotonic()
    page.wait_for_function(
        "v => document.getElementById('live-script').dataset.version === String(v)", arg=version, timeout=timeout
    )
    assert str(version) in page.get_by_test_id("game-status").inner_text()  # "event N", in any language
    return time.monotonic() - started


def open_game(context: BrowserContext, server: AsgiServer, game: Game) -> Page:
    page = context.new_page()
    page.goto(f"{server.url}/games/{game.public_id}/")
    page.evaluate("window.notReloaded = true")  # gone if the page ever reloads
    return page


def deliver_pending() -> None:
    """What the worker does on commit of each move."""
    for pk in Notification.objects.filter(status=Notification.Status.PENDING).values_list("pk", flat=True):
        outbox.deliver(pk)


def sent_turn_emails(game: Game, user: User) -> int:
    deliver_pending()
    return Notification.objects.filter(
        game=game, user=user, kind=Kind.YOUR_TURN, status=Notification.Status.SENT
    ).count()


def wait_until_present(page: Page, user: User) -> None:
    """Until this page load's own heartbeat is recorded."""
    page.wait_for_function("() => Boolean(document.getElementById('live-script').dataset.presencePage)")
    page_id = page.evaluate("document.getElementById('live-script').dataset.presencePage")
    for _ in range(300):  # its one heartbeat on load; slow on a busy machine
        if Presence.objects.filter(user=user, page=page_id).exists():
            return
        page.wait_for_timeout(50)
    raise AssertionError("the page never said it was there")


def click_to_build_is_ready(page: Page) -> None:
    """The page offers building by touching, not the plain form alone."""
    assert page.locator("#build-options").count() == 1, "the page lost its build options"
    assert page.get_by_test_id("build-choices").is_visible(), "fell back to the plain form"
    # One build button, and only once it can be used: none before a card and a lot are chosen.
    assert not page.get_by_test_id("build-confirm").is_visible()
    assert not page.locator("#place-form [data-testid=submit-move]").is_visible()
