"""A live ASGI server (uvicorn in a thread) and a real SSE client for the stream tests."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.live_server import AsgiServer, end_other_sessions
from tests.support.sse import SseClient


@pytest.fixture
def asgi_server(transactional_db: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[AsgiServer]:
    with AsgiServer() as server:
        yield server
    end_other_sessions()


@pytest.fixture
def sse() -> Iterator[Any]:
    opened: list[SseClient] = []

    def open_stream(url: str, **headers: str) -> SseClient:
        client = SseClient(url, headers=headers)
        opened.append(client)
        return client

    yield open_stream
    for client in opened:
        client.close()
