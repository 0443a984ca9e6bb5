"""Without Redis (``dev.py serve``: SQLite, a worker in another process), a move
written by another process still reaches the stream, by the database watcher."""

from __future__ import annotations

import time
import uuid

import pytest

from games import store
from tests.factories import play_one
from tests.support.api import token
from tests.support.live_server import end_other_sessions, start_server
from tests.support.processes import database_url_of_the_tests

pytestmark = pytest.mark.slow


@pytest.fixture
def server_without_redis(transactional_db):
    process, url = start_server(database_url_of_the_tests(), f"unused-{uuid.uuid4().hex}", redis_url="")
    yield url
    process.terminate()
    process.wait(timeout=10)
    end_other_sessions()


def test_a_move_by_another_process_reaches_the_stream_within_the_poll_interval(
    server_without_redis, sse, started_game, alice, bob
):
    stream = sse(f"{server_without_redis}/api/v1/games/{started_game.public_id}/stream", **token(bob))
    for _ in range(started_game.version):
        stream.next()
    game = store.get(started_game.public_id)
    started = time.monotonic()
    play_one(game, alice if game.to_act_seat == 0 else bob)  # in this process: the server hears no message
    event = stream.next(timeout=5)
    assert event.id == str(started_game.version + 1)
    assert time.monotonic() - started < 2.5  # STREAMS_POLL_SECONDS (1) and the read
