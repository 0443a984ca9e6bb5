"""axe-core (from npm, injected into the page) finds no accessibility violation
of any impact on every page: the games list, the new-game form, a game's page
while building (with a card and a lot chosen) and once finished, the lobby, the
watch list, the spectator page, a profile, the leaderboard, the preferences,
sign-in, the developer apps and the admin's game page; on a desktop and a phone."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection

from accounts.models import User
from games import engine, services, store
from games.models import Game
from tests.factories import resign, two_player_game
from tests.support.browser import DESKTOP, PHONE, axe_violations, describe, signed_in

EVERY_IMPACT = ("minor", "moderate", "serious", "critical")

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
def test_no_violation_on_any_page(connections_closed, live_server, browser, viewport):
    alice = User.objects.create_user("alice@example.com", display_name="alice", is_staff=True, is_superuser=True)
    bob = User.objects.create_user("bob@example.com", display_name="bob")
    game = building_game(alice)
    game.public = True
    game.save(update_fields=["public"])
    services.create_game(
        creator=alice, options={"players": 2}, seats=[services.SeatSpec("me"), services.SeatSpec("open")]
    )
    finished = two_player_game(alice, bob, name="Finished 1")
    resign(finished, bob)
    page = signed_in(browser, live_server.url, alice, viewport, bypass_csp=True).new_page()
    found: dict[str, str] = {}

    def check(name: str) -> None:
        violations = axe_violations(page, EVERY_IMPACT)
        if violations:
            found[name] = describe(violations)

    for path in (
        "/games/",
        "/games/new/",
        "/games/lobby/",
        "/games/watch/",
        f"/games/{game.public_id}/watch/",
        f"/players/{alice.pk}/",
        "/leaderboard/",
        "/mail/preferences/",
        "/accounts/developer/apps/",
        f"/games/{finished.public_id}/",
        f"/admin/games/game/{game.pk}/change/",
        f"/games/{game.public_id}/",
    ):
        page.goto(live_server.url + path)
        check(path)
    # The game page again in the middle of building: a card chosen, its lots lit, a lot's pieces listed.
    page.locator("#place-form label.card-choice").first.click()
    page.locator("[data-testid=board] g.lot.can-build").first.click()
    check("game page, building")
    anonymous = browser.new_context(viewport=viewport, bypass_csp=True).new_page()
    anonymous.goto(live_server.url + "/accounts/login/")
    violations = axe_violations(anonymous, EVERY_IMPACT)
    if violations:
        found["/accounts/login/"] = describe(violations)
    assert not found, "\n".join(f"{path}:\n{text}" for path, text in found.items())
