"""Playing whole games through the pages: a thread that stands in for the Celery
worker, and a player's turn taken through the page's forms."""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection
from playwright.sync_api import Page

from accounts.models import User
from games import engine, store
from games import services as games
from games.models import Game
from games.services import play
from notifications import outbox


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
