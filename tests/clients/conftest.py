"""A live ASGI server whose bots move at once (no worker in the tests), for
clients that play whole games over HTTP."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.cache import cache
from django.db import OperationalError, connections

from games import tasks
from games.services import play
from tests.support.live_server import AsgiServer, end_other_sessions
from tests.support.waiting import wait_until


def bots_move_soon(game_id: str) -> None:
    """What the worker does with a queued bot turn, a moment after the human's
    move was answered (so clients wait for it, as they would for a real worker)."""

    def work() -> None:
        # On SQLite a busy moment answers "database is locked"; the worker's bot
        # sweep would try again a minute later, and so does this, at once.

        def played() -> bool:
            try:
                play.play_bot_turns(game_id=game_id)
            except OperationalError:
                connections.close_all()
                return False
            return True

        try:
            wait_until(played, timeout=10, interval=0.2, message="the bot's turn stayed locked out")
        finally:
            connections.close_all()

    threading.Timer(0.05, work).start()  # "a moment after": the delay is the behaviour, not a wait


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
