"""The open-streams gauge in ``/metrics``: up while a stream is open, down once it is closed."""

from __future__ import annotations

import time
import urllib.request

import pytest

from tests.scrape import TOKEN, value

from .test_game_stream import token

pytestmark = pytest.mark.slow
OPEN = "manhattan_open_streams "


def scrape_over_http(url: str) -> str:
    request = urllib.request.Request(f"{url}/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
    with urllib.request.urlopen(request, timeout=5) as response:
        return str(response.read().decode())


def test_open_streams_are_counted_while_open(asgi_server, sse, bob, settings):
    settings.METRICS_TOKEN = TOKEN
    before = value(scrape_over_http(asgi_server.url), OPEN)
    stream = sse(f"{asgi_server.url}/api/v1/stream", **token(bob))
    assert stream.next().data == {"type": "ready"}
    assert value(scrape_over_http(asgi_server.url), OPEN) == before + 1
    stream.close()
    deadline = time.monotonic() + 10
    while value(scrape_over_http(asgi_server.url), OPEN) != before and time.monotonic() < deadline:
        time.sleep(0.2)  # the server notices the hang-up at its next write (a heartbeat)
    assert value(scrape_over_http(asgi_server.url), OPEN) == before
