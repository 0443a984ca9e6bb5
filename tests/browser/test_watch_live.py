"""A stranger watches a public game live in headless Chromium: the page follows
the moves by itself (signed in, through the game's stream; not signed in, by
asking for the page now and then; never by a meta refresh), shows no hand,
and replays the game."""

from __future__ import annotations

from typing import Any

import pytest

from accounts.models import User
from games import engine, store
from games.services import open_games
from tests.factories import select_all
from tests.support import pages
from tests.support.browser import signed_in
from tests.support.waiting import PAGE_TIMEOUT_MS

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_stranger_watches_a_public_game_live(
    live_server_connections_closed: Any, live_server: Any, browser: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("games.web.watch.LIVE_POLL_SECONDS", 1)
    alice = User.objects.create_user("alice@example.com")
    bob = User.objects.create_user("bob@example.com")
    game = open_games.open_game(creator=alice, players=2)
    open_games.take_seat(game=game, user=bob)
    game.refresh_from_db()

    page = browser.new_context().new_page()
    page.goto(f"{live_server.url}/games/watch/")
    page.get_by_test_id("public-game").get_by_role("link").click()
    page.wait_for_load_state()
    assert page.get_by_test_id("board").count() == 1
    assert page.locator("meta[http-equiv=refresh]").count() == 0
    page.evaluate("window.notReloaded = true")
    assert page.get_by_test_id("replay-position").inner_text() == f"Event {game.version} of {game.version}"

    select_all(game)  # the players choose their pieces meanwhile
    game.refresh_from_db()
    page.wait_for_function(
        "expected => document.querySelector('[data-testid=replay-position]').textContent.includes(expected)",
        arg=f"Event {game.version} of {game.version}",
        timeout=PAGE_TIMEOUT_MS,
    )
    assert page.evaluate("window.notReloaded") is True
    assert page.get_by_test_id("hand").count() == 0
    assert page.locator("input[name=card]").count() == 0

    with page.expect_navigation():  # the page swaps its content in place: a link stays a link
        page.get_by_test_id("replay-prev").click()
    assert page.get_by_test_id("replay-position").inner_text() == f"Event {game.version - 1} of {game.version}"
    loaded = store.load(game.public_id)
    assert loaded.state is not None
    assert loaded.state.phase == engine.PLACEMENT


def test_a_signed_in_spectator_follows_the_game_s_stream(server, browser, started_game, stranger) -> None:
    started_game.public = True
    started_game.save(update_fields=["public"])
    page = signed_in(browser, server, stranger).new_page()
    streams: list[str] = []
    page.on("request", lambda request: streams.append(request.url) if "/stream" in request.url else None)
    page.goto(f"{server.url}/games/{started_game.public_id}/watch/")
    page.evaluate("window.notReloaded = true")
    for _ in range(3):
        version = pages.move_by_api(server, started_game, pages.to_act(started_game))
        page.wait_for_function(
            "v => document.getElementById('live-script').dataset.version === String(v)",
            arg=version,
            timeout=PAGE_TIMEOUT_MS,
        )
        assert f"Event {version} of {version}" in page.get_by_test_id("replay-position").inner_text()
    assert page.evaluate("window.notReloaded") is True
    assert any(f"/api/v1/games/{started_game.public_id}/stream" in url for url in streams)
    page.context.close()
