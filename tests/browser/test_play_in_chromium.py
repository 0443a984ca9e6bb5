"""Two invited players play a whole game in headless Chromium.

They follow their magic links from the outbox, join, select and place pieces
through the web forms, and see each other's moves, while a bot fills the
third seat. A thread stands in for the Celery worker: it delivers the outbox
and plays the bot's turns, calling the same services the tasks call.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from django.core import mail
from django.db import connection
from playwright.sync_api import Browser, Page, sync_playwright

from accounts.models import User
from games import engine, store
from games import services as games
from games.models import Game
from games.services import play
from notifications import outbox

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
LINK = re.compile(r"https?://[^\s/]+/accounts/link/[a-z]+/[^/\s]+/")


class Worker(threading.Thread):
    """Delivers pending emails and plays due bot turns, as the worker would."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.stop = threading.Event()
        self.failure: BaseException | None = None

    def run(self) -> None:
        try:
            while not self.stop.wait(0.2):
                outbox.sweep_outbox()
                for public_id in play.games_waiting_for_bots().values_list("public_id", flat=True):
                    games.play_bot_turns(game_id=public_id)
        except BaseException as error:  # surfaced by the test
            self.failure = error
        finally:
            connection.close()


@pytest.fixture
def worker() -> Iterator[Worker]:
    thread = Worker()
    thread.start()
    yield thread
    thread.stop.set()
    thread.join(timeout=10)


INSTALL_HINT = "Chromium is missing: install Debian's (apt-get install chromium) to run the browser test"


@pytest.fixture
def browser(monkeypatch: pytest.MonkeyPatch) -> Iterator[Browser]:
    if not shutil.which(CHROMIUM) and not os.path.exists(CHROMIUM):
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{INSTALL_HINT} (under CI the browser test must run)")
        pytest.skip(INSTALL_HINT)
    # Playwright's sync API keeps an event loop on this thread, which makes
    # Django refuse ORM calls here; the test's own ORM calls are plain sync code.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        yield chromium
        chromium.close()


def link_for(email: str, kind: str) -> str:
    for message in reversed(mail.outbox):
        if message.to == [email]:
            match = LINK.search(str(message.body))
            if match and f"/link/{kind}/" in match.group(0):
                return match.group(0)
    raise AssertionError(f"no {kind} link was emailed to {email}")


def wait_for(condition: Any, worker: Worker, timeout: float = 20) -> None:
    import time

    deadline = time.monotonic() + timeout
    while not condition():
        assert worker.failure is None, worker.failure
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


def play_turn(page: Page, game: Game, user: User, rng: random.Random) -> None:
    """Take the seat's turn through the page's forms."""
    loaded = store.load(game.public_id)
    seat = loaded.seat_of(user)
    assert seat is not None
    state = loaded.state
    assert state is not None
    legal = engine.legal_actions(engine.player_view(state, seat.index))
    if legal.selection is not None:
        form = page.get_by_test_id("select-form")
        reserve = list(legal.selection.reserve)
        chosen = [0, 0, 0, 0]
        for _ in range(legal.selection.count):
            size = rng.choice([s for s in range(4) if reserve[s] > chosen[s]])
            chosen[size] += 1
        for size in range(4):
            form.get_by_test_id(f"select-size-{size + 1}").fill(str(chosen[size]))
        form.get_by_test_id("submit-move").click()
    else:
        form = page.get_by_test_id("place-form")
        choice = rng.choice(legal.placements)
        form.locator(f'input[name="card"][value="{choice.card + 1}"]').first.check()
        form.locator(f'input[name="size"][value="{choice.size}"]').check()
        if len(state.colours[seat.index]) > 1:
            form.locator(f'input[name="colour"][value="{engine.COLOUR_NAMES[choice.colour]}"]').check()
        form.locator(f'input[name="city"][value="{choice.city + 1}"]').check()
        form.get_by_test_id("submit-move").click()
    page.wait_for_load_state()
    assert page.get_by_test_id("refusal-message").count() == 0, page.get_by_test_id("refusal-message").inner_text()


def test_two_invited_players_play_a_whole_game_in_the_browser(
    live_server_connections_closed, live_server, settings, browser, worker
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
        page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()  # phone width
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
