"""Wake-up messages between the process that commits a move and the
processes that hold streams.

With ``REDIS_URL`` set, a message goes through Redis pub/sub, so a move
committed by any web process or worker wakes the streams of every process.
Without it (``dev.py serve``: one web process, SQLite), a message is handed
to this process's streams directly, and a watcher reads the games changed in
the last seconds once every ``STREAMS_POLL_SECONDS`` to catch what other
processes (the worker's bot moves) wrote. Either way a message only says
"look again": the streams read the events themselves.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
from dataclasses import asdict, dataclass, field
from datetime import timedelta
from typing import Any

import redis
import redis.asyncio as aioredis
from django.conf import settings
from django.utils import timezone

from games.models import Game

from .threads import run_sync

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Wake:
    """Game ``game`` (a public id) changed: its log is at ``seq``; ``lobby``
    when its seats changed rather than its log."""

    game: str
    seq: int
    lobby: bool = False


@dataclass(eq=False)
class Listener:
    """One stream's interest: the games it follows, and whether a lobby
    change of any game concerns it (a stream of a user's games may be
    invited to a game it does not know yet)."""

    games: set[str]
    lobby: bool
    loop: asyncio.AbstractEventLoop
    woken: asyncio.Event = field(default_factory=asyncio.Event)

    def notify(self, wake: Wake) -> None:
        """Runs on the listener's event loop."""
        if wake.game in self.games or (wake.lobby and self.lobby) or not wake.game:
            self.woken.set()

    async def wait(self, timeout: float) -> bool:
        """Wait for a wake-up for at most ``timeout`` seconds; True if woken."""
        try:
            await asyncio.wait_for(self.woken.wait(), timeout)
        except TimeoutError:
            return False
        self.woken.clear()
        return True


class Hub:
    """This process's listeners, and the tasks that feed them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._listeners: set[Listener] = set()
        self._feeders: dict[asyncio.AbstractEventLoop, list[asyncio.Task[None]]] = {}

    def listen(self, games: set[str], *, lobby: bool = False) -> Listener:
        loop = asyncio.get_running_loop()
        listener = Listener(games=set(games), lobby=lobby, loop=loop)
        with self._lock:
            self._listeners.add(listener)
            if loop not in self._feeders:
                self._feeders[loop] = self._start_feeders(loop)
        return listener

    def close(self, listener: Listener) -> None:
        with self._lock:
            self._listeners.discard(listener)

    def dispatch(self, wake: Wake) -> None:
        """Hand ``wake`` to every listener; callable from any thread."""
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            with contextlib.suppress(RuntimeError):  # its loop has closed
                listener.loop.call_soon_threadsafe(listener.notify, wake)

    def _start_feeders(self, loop: asyncio.AbstractEventLoop) -> list[asyncio.Task[None]]:
        tasks = []
        if settings.STREAMS_REDIS_URL:
            tasks.append(loop.create_task(self._follow_redis()))
        if settings.STREAMS_POLL_SECONDS:
            tasks.append(loop.create_task(self._watch_database(settings.STREAMS_POLL_SECONDS)))
        return tasks

    async def _follow_redis(self) -> None:
        """Subscribe to the channel, and subscribe again after any failure;
        after a gap every stream looks again, so nothing sent meanwhile is lost."""
        while True:
            client = aioredis.from_url(settings.STREAMS_REDIS_URL)
            try:
                async with client.pubsub() as pubsub:
                    await pubsub.subscribe(settings.STREAMS_CHANNEL)
                    self.dispatch(Wake(game="", seq=0))
                    async for message in pubsub.listen():
                        if message.get("type") == "message":
                            self.dispatch(Wake(**json.loads(message["data"])))
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.warning("stream wake-ups: Redis subscription lost; subscribing again", exc_info=True)
                await asyncio.sleep(1)
            finally:
                await client.aclose()

    async def _watch_database(self, every: float) -> None:
        """Wake the streams of games whose row changed since the last look."""
        known: dict[str, tuple[int, Any]] | None = None
        while True:
            try:
                rows = await run_sync(lambda: _changed_games(timedelta(seconds=every + 10)))
                seen = {str(public_id): (version, updated) for public_id, version, updated in rows}
                if known is not None:
                    for game, (version, updated) in seen.items():
                        before = known.get(game)
                        if before != (version, updated):
                            self.dispatch(
                                Wake(game=game, seq=version, lobby=before is not None and before[0] == version)
                            )
                known = seen
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.warning("stream wake-ups: could not read changed games", exc_info=True)
            await asyncio.sleep(every)


def _changed_games(within: timedelta) -> list[tuple[Any, int, Any]]:
    """Games whose row changed in the last ``within``: public id, version, time."""
    since = timezone.now() - within
    return list(Game.objects.filter(updated__gte=since).values_list("public_id", "version", "updated"))


hub = Hub()
_publishers: dict[str, redis.Redis] = {}  # by URL: one connection pool per process


def publish(wake: Wake) -> None:
    """Send ``wake`` to every process's streams (called once the change is committed)."""
    url = settings.STREAMS_REDIS_URL
    if not url:
        hub.dispatch(wake)
        return
    try:
        if url not in _publishers:
            _publishers[url] = redis.Redis.from_url(url, socket_timeout=2)
        _publishers[url].publish(settings.STREAMS_CHANNEL, json.dumps(asdict(wake)))
    except redis.RedisError:
        # The move is stored; streams here still learn of it, and the others
        # at their next wake-up or reconnection.
        logger.warning("stream wake-ups: Redis unavailable; only this process's streams woken", exc_info=True)
        hub.dispatch(wake)
