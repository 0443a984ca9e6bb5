"""Two server processes on one PostgreSQL database and one Redis: a move posted
to one reaches a stream held by the other within a second."""

from __future__ import annotations

import os
import random
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import httpx
import pytest
import redis
from django.db import connection

from games import engine, store
from games.engine.bots import random_bot

from .conftest import end_other_sessions
from .test_game_stream import token

ROOT = Path(__file__).resolve().parents[2]
REDIS_URL = "redis://127.0.0.1:6379/11"


def redis_reachable() -> bool:
    try:
        return bool(redis.Redis.from_url(REDIS_URL, socket_timeout=1).ping())
    except redis.RedisError:
        return False


pytestmark = [
    pytest.mark.postgres,
    pytest.mark.slow,
    pytest.mark.skipif(not redis_reachable(), reason="no Redis on 127.0.0.1:6379"),
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def database_url_of_the_tests() -> str:
    """The URL of the test database, for a server process of its own."""
    settings = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{settings['NAME']}"
    return f"postgres://{settings['USER']}@{settings['HOST']}:{settings['PORT']}/{settings['NAME']}"


def start_server(database_url: str, channel: str, redis_url: str = REDIS_URL) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "STREAMS_REDIS_URL")}
    env.update(
        DATABASE_URL=database_url,
        STREAMS_CHANNEL=channel,
        DJANGO_SETTINGS_MODULE="manhattan_site.settings",
        DJANGO_ENV="test",
        PYTHONPATH=str(ROOT),
    )
    if redis_url:
        env["REDIS_URL"] = redis_url
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "manhattan_site.asgi:application",
            "--port",
            str(port),
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=env,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            httpx.get(f"{url}/api/v1/schema/", timeout=2)
            return process, url
        except httpx.TransportError:
            assert process.poll() is None, "the server process died"
            assert time.monotonic() < deadline, "the server process did not start"
            time.sleep(0.2)


@pytest.fixture
def two_servers(transactional_db):
    database_url = database_url_of_the_tests()
    channel = f"test-streams-{uuid.uuid4().hex}"
    servers = [start_server(database_url, channel) for _ in range(2)]
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
    assert game_latency < 1.0
    assert user_latency < 1.0
    assert user_event.data["seq"] == loaded.game.version + 1
