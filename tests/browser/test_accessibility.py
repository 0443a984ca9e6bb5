"""axe-core (from npm, injected into the page) finds no serious or critical
accessibility violation on the pages a player uses most: the games list, a
game's page while building (with a card and a lot chosen), the new-game form
and the preferences."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection

from accounts.models import User
from games import engine, services, store
from games.models import Game

from .chromium import DESKTOP, PHONE, axe_violations, chromium, describe, signed_in  # noqa: F401 (a fixture)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


@pytest.fixture
def connections_closed(live_server: Any) -> Iterator[None]:
    yield
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )


def building_game(alice: User) -> Game:
    """A game against bots where alice is to build (every selection made)."""
    game = services.create_game(
        creator=alice,
        name="Harbour 27",
        options={"players": 3, "start_player": 0},
        seats=[services.SeatSpec("me"), services.SeatSpec("bot", bot="random"), services.SeatSpec("bot", bot="random")],
    )
    for _ in range(10):
        services.play_bot_turns(game_id=game.public_id)
        game.refresh_from_db()
        state = store.state_of(game)
        assert state is not None
        if state.phase == engine.PLACEMENT and state.to_act == 0:
            return game
        legal = engine.legal_actions(engine.player_view(state, 0))
        if legal.selection is not None:
            pieces = [s for s in (1, 2, 3, 4) for _ in range(legal.selection.reserve[s - 1])][: legal.selection.count]
            services.submit_action(
                game_id=game.public_id,
                user=alice,
                action=engine.SelectPieces(pieces=tuple(pieces)),
                expected_version=game.version,
            )
    raise AssertionError("alice never came to build")


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_no_serious_or_critical_violation_on_the_main_pages(connections_closed, live_server, chromium, viewport):  # noqa: F811
    alice = User.objects.create_user("alice@example.com", display_name="alice")
    game = building_game(alice)
    services.create_game(
        creator=alice, options={"players": 2}, seats=[services.SeatSpec("me"), services.SeatSpec("open")]
    )
    page = signed_in(chromium, live_server.url, alice, viewport, bypass_csp=True).new_page()
    found: dict[str, str] = {}
    for path in (
        "/games/",
        "/games/new/",
        "/mail/preferences/",
        "/accounts/developer/apps/",
        f"/games/{game.public_id}/",
    ):
        page.goto(live_server.url + path)
        violations = axe_violations(page)
        if violations:
            found[path] = describe(violations)
    # The game page again in the middle of building: a card chosen, its lots lit, a lot's pieces listed.
    page.locator("#place-form label.card-choice").first.click()
    page.locator("[data-testid=board] g.lot.can-build").first.click()
    violations = axe_violations(page)
    if violations:
        found["game page, building"] = describe(violations)
    assert not found, "\n".join(f"{path}:\n{text}" for path, text in found.items())
