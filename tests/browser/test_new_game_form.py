"""The new-game form shows only the fields the chosen seats need: seats up to
the number of players, an email field only for an invitation."""

from __future__ import annotations

from typing import Any

import pytest

from accounts.models import User
from games.models import Game
from tests.support.browser import signed_in

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_form_shows_the_fields_the_seats_need_and_creates_the_game(
    live_server_connections_closed: Any, live_server: Any, browser: Any
) -> None:
    alice = User.objects.create_user("alice@example.com", display_name="alice")
    page = signed_in(browser, live_server.url, alice).new_page()
    page.goto(f"{live_server.url}/games/new/")
    form = page.get_by_test_id("new-game-form")
    frame, label = form.bounding_box(), form.locator("label[for=id_name]").bounding_box()
    assert frame
    assert label
    assert label["x"] - frame["x"] < 40, "the form's lines start at its left edge, not centred"

    def shown(testid: str) -> bool:
        return page.get_by_test_id(testid).is_visible()

    assert [shown(f"seat-{n}") for n in (2, 3, 4)] == [True, True, True]  # four players at first
    assert not any(shown(f"seat-email-{n}") for n in (2, 3, 4))  # bots need no email
    form.locator("[name=players]").select_option("2")
    assert [shown(f"seat-{n}") for n in (2, 3, 4)] == [True, False, False]
    assert not shown("six-rounds")
    form.locator("[name=seat_2]").select_option("invite")
    assert shown("seat-email-2")
    form.locator("[name=email_2]").fill("bob@example.com")
    form.locator("[name=seat_2]").select_option("random")
    assert not shown("seat-email-2")
    form.locator("[name=seat_2]").select_option("invite")
    with page.expect_navigation():
        page.get_by_test_id("create-game").click()
    game = Game.objects.get()
    assert game.players == 2
    assert game.seats.count() == 2
