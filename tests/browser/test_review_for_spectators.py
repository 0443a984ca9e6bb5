"""A spectator who is not signed in opens a public finished game's watch page in Chromium:
the bot's review is there (the chart and the marked moves), they step through the marked
moves with the buttons and the keyboard under the site's Content-Security-Policy, the step's
link opens the position on the watch page, and axe-core finds no violation on the page."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser

from accounts.models import User
from games.models import Game
from games.services.review import run_review
from tests.factories import play_until, resign, two_known_marks, two_player_bot_game
from tests.support.browser import DESKTOP, at_step, axe_violations, describe

EVERY_IMPACT = ("minor", "moderate", "serious", "critical")

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def public_reviewed_game(alice: User) -> Game:
    """A round against the greedy bot, alice resigns, the review is made with two certain
    marks on two of her placements (a tiny budget marks moves by chance)."""
    game = two_player_bot_game(alice)
    play_until(game, lambda g: g.round >= 2)
    resign(game, alice)
    Game.objects.filter(pk=game.pk).update(public=True)
    run_review(str(game.public_id))
    two_known_marks(game)
    return Game.objects.get(pk=game.pk)


def test_a_spectator_steps_through_a_finished_games_review(
    server: Any, browser: Browser, settings: Any, alice: User
) -> None:
    settings.GAME_REVIEW = "all"
    settings.GAME_REVIEW_ITERATIONS = 2
    game = public_reviewed_game(alice)
    watch_url = f"{server.url}/games/{game.public_id}/watch/"

    page = browser.new_context(viewport=DESKTOP).new_page()  # nobody signed in, the site's own CSP
    page.goto(watch_url)
    assert page.get_by_test_id("review-chart").is_visible()
    assert page.locator("[data-testid=review-series]").count() == 2
    assert page.get_by_test_id("review-move").count() == 2
    assert page.get_by_test_id("review-stepper").is_visible()
    first = at_step(page, 1)
    assert page.locator("[data-testid=review-step] [data-testid=review-played]").count() == 1

    page.get_by_test_id("review-next").click()
    second = at_step(page, 2)
    assert second[1] != first[1], "the board is drawn anew at the next marked move"
    page.keyboard.press("ArrowLeft")  # the focus is on "next"
    assert at_step(page, 1) == first

    # The step's link opens the position on the spectators' page, not a sign-in.
    at = page.get_by_test_id("review-step").get_attribute("data-at")
    with page.expect_navigation():
        page.get_by_test_id("review-step").get_by_role("link").click()
    assert page.url == f"{watch_url}?at={at}"
    assert page.get_by_test_id("replay-position").inner_text() == f"Event {at} of {game.version}"

    scanned = browser.new_context(viewport=DESKTOP, bypass_csp=True).new_page()  # axe-core is injected
    scanned.goto(watch_url)
    at_step(scanned, 1)
    violations = axe_violations(scanned, EVERY_IMPACT)
    assert not violations, describe(violations)
