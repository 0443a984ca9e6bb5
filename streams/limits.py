"""How many streams a user may hold open at once, across every process.

Each open stream holds a slot that expires unless its stream renews it (at
every heartbeat), so a process that dies without closing its streams frees
their slots within a few heartbeats. The slots live in Redis when
``REDIS_URL`` is set (shared by all processes), else in this process.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import threading
import time

import redis.asyncio as aioredis
from django.conf import settings
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)


def _lifetime() -> float:
    return 3 * settings.STREAMS_HEARTBEAT_SECONDS + 5


class _LocalSlots:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._slots: dict[int, dict[str, float]] = {}

    def acquire(self, user_id: int, slot: str, limit: int) -> bool:
        now = time.time()
        with self._lock:
            held = {s: until for s, until in self._slots.get(user_id, {}).items() if until > now}
            if len(held) >= limit:
                self._slots[user_id] = held
                return False
            held[slot] = now + _lifetime()
            self._slots[user_id] = held
            return True

    def renew(self, user_id: int, slot: str) -> None:
        with self._lock:
            if slot in self._slots.get(user_id, {}):
                self._slots[user_id][slot] = time.time() + _lifetime()

    def release(self, user_id: int, slot: str) -> None:
        with self._lock:
            self._slots.get(user_id, {}).pop(slot, None)


_local = _LocalSlots()
_clients: dict[asyncio.AbstractEventLoop, aioredis.Redis] = {}


def _redis() -> aioredis.Redis:
    # A Redis client belongs to the event loop it was made on. Its pool is bounded and
    # blocking: a burst of streams opening or renewing at once waits a moment for a
    # connection instead of failing (redis-py's default pool refuses the 101st with
    # MaxConnectionsError, which made the limit fail open for every stream past ~100).
    loop = asyncio.get_running_loop()
    if loop not in _clients:
        pool = aioredis.BlockingConnectionPool.from_url(
            settings.STREAMS_REDIS_URL,
            max_connections=settings.STREAMS_REDIS_MAX_CONNECTIONS,
            timeout=5,
            socket_timeout=2,
        )
        _clients[loop] = aioredis.Redis(connection_pool=pool)
    return _clients[loop]


def _key(user_id: int) -> str:
    return f"{settings.STREAMS_CHANNEL}:slots:{user_id}"


async def acquire(user_id: int) -> str | None:
    """A slot for a new stream of ``user_id``, or None when they hold the most allowed.

    Like the API's throttles, the limit fails open: with Redis unreachable the
    stream is allowed (and the outage logged) rather than every stream refused.
    """
    slot = secrets.token_hex(8)
    limit = settings.STREAMS_PER_USER
    if not settings.STREAMS_REDIS_URL:
        return slot if _local.acquire(user_id, slot, limit) else None
    try:
        return await _acquire_in_redis(user_id, slot, limit)
    except RedisError:
        logger.warning("stream limits: Redis unavailable; stream allowed", exc_info=True)
        return slot


async def _acquire_in_redis(user_id: int, slot: str, limit: int) -> str | None:
    now = time.time()
    key = _key(user_id)
    async with _redis().pipeline(transaction=True) as pipe:
        pipe.zremrangebyscore(key, "-inf", now)
        pipe.zadd(key, {slot: now + _lifetime()})
        pipe.zcard(key)
        pipe.expire(key, int(_lifetime()) + 1)
        held = (await pipe.execute())[2]
    if held > limit:
        await _redis().zrem(key, slot)
        return None
    return slot


async def renew(user_id: int, slot: str) -> None:
    if not settings.STREAMS_REDIS_URL:
        _local.renew(user_id, slot)
        return
    key = _key(user_id)
    with contextlib.suppress(RedisError):  # the slot then expires: the limit errs on the open side
        await _redis().zadd(key, {slot: time.time() + _lifetime()}, xx=True)
        await _redis().expire(key, int(_lifetime()) + 1)


async def release(user_id: int, slot: str) -> None:
    if not settings.STREAMS_REDIS_URL:
        _local.release(user_id, slot)
        return
    with contextlib.suppress(RedisError):  # the slot expires by itself
        await _redis().zrem(_key(user_id), slot)
