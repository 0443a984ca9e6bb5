"""Playing through the pages: the site served live (the streams need the ASGI
server), moves made by the API or through the page's forms and its build
board, waiting for a page to show a version by itself, and a thread that stands
in for the Celery worker."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from django.db import connection
from django.utils import timezone
from playwright.sync_api import BrowserContext, Page

from accounts.models import User
from accounts.services import create_api_token
from games import engine, store
from games import services as games
from games.engine.bots import random_bot
from games.models import Game, Presence
from games.services import play
from notifications import outbox
from notifications.models import Kind, Notification
from tests.support.live_server import AsgiServer
from tests.support.waiting import PAGE_TIMEOUT_MS, wait_until


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
        "v => document.getElementById('live-script').dataset.version === String(v)",
        arg=version,
        timeout=PAGE_TIMEOUT_MS,
    )
    assert str(version) in page.get_by_test_id("game-status").inner_text()  # "event N", in any language
    return time.monotonic() - started


def open_game(context: BrowserContext, server: AsgiServer, game: Game) -> Page:
    page = context.new_page()
    page.goto(f"{server.url}/games/{game.public_id}/")
    page.evaluate("window.notReloaded = true")  # gone if the page ever reloads
    return page


def deliver_pending() -> None:
    """What the worker does on commit of each move, until no email is left in
    flight. With the stand-in worker running, its sweep may have claimed an
    email first: this call cannot claim it, and a count of sent emails read at
    once would miss it while the worker is still sending (the table journey
    found its reminder unsent under load). So it waits until no pending email
    is held by a live claim."""

    def settled() -> bool:
        for pk in Notification.objects.filter(status=Notification.Status.PENDING).values_list("pk", flat=True):
            outbox.deliver(pk)
        in_flight = Notification.objects.filter(status=Notification.Status.PENDING, claimed_until__gt=timezone.now())
        return not in_flight.exists()

    wait_until(settled, interval=0.1, message="an email claimed by the worker was never sent")


def sent_turn_emails(game: Game, user: User) -> int:
    deliver_pending()
    return Notification.objects.filter(
        game=game, user=user, kind=Kind.YOUR_TURN, status=Notification.Status.SENT
    ).count()


def wait_until_present(page: Page, user: User) -> None:
    """Until this page load's own heartbeat is recorded."""
    page.wait_for_function("() => Boolean(document.getElementById('live-script').dataset.presencePage)")
    page_id = page.evaluate("document.getElementById('live-script').dataset.presencePage")
    # Its one heartbeat on load: slow on a busy machine.
    wait_until(
        lambda: Presence.objects.filter(user=user, page=page_id).exists(), message="the page never said it was there"
    )


def close_and_wait_until_gone(page: Page, user: User) -> None:
    """Close the page, then wait until its "I left" reached the server."""
    page_id = page.evaluate("document.getElementById('live-script').dataset.presencePage")
    page.close()
    wait_until_left(page_id, user)


def wait_until_left(page_id: str, user: User) -> None:
    """Until the server no longer counts page ``page_id`` as open (its "I left" is on its way)."""
    wait_until(
        lambda: not Presence.objects.filter(user=user, page=page_id).exists(),
        message="the closed page never said it left",
    )


def click_to_build_is_ready(page: Page) -> None:
    """The page offers building by touching, not the plain form alone."""
    assert page.locator("#build-options").count() == 1, "the page lost its build options"
    assert page.get_by_test_id("build-choices").is_visible(), "fell back to the plain form"
    # One build button, and only once it can be used: none before a card and a lot are chosen.
    assert not page.get_by_test_id("build-confirm").is_visible()
    assert not page.locator("#place-form [data-testid=submit-move]").is_visible()


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
    """The stand-in worker, running for one test (tests/browser/conftest.py offers it)."""
    thread = Worker()
    thread.start()
    yield thread
    thread.stop.set()
    thread.join(timeout=10)


def wait_for(condition: Any, worker: Worker, timeout: float = 20) -> None:
    """Until ``condition()`` holds; the worker's failure, if it fails first."""

    def done() -> bool:
        assert worker.failure is None, worker.failure
        return bool(condition())

    wait_until(done, timeout=timeout, interval=0.1, message="timed out")


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
        # Written out: with the page's script, the form's own Build button shows for a written move only.
        colour = f" {engine.COLOUR_NAMES[choice.colour]}" if len(state.colours[seat.index]) > 1 else ""
        move = f"card {choice.card + 1} city {choice.city + 1} size {choice.size}{colour}"
        form.get_by_test_id("notation-input").fill(move)
        form.get_by_test_id("submit-move").click()
    page.wait_for_load_state()
    assert page.get_by_test_id("refusal-message").count() == 0, page.get_by_test_id("refusal-message").inner_text()


