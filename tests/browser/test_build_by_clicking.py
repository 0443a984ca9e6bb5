"""A whole game built by touching the board in Chromium, and the phone layout.

Alice plays against a random bot. Every building goes up by choosing a card,
touching a lit lot and a piece, and "Build here" (selections, which build
nothing, use their form). The bot's turns are played in the test's thread by
the same service the worker calls. (The README's pictures are taken by the
journey, test_table_journey.py.)
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection

from accounts.models import User
from games import services
from games.models import Game
from tests.support.browser import PHONE, signed_in
from tests.support.pages import build_by_touching, choose_a_card_and_a_lot, select_by_form

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def connections_closed(live_server: Any) -> Iterator[None]:
    """The live server's threads keep their database sessions; PostgreSQL will not
    drop the test database while they are open (see test_play_in_chromium)."""
    yield
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )


def bot_game(user: User, players: int = 2, sides: list[int] | None = None) -> Game:
    seats = [services.SeatSpec("me")] + [services.SeatSpec("bot", bot="random")] * (players - 1)
    options: dict[str, Any] = {"players": players, "start_player": 0}
    if sides is not None:
        options["sides"] = sides
    game = services.create_game(creator=user, name="Harbour 27", options=options, seats=seats)
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE  # every seat taken: it started by itself
    return game


def let_the_bots_move(game: Game) -> None:
    for _ in range(50):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE or game.to_act_seat == 0:
            return
        services.play_bot_turns(game_id=game.public_id)
    raise AssertionError("the bots did not hand the turn back")


@pytest.mark.slow  # a whole game by clicking: minutes
def test_a_whole_game_built_by_touching_the_board(connections_closed, live_server, browser):
    alice = User.objects.create_user("alice@example.com", display_name="alice")
    game = bot_game(alice)
    context = signed_in(browser, live_server.url, alice)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    # Script errors and Content-Security-Policy refusals; a missing favicon is no page's business.
    page.on(
        "console",
        lambda message: (
            errors.append(message.text)
            if message.type == "error" and not message.text.startswith("Failed to load resource")
            else None
        ),
    )
    page.on(
        "response",
        lambda response: (
            errors.append(f"{response.status} {response.url}")
            if response.status >= 400 and not response.url.endswith("/favicon.ico")
            else None
        ),
    )
    rng = random.Random(15)
    built = 0
    for _ in range(200):
        let_the_bots_move(game)
        if game.status == Game.Status.FINISHED:
            break
        page.goto(f"{live_server.url}/games/{game.public_id}/")
        if page.get_by_test_id("select-form").count():
            select_by_form(page, game, rng)
        else:
            build_by_touching(page, game, rng)
            built += 1
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert built >= 24  # two colours, four pieces each, six rounds... less what could not be placed
    assert not errors, errors
    page.goto(f"{live_server.url}/games/")
    assert "Harbour 27" in page.get_by_test_id("games-others").inner_text()
    assert "Winner" in page.get_by_test_id("games-others").inner_text()
    context.close()


def test_the_keyboard_builds_too(connections_closed, live_server, browser):
    alice = User.objects.create_user("alice@example.com", display_name="alice")
    game = bot_game(alice, players=3)
    page = signed_in(browser, live_server.url, alice).new_page()
    rng = random.Random(3)
    for _ in range(20):
        let_the_bots_move(game)
        page.goto(f"{live_server.url}/games/{game.public_id}/")
        if not page.get_by_test_id("select-form").count():
            break
        select_by_form(page, game, rng)
    card = page.locator("#place-form input[name=card]").first
    card.focus()
    page.keyboard.press("Space")
    lit = page.locator("[data-testid=board] g.lot.can-build")
    first = lit.first
    label = first.get_attribute("aria-label") or ""
    assert first.get_attribute("role") == "button"
    assert first.get_attribute("tabindex") == "0"
    assert label.startswith("City ")
    assert ", lot " in label
    assert label.endswith("you can build here")
    first.focus()
    page.keyboard.press("Enter")
    assert page.get_by_test_id("build-where").inner_text().startswith("City ")
    page.get_by_test_id("build-piece").first.focus()
    page.keyboard.press("Space")
    before = game.version
    with page.expect_navigation():
        page.get_by_test_id("build-confirm").focus()
        page.keyboard.press("Enter")
    game.refresh_from_db()
    assert game.version > before


@pytest.mark.parametrize("side", [0, 1], ids=["south", "west"])
def test_on_a_phone_the_board_the_hand_and_the_choices_fit_one_screen(
    connections_closed,
    live_server,
    browser,
    side,
):
    alice = User.objects.create_user("alice@example.com", display_name="alice")
    # From the west the board is drawn turned: two cities wide and three tall.
    game = bot_game(alice, players=4, sides=[side, 1 - side, 2, 3])
    page = signed_in(browser, live_server.url, alice, PHONE).new_page()
    rng = random.Random(7)
    for _ in range(20):
        let_the_bots_move(game)
        page.goto(f"{live_server.url}/games/{game.public_id}/")
        if not page.get_by_test_id("select-form").count():
            break
        select_by_form(page, game, rng)
    for _ in range(3):  # a few buildings on the board first
        build_by_touching(page, game, rng)
        let_the_bots_move(game)
        page.goto(f"{live_server.url}/games/{game.public_id}/")
        if not page.get_by_test_id("place-form").count():
            break
    if not page.get_by_test_id("place-form").count():
        pytest.skip("the round ended before alice could build again")  # seeded: does not happen
    choose_a_card_and_a_lot(page, rng)
    board = page.get_by_test_id("board").bounding_box()
    hand = page.locator("#place-form [data-testid=hand]").bounding_box()
    confirm = page.get_by_test_id("build-confirm").bounding_box()
    assert board
    assert hand
    assert confirm
    top, bottom = board["y"], confirm["y"] + confirm["height"]
    assert bottom - top <= PHONE["height"], f"board to 'Build here' spans {bottom - top:.0f}px of {PHONE['height']}"
    assert hand["y"] > board["y"]
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page is {width}px wide"
    assert page.locator("[data-testid=board] svg").get_attribute("data-side") == str(side)
    header = page.locator(".site-header").bounding_box()
    assert header
    assert header["height"] < 60, f"the menu takes {header['height']:.0f}px: it folds into one line"
    on_page = page.get_by_test_id("build-confirm").evaluate("b => b.getBoundingClientRect().bottom + window.scrollY")
    assert on_page <= PHONE["height"], f"'Build here' ends {on_page:.0f}px down the page: not on the first screen"
