"""A reader that stops taking what it is sent is dropped, not queued for."""

from __future__ import annotations

import asyncio
from typing import Any

from streams.streams import Watchdog


class Stuck:
    """A stream whose request task is stuck in a send since ``since``."""

    def __init__(self, task: asyncio.Task[Any], since: float | None) -> None:
        self.task = task
        self.sending_since = since


def test_the_watchdog_cancels_a_stream_stuck_in_a_send_and_spares_the_others(settings):
    settings.STREAMS_SEND_TIMEOUT_SECONDS = 0.2

    async def scenario() -> tuple[bool, bool]:
        loop = asyncio.get_running_loop()
        stuck_task = loop.create_task(asyncio.sleep(10))
        reading_task = loop.create_task(asyncio.sleep(10))
        watchdog = Watchdog()
        watchdog.watch(Stuck(stuck_task, since=loop.time()))
        watchdog.watch(Stuck(reading_task, since=None))
        # Until the watchdog (every STREAMS_SEND_TIMEOUT_SECONDS) has cancelled the stuck one.
        deadline = loop.time() + 10
        while not stuck_task.done() and loop.time() < deadline:
            await asyncio.sleep(0.02)
        result = stuck_task.cancelled(), reading_task.cancelled()
        reading_task.cancel()
        return result

    stuck, reading = asyncio.run(scenario())
    assert stuck
    assert not reading
