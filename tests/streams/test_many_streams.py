"""More than a hundred streams of one process opening at once all get their slot in Redis:
the slots' connections come from a bounded pool that waits, never a refusal past 100."""

from __future__ import annotations

import asyncio
import logging
import time

import pytest
import redis

from streams import limits
from tests.support import redis as test_redis

REDIS_URL = test_redis.url(test_redis.MANY_STREAMS)

pytestmark = pytest.mark.skipif(not test_redis.reachable(REDIS_URL), reason="no Redis on 127.0.0.1:6379")


def test_three_hundred_streams_opening_at_once_each_get_a_slot(settings, caplog):
    settings.STREAMS_REDIS_URL = REDIS_URL
    settings.STREAMS_CHANNEL = f"test-many-streams-{time.monotonic_ns()}"
    settings.STREAMS_PER_USER = 1000

    async def open_many() -> list[str | None]:
        try:
            slots = await asyncio.gather(*(limits.acquire(user_id=1) for _ in range(300)))
            await asyncio.gather(*(limits.renew(1, slot) for slot in slots if slot))
            return list(slots)
        finally:
            await limits._redis().aclose()
            limits._clients.pop(asyncio.get_running_loop(), None)

    with caplog.at_level(logging.WARNING, logger="streams.limits"):
        slots = asyncio.run(open_many())
    assert all(slots)
    assert not [r for r in caplog.records if "Redis unavailable" in r.getMessage()], "a slot failed open"
    held = redis.Redis.from_url(REDIS_URL).zcard(f"{settings.STREAMS_CHANNEL}:slots:1")
    assert held == 300
    redis.Redis.from_url(REDIS_URL).delete(f"{settings.STREAMS_CHANNEL}:slots:1")
