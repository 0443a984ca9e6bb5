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
        form.locator(f'input[name="card"][value="{choice.card + 1}"]').first.check()
        form.locator(f'input[name="size"][value="{choice.size}"]').check()
        if len(state.colours[seat.index]) > 1:
            form.locator(f'input[name="colour"][value="{engine.COLOUR_NAMES[choice.colour]}"]').check()
        form.locator(f'input[name="city"][value="{choice.city + 1}"]').check()
        form.get_by_test_id("submit-move").click()
    page.wait_for_load_state()
    assert page.get_by_test_id("refusal-message").count() == 0, page.get_by_test_id("refusal-message").inner_text()
