"""Fixtures for the play pages: signed-in browsers and games moved along."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client

from accounts.models import User
from games import engine
from games.models import Game
from tests.factories import select_all


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


@pytest.fixture
def placing_game(started_game: Game) -> Game:
    """The started two-player game after every colour selected: alice (seat 0) to build."""
    state = select_all(started_game)
    assert state.phase == engine.PLACEMENT
    assert state.to_act == 0
    started_game.refresh_from_db()
    return started_game