def select_by_form(page: Page, game: Game, rng: random.Random, seat: int = 0) -> None:
    state = store.state_of(game)
    assert state is not None
    choice = engine.legal_actions(engine.player_view(state, seat)).selection
    assert choice is not None
    chosen = [0, 0, 0, 0]
    for _ in range(choice.count):
        size = rng.choice([s for s in range(4) if choice.reserve[s] > chosen[s]])
        chosen[size] += 1
    form = page.get_by_test_id("select-form")
    for size in range(4):
        form.get_by_test_id(f"select-size-{size + 1}").fill(str(chosen[size]))
    with page.expect_navigation():
        form.get_by_test_id("submit-move").click()


def select_by_clicking(page: Page, game: Game, rng: random.Random, seat: int = 0) -> None:
    """Choose the round's pieces with the form's − and + alone, then send them."""
    state = store.state_of(game)
    assert state is not None
    choice = engine.legal_actions(engine.player_view(state, seat)).selection
    assert choice is not None
    form = page.get_by_test_id("select-form")
    chosen = [0, 0, 0, 0]
    for _ in range(choice.count):
        size = rng.choice([s for s in range(4) if choice.reserve[s] > chosen[s]])
        chosen[size] += 1
        form.get_by_test_id(f"select-more-{size + 1}").click()
    for size in range(4):
        assert form.get_by_test_id(f"select-size-{size + 1}").input_value() == str(chosen[size])
        assert form.get_by_test_id(f"select-more-{size + 1}").is_disabled(), "the count is reached: no more"
    assert form.get_by_test_id("select-total").inner_text() == str(choice.count)
    with page.expect_navigation():
        form.get_by_test_id("submit-move").click()
    assert page.get_by_test_id("refusal-message").count() == 0, page.get_by_test_id("refusal-message").inner_text()


def choose_a_card_and_a_lot(page: Page, rng: random.Random) -> None:
    """Touch a card of the hand, then one of the lots it lights up."""
    cards = page.locator("#place-form label.card-choice")
    lit = page.locator("[data-testid=board] g.lot.can-build")
    order = list(range(cards.count()))
    rng.shuffle(order)
    for index in order:  # late in a game a card may fit nowhere: its lots are all built too tall
        cards.nth(index).click()
        if lit.count():
            break
    assert lit.count() > 0, "some card of the hand can build somewhere"
    lit.nth(rng.randrange(lit.count())).click()
    assert page.get_by_test_id("build-piece").count() > 0


def build_by_touching(page: Page, game: Game, rng: random.Random, seat: int = 0) -> None:
    state = store.state_of(game)
    assert state is not None
    legal = engine.legal_actions(engine.player_view(state, seat))
    two_colours = len(state.colours[seat]) > 1  # a one-colour player's pieces are offered by size alone
    legal_moves = {
        (p.card + 1, p.city + 1, p.lot + 1, p.size, engine.COLOUR_NAMES[p.colour] if two_colours else "")
        for p in legal.placements
    }
    choose_a_card_and_a_lot(page, rng)
    card = int(page.locator("#place-form input[name=card]:checked").get_attribute("value") or 0)
    chosen_lot = page.locator("[data-testid=board] g.lot.chosen")
    city = int(chosen_lot.get_attribute("data-city") or 0)
    lot = int(chosen_lot.get_attribute("data-lot") or 0)
    pieces = page.get_by_test_id("build-piece")
    offered = []
    for i in range(pieces.count()):
        size = int(pieces.nth(i).get_attribute("data-size") or 0)
        colour = pieces.nth(i).get_attribute("data-colour") or ""
        offered.append((size, colour))
        assert (card, city, lot, size, colour) in legal_moves, "only legal pieces are offered"
    index = rng.randrange(len(offered))
    pieces.nth(index).check()
    before = game.version
    with page.expect_navigation():
        page.get_by_test_id("build-confirm").click()
    assert page.get_by_test_id("refusal-message").count() == 0, page.get_by_test_id("refusal-message").inner_text()
    game.refresh_from_db()
    assert game.version > before
    placed = store.event_payloads(game, after=before, upto=before + 1)[0]
    assert placed["type"] == "piece_placed"
    assert (placed["city"] + 1, placed["lot"] + 1, placed["size"]) == (city, lot, offered[index][0])
