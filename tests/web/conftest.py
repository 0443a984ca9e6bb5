"""Fixtures for the play pages: signed-in browsers and games moved along."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client

from accounts.models import User
from games import engine, services, store
from games.engine import SelectPieces
from games.models import Game


@pytest.fixture(autouse=True)
def _fresh_cache() -> Any:
    """The sign-in throttle counts in the cache: every test starts from zero."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def browser() -> Callable[[User | None], Client]:
    """A web client signed in as ``user`` (or anonymous)."""

    def make(user: User | None, **kwargs: Any) -> Client:
        client = Client(**kwargs)
        if user is not None:
            client.force_login(user)
        return client

    return make


def select_all(game: Game) -> engine.GameState:
    """Play every selection of the round (smallest pieces first); returns the state after."""
    while True:
        game.refresh_from_db()
        state = store.state_of(game)
        assert state is not None
        if state.phase != engine.SELECTION:
            return state
        colour = state.selecting_colour
        assert colour is not None
        assert state.to_act is not None
        seat = game.seats.get(index=state.to_act)
        assert seat.user is not None
        reserve = state.reserve[colour]
        pieces = [s for s in (1, 2, 3, 4) for _ in range(reserve[s - 1])][: state.options.pieces_per_round]
        services.submit_action(
            game_id=game.public_id,
            user=seat.user,
            action=SelectPieces(pieces=tuple(pieces)),
            expected_version=game.version,
        )


@pytest.fixture
def placing_game(started_game: Game) -> Game:
    """The started two-player game after every colour selected: alice (seat 0) to build."""
    state = select_all(started_game)
    assert state.phase == engine.PLACEMENT
    assert state.to_act == 0
    started_game.refresh_from_db()
    return started_game
