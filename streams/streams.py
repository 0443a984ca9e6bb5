"""An open stream: replay from the database after the cursor, then follow.

A stream registers its interest before it first reads, so a move committed
between the replay and the wait still wakes it. Each wake-up makes it read
what is new after its cursor; nothing is kept in memory between reads but the
cursor. It sends a heartbeat comment when nothing happened for
``STREAMS_HEARTBEAT_SECONDS``, ends after ``STREAMS_IDLE_SECONDS`` without
an event (the client reconnects with Last-Event-ID), and a reader too slow to
take what was sent within ``STREAMS_SEND_TIMEOUT_SECONDS`` is dropped (see
``Watchdog``): the server never queues more for it than the socket's buffer.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Hashable
from typing import Any, TypeVar

from django.conf import settings

from accounts.models import User
from games.api.events import render_json
from games.models import Game
from manhattan_site.metrics import OPEN_STREAMS

from . import bus, feeds, limits
from .threads import run_sync

T = TypeVar("T")


def sse(frame: feeds.Frame) -> bytes:
    """One Server-Sent Event: its id, then its body as one line of JSON."""
    named = b"event: " + frame.event.encode() + b"\n" if frame.event else b""
    return named + b"id: " + frame.id.encode() + b"\ndata: " + render_json(frame.body) + b"\n\n"


HEARTBEAT = b": heartbeat\n\n"


class Watchdog:
    """Drops streams whose reader has not taken the last event in time.

    A stream waits in the server's send while its client is not reading; one
    task per process looks at every open stream now and then and cancels the
    request of a stream stuck in a send for too long, which closes the
    connection (the client resumes from its Last-Event-ID).
    """

    def __init__(self) -> None:
        self.open: set[Stream] = set()
        self._task: asyncio.Task[None] | None = None

    def watch(self, stream: Stream) -> None:
        self.open.add(stream)
        if self._task is None or self._task.done() or self._task.get_loop() is not asyncio.get_running_loop():
            self._task = asyncio.get_running_loop().create_task(self._patrol())

    async def _patrol(self) -> None:
        while self.open:
            timeout = settings.STREAMS_SEND_TIMEOUT_SECONDS
            await asyncio.sleep(min(5.0, timeout / 2))
            now = asyncio.get_running_loop().time()
            for stream in list(self.open):
                if stream.sending_since is not None and now - stream.sending_since > timeout and stream.task:
                    self.open.discard(stream)
                    stream.task.cancel()


watchdog = Watchdog()


class SharedReads:
    """Reads of the database that streams woken together share.

    A move wakes every stream of its game at once, and those standing at the
    same seq would each read the same rows: the first starts the read and the
    others wait for it. Nothing is kept once a read is done, so a stream that
    asks later reads afresh.
    """

    def __init__(self) -> None:
        self._running: dict[tuple[asyncio.AbstractEventLoop, Hashable], asyncio.Future[Any]] = {}

    async def get(self, key: Hashable, read: Callable[[], T]) -> T:
        slot = (asyncio.get_running_loop(), key)
        future = self._running.get(slot)
        if future is None:
            future = asyncio.ensure_future(run_sync(read))
            self._running[slot] = future
            future.add_done_callback(lambda _: self._running.pop(slot, None))
        result: T = await asyncio.shield(future)
        return result


shared_reads = SharedReads()


class Stream:
    lobby = False  # woken by any game's lobby change

    def __init__(self, *, user: User, slot: str) -> None:
        self.user = user
        self.slot = slot
        self.sending_since: float | None = None
        self.task: asyncio.Task[Any] | None = None

    def games(self) -> set[str]:
        raise NotImplementedError

    def account_still_open(self) -> bool:
        return User.objects.filter(pk=self.user.pk, is_active=True).exists()

    async def start(self) -> list[feeds.Frame]:
        """The frames that open the stream (before the first replay)."""
        return []

    async def read(self) -> list[feeds.Frame]:
        raise NotImplementedError

    async def frames(self) -> AsyncIterator[bytes]:
        loop = asyncio.get_running_loop()
        self.task = asyncio.current_task()
        listener = bus.hub.listen(self.games(), lobby=self.lobby)
        watchdog.watch(self)
        heartbeat = settings.STREAMS_HEARTBEAT_SECONDS
        OPEN_STREAMS.inc()
        try:
            yield f"retry: {settings.STREAMS_RETRY_MS}\n\n".encode()
            last_event = checked = loop.time()
            pending = await self.start()
            while True:
                if loop.time() - checked >= heartbeat:
                    # An account closed (or switched off) meanwhile: its streams end too,
                    # within a heartbeat, like every other way in (accounts/closing.py).
                    checked = loop.time()
                    if not await run_sync(self.account_still_open):
                        yield b": account closed\n\n"
                        return
                pending += await self.read()
                listener.games = self.games()
                for frame in pending:
                    self.sending_since = loop.time()
                    yield sse(frame)
                    self.sending_since = None
                    last_event = loop.time()
                if len(pending) >= feeds.PAGE:
                    pending = []
                    continue  # more to read before waiting
                pending = []
                idle_left = settings.STREAMS_IDLE_SECONDS - (loop.time() - last_event)
                if idle_left <= 0:
                    yield b": idle time-out; reconnect with Last-Event-ID\n\n"
                    return
                if not await listener.wait(min(heartbeat, idle_left)):
                    self.sending_since = loop.time()
                    yield HEARTBEAT
                    self.sending_since = None
                    await limits.renew(self.user.pk, self.slot)
        finally:
            OPEN_STREAMS.dec()
            bus.hub.close(listener)
            watchdog.open.discard(self)
            with contextlib.suppress(Exception):
                await limits.release(self.user.pk, self.slot)


class GameStream(Stream):
    def __init__(self, *, user: User, slot: str, game_id: str, after: int) -> None:
        super().__init__(user=user, slot=slot)
        self.game_id = game_id
        self.after = after
        self.talk_after: int | None = None  # a player's last message read; None for others
        self.review_told = False  # this connection said the finished game's review is ready

    def games(self) -> set[str]:
        return {self.game_id}

    async def start(self) -> list[feeds.Frame]:
        self.talk_after = await run_sync(lambda: feeds.talk_cursor(self.game_id, self.user))
        return []

    async def read(self) -> list[feeds.Frame]:
        after = self.after
        read = await shared_reads.get((self.game_id, after), lambda: feeds.read_game(self.game_id, after=after))
        frames = feeds.game_events(read, self.user)
        if frames:
            self.after = int(frames[-1].id)
        if self.talk_after is not None:
            talk_after = self.talk_after
            messages, self.talk_after = await run_sync(
                lambda: feeds.table_talk(self.game_id, self.user, after=talk_after)
            )
            # A message keeps the stream's cursor (the game's seq): resuming replays
            # moves; what was said meanwhile is in the page and GET .../messages.
            frames += [feeds.Frame(id=str(self.after), body=m, event="talk") for m in messages]
        if not self.review_told and read.loaded.game.status == Game.Status.FINISHED:
            # Once per connection, when the review is (or becomes) ready: a client that
            # reconnects to a finished game's stream hears it again, never not at all.
            review = await run_sync(lambda: feeds.review_frame(read))
            if review is not None and int(review.id) <= self.after:
                self.review_told = True
                frames.append(review)
        return frames


class UserStream(Stream):
    lobby = True

    def __init__(self, *, user: User, slot: str, cursor: feeds.Cursor | None) -> None:
        super().__init__(user=user, slot=slot)
        self.cursor = cursor
        self.following: set[str] = set()

    def games(self) -> set[str]:
        return self.following

    async def start(self) -> list[feeds.Frame]:
        if self.cursor is not None:
            return []
        # A new stream starts from now, and says where that is, so that a
        # client that drops before any event can still resume from here.
        self.cursor = await run_sync(lambda: feeds.user_cursor_now(self.user))
        return [feeds.Frame(id=feeds.format_cursor(self.cursor), body={"type": "ready"})]

    async def read(self) -> list[feeds.Frame]:
        assert self.cursor is not None
        cursor = self.cursor
        frames, self.cursor, self.following = await run_sync(lambda: feeds.user_events(self.user, cursor))
        return frames
