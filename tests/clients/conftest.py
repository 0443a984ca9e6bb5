"""A live ASGI server whose bots move at once (no worker in the tests), for
clients that play whole games over HTTP."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.core.cache import cache

from games import tasks
from tests.support.bot_turns import bots_move_soon
from tests.support.live_server import AsgiServer, end_other_sessions


@pytest.fixture
def game_server(transactional_db: Any, monkeypatch: pytest.MonkeyPatch, settings: Any) -> Iterator[AsgiServer]:
    """The site under uvicorn; a bot's turn is played just after the move before it is committed.
    Heartbeats every 2 s, so a client that catches up on them does so quickly on a busy machine."""
    settings.STREAMS_HEARTBEAT_SECONDS = 2
    cache.clear()  # throttle counters outlive other tests' databases
    monkeypatch.setattr(tasks.play_bot_turns, "delay", bots_move_soon)
    with AsgiServer() as server:
        yield server
    end_other_sessions()
