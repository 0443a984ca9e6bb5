"""A stranger, not signed in, watches a public game live in headless Chromium:
the page follows the moves by itself, shows no hand, and replays the game."""

from __future__ import annotations

from typing import Any

import pytest

from accounts.models import User
from games import engine, store
from games.services import open_games
from tests.web.conftest import select_all

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def test_a_stranger_watches_a_public_game_live(
    live_server_connections_closed: Any, live_server: Any, chromium: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("games.web.watch.LIVE_REFRESH_SECONDS", 1)
    alice = User.objects.create_user("alice@example.com")
    bob = User.objects.create_user("bob@example.com")
    game = open_games.open_game(creator=alice, players=2)
    open_games.take_seat(game=game, user=bob)
    game.refresh_from_db()

    page = chromium.new_context().new_page()
    page.goto(f"{live_server.url}/games/watch/")
    page.get_by_test_id("public-game").get_by_role("link").click()
    page.wait_for_load_state()
    assert page.get_by_test_id("board").count() == 1
    assert page.get_by_test_id("replay-position").inner_text() == f"Event {game.version} of {game.version}"

    select_all(game)  # the players choose their pieces meanwhile
    game.refresh_from_db()
    page.wait_for_function(
        "expected => document.querySelector('[data-testid=replay-position]').textContent.includes(expected)",
        arg=f"Event {game.version} of {game.version}",
        timeout=15_000,
    )
    assert page.get_by_test_id("hand").count() == 0
    assert page.locator("input[name=card]").count() == 0

    # Follow the link rather than click it: the live page may be reloading itself.
    page.goto(
        f"{live_server.url}/games/{game.public_id}/watch/" + page.get_by_test_id("replay-prev").get_attribute("href")
    )
    assert page.get_by_test_id("replay-position").inner_text() == f"Event {game.version - 1} of {game.version}"
    loaded = store.load(game.public_id)
    assert loaded.state is not None
    assert loaded.state.phase == engine.PLACEMENT
