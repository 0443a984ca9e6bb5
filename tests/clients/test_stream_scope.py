"""The event streams are reads: they need a token with games:read."""

from __future__ import annotations

import httpx

from accounts.models import User
from accounts.services import create_api_token


def open_stream(url: str, token: str) -> httpx.Response:
    with (
        httpx.Client(timeout=httpx.Timeout(10)) as client,
        client.stream("GET", f"{url}/api/v1/stream", headers={"Authorization": f"Bearer {token}"}) as response,
    ):
        if response.status_code != 200:
            response.read()
        return response


def test_a_token_without_games_read_opens_no_stream(game_server):
    user = User.objects.create_user("webhooks-only@example.com")
    refused = open_stream(game_server.url, create_api_token(user=user, name="w", scope="webhooks:manage").raw)
    assert refused.status_code == 403
    assert refused.json()["code"] == "insufficient_scope"
    allowed = open_stream(game_server.url, create_api_token(user=user, name="r", scope="games:read").raw)
    assert allowed.status_code == 200
    assert allowed.headers["content-type"].startswith("text/event-stream")
