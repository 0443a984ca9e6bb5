"""A stream opened before its account was closed ends within a heartbeat:
closing ends every way in, open event streams included."""

from __future__ import annotations

import queue
import time

from accounts.closing import close_account
from tests.support.api import token


def test_an_open_stream_ends_when_its_account_is_closed(asgi_server, sse, settings, started_game, bob):
    settings.STREAMS_HEARTBEAT_SECONDS = 0.5
    stream = sse(f"{asgi_server.url}/api/v1/stream", **token(bob))
    assert stream.next().data == {"type": "ready"}
    close_account(user=bob)
    deadline = time.monotonic() + 10
    while True:
        assert time.monotonic() < deadline, "the stream went on after the account was closed"
        try:
            item = stream.events.get(timeout=1)
        except queue.Empty:
            continue
        if item is None:
            break  # the server ended the stream
    assert ": account closed" in stream.comments
