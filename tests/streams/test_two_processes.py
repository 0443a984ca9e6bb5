"""Two server processes on one PostgreSQL database and one Redis: a move posted
to one reaches a stream held by the other within a second."""

from __future__ import annotations

import random
import time
import uuid

import httpx
import pytest

from games import engine, store
from games.engine.bots import random_bot
from tests.support import redis as test_redis
from tests.support.api import token
from tests.support.live_server import end_other_sessions, start_server
from tests.support.processes import database_url_of_the_tests
from tests.support.waiting import within

REDIS_URL = test_redis.url(test_redis.TWO_PROCESSES)

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.slow,
    pytest.mark.skipif(not test_redis.reachable(REDIS_URL), reason="no Redis on 127.0.0.1:6379"),
]


@pytest.fixture
def two_servers(transactional_db):
    database_url = database_url_of_the_tests()
    channel = f"test-streams-{uuid.uuid4().hex}"
    servers = [start_server(database_url, channel, REDIS_URL) for _ in range(2)]
    yield [url for _, url in servers]
    for process, _ in servers:
        process.terminate()
        process.wait(timeout=10)
    end_other_sessions()


def test_a_move_posted_to_one_process_reaches_a_stream_on_the_other_within_a_second(
    two_servers, sse, started_game, alice, bob
):
    first, second = two_servers
    stream = sse(f"{second}/api/v1/games/{started_game.public_id}/stream", **token(bob))
    for _ in range(started_game.version):
        stream.next()
    user_stream = sse(f"{second}/api/v1/stream", **token(bob))
    user_stream.next()  # ready

    loaded = store.load(started_game.public_id)
    seat = loaded.seat_of(alice)
    legal = engine.legal_actions(engine.player_view(loaded.state, seat.index))
    assert legal.my_turn
    action = random_bot(engine.player_view(loaded.state, seat.index), random.Random(1))
    started = time.monotonic()
    response = httpx.post(
        f"{first}/api/v1/games/{started_game.public_id}/actions",
        json={"action": engine.action_to_json(action), "expected_version": loaded.game.version},
        headers=token(alice),
    )
    assert response.status_code == 200, response.text
    event = stream.next(timeout=3)
    game_latency = time.monotonic() - started
    assert event.id == str(loaded.game.version + 1)
    user_event = user_stream.until(lambda e: e.data["type"] == "move", timeout=3)
    user_latency = time.monotonic() - started
    assert game_latency < within(1.0)
    assert user_latency < within(1.0)
    assert user_event.data["seq"] == loaded.game.version + 1
