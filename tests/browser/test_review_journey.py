"""The review of a finished game, in Chromium: alice resigns on the page, the page waits
for the review (made by a worker thread, as the bots queue would) and shows it by itself,
chart and all; she steps through the marked moves with the keyboard and the board is
drawn anew at each; axe-core finds no violation on the page. Served by the ASGI server,
whose stream tells the page the review is ready."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection
from playwright.sync_api import Browser

from accounts.models import User
from games import engine, services, store
from games.models import Game
from games.services.review import run_review
from tests.factories import two_known_marks
from tests.support.browser import DESKTOP, PHONE, at_step, axe_violations, describe, signed_in

EVERY_IMPACT = ("minor", "moderate", "serious", "critical")

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def game_into_round_two(alice: User) -> Game:
    """alice (her first legal action each turn) against the greedy bot, until round 2."""
    game = services.create_game(
        creator=alice,
        name="Review 1",
        options={"players": 2, "start_player": 0},
        seats=[services.SeatSpec("me"), services.SeatSpec("bot", bot="greedy")],
    )
    for _ in range(200):
        services.play_bot_turns(game_id=game.public_id)
        game.refresh_from_db()
        state = store.state_of(game)
        assert state is not None
        if state.round >= 2 and state.to_act == 0 and state.phase == engine.PLACEMENT:
            return game
        action = engine.enumerate_actions(engine.player_view(state, 0))[0]
        services.submit_action(game_id=game.public_id, user=alice, action=action, expected_version=game.version)
    raise AssertionError("round 2 never came")


def review_in_a_worker(game: Game) -> threading.Thread:
    """The task on the bots queue, as a worker runs it (its own thread and connection)."""

    def run() -> None:
        try:
            run_review(str(game.public_id))
        finally:
            connection.close()

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    return worker


def test_alice_finishes_a_game_waits_for_its_review_and_steps_through_its_marked_moves(
    server: Any, browser: Browser, settings: Any, alice: User
) -> None:
    settings.GAME_REVIEW = "all"
    settings.GAME_REVIEW_ITERATIONS = 2
    game = game_into_round_two(alice)
    page = signed_in(browser, server.url, alice, DESKTOP, bypass_csp=True).new_page()
    page.goto(f"{server.url}/games/{game.public_id}/")

    # She resigns through the page: the game is over, and its review is on its way.
    page.get_by_test_id("resign-confirm").check()
    with page.expect_navigation():
        page.get_by_test_id("resign-button").click()
    assert "The game is over." in page.get_by_test_id("turn").inner_text()
    page.get_by_test_id("review-pending").wait_for()
    page.evaluate("window.notReloaded = true")

    worker = review_in_a_worker(game)
    page.get_by_test_id("review-chart").wait_for(timeout=60000)  # the stream said it is ready
    worker.join(timeout=30)
    assert page.evaluate("window.notReloaded") is True, "shown without a reload"
    assert page.locator("[data-testid=review-series]").count() == 2

    two_known_marks(game)
    page.reload()
    assert page.get_by_test_id("review-move").count() == 2
    stepper = page.get_by_test_id("review-stepper")
    assert stepper.is_visible()
    first = at_step(page, 1)
    assert page.get_by_test_id("review-prev").get_attribute("aria-disabled") == "true"
    # The bot's lot and the lot played, on the board of the position before the move.
    assert page.locator("[data-testid=review-step] [data-testid=review-best]").count() == 1
    assert page.locator("[data-testid=review-step] [data-testid=review-played]").count() == 1

    # The keyboard alone: the focus on "next", Enter, then the arrow keys.
    page.get_by_test_id("review-next").focus()
    page.keyboard.press("Enter")
    second = at_step(page, 2)
    assert second[1] != first[1], "the board is drawn anew at the next marked move"
    assert page.evaluate("document.activeElement.dataset.testid") == "review-next"
    assert page.get_by_test_id("review-next").get_attribute("aria-disabled") == "true"
    assert "2" in page.get_by_test_id("review-step-status").inner_text()
    page.keyboard.press("ArrowLeft")
    assert at_step(page, 1) == first
    page.keyboard.press("ArrowRight")
    assert at_step(page, 2) == second

    violations = axe_violations(page, EVERY_IMPACT)
    assert not violations, describe(violations)
    phone = signed_in(browser, server.url, alice, PHONE, bypass_csp=True).new_page()
    phone.goto(f"{server.url}/games/{game.public_id}/")
    at_step(phone, 1)
    violations = axe_violations(phone, EVERY_IMPACT)
    assert not violations, "on a phone: " + describe(violations)
