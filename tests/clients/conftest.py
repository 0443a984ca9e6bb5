"""A live ASGI server whose bots move at once (no worker in the tests), for
clients that play whole games over HTTP."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.core.cache import cache

from games import tasks
from games.services import play
from tests.streams.conftest import AsgiServer, end_other_sessions


@pytest.fixture
def game_server(transactional_db: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[AsgiServer]:
    """The site under uvicorn; a bot's turn is played as soon as the move before it is committed."""
    cache.clear()  # throttle counters outlive other tests' databases
    monkeypatch.setattr(tasks.play_bot_turns, "delay", lambda game_id: play.play_bot_turns(game_id=game_id))
    with AsgiServer() as server:
        yield server
    end_other_sessions()
