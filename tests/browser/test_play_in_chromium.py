"""Whole games in headless Chromium, through the web forms.

Two invited players follow their magic links from the outbox, join, select
and place pieces, and see each other's moves, while a bot fills the third
seat. And a person alone creates a game against a strong bot from the page,
plays it carelessly, and loses. A thread stands in for the Celery worker: it
delivers the outbox and plays the bots' turns, calling the same services the
tasks call.
"""

from __future__ import annotations

import random
import re
import threading
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from django.core import mail
from django.db import connection
from playwright.sync_api import Browser, Page

from accounts.models import User
from games import engine, store
from games import services as games
from games.models import Game
from games.services import lobby, play
from notifications import outbox

from .chromium import PHONE, signed_in

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

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
    live_server_connections_closed, live_server, settings, chromium: Browser, worker
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
        page = chromium.new_context(viewport=PHONE).new_page()  # phone width
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


def test_a_person_plays_a_strong_bot_from_the_page_and_loses(
    live_server_connections_closed, live_server, chromium: Browser, worker, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(lobby, "secrets", SimpleNamespace(token_hex=lambda _n: "one deal for the browser test"))
    player = User.objects.create_user("solo@example.com")
    page = signed_in(chromium, live_server.url, player, PHONE).new_page()
    page.goto(f"{live_server.url}/games/new/")
    page.locator('select[name="players"]').select_option("2")
    page.locator('select[name="seat_2"]').select_option("strong")
    page.get_by_test_id("create-game").click()
    page.wait_for_load_state()
    game = Game.objects.get(creator=player)
    assert game.status == Game.Status.ACTIVE, "every seat is taken: it starts at once"
    assert "(strong bot)" in page.get_by_test_id("player-row").nth(1).inner_text()

    rng = random.Random(3)  # a careless player: any legal move
    for _ in range(200):
        game.refresh_from_db()
        if game.status == Game.Status.FINISHED:
            break
        if game.to_act_seat != 0:  # the bot's turn: the worker plays it
            wait_for(lambda v=game.version: Game.objects.get(pk=game.pk).version != v, worker)
            continue
        page.goto(f"{live_server.url}/games/{game.public_id}/")
        play_turn(page, game, player, rng)
    state = store.load(game.public_id).state
    assert state is not None
    assert state.is_finished
    assert 0 not in state.winners, "the strong bot beats a player who moves at random"
    page.goto(f"{live_server.url}/games/{game.public_id}/")
    assert "winner" in page.get_by_test_id("player-row").nth(1).inner_text()
    assert worker.failure is None
