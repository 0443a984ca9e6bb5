"""A real SSE client for the stream tests (the live ASGI server they open it on,
``asgi_server``, is shared with other folders: tests/support/asgi_fixtures.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.sse import SseClient


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
