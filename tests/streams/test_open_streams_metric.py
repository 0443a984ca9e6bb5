"""The open-streams gauge in ``/metrics``: up while a stream is open, down once it is closed."""

from __future__ import annotations

import urllib.request

from tests.support.api import token
from tests.support.metrics import TOKEN, value
from tests.support.waiting import wait_until

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
    # The server notices the hang-up at its next write (a heartbeat).
    wait_until(
        lambda: value(scrape_over_http(asgi_server.url), OPEN) == before,
        interval=0.2,
        message="the closed stream is still counted",
    )
