"""The visibility crawler's streams: every async route with a game id (found by
walking the URL resolver) is opened on a live ASGI server by each identity for
each kind of game in each state. Someone who may not see the game gets exactly
the answer an unknown id gets; someone who may see it gets the stream (200),
anonymous callers aside (401 whatever the game)."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest
from django.core.cache import cache

from accounts.models import User
from games.models import Game
from games.services.visibility import watch_key
from tests.support.visibility import KINDS, STATES, Route, expected, game_routes, make_game

STREAMS = game_routes(streams=True)


def _open(server: Any, route: Route, caller: Any, game_id: str) -> tuple[Any, ...]:
    key = watch_key(Game(public_id=uuid.UUID(game_id)))
    url = server.url + route.path(game_id) + (f"?key={key}" if caller.with_key else "")
    cache.clear()  # stream slots and rate limits live in the cache: each opening starts afresh
    with httpx.Client(timeout=10) as client, client.stream("GET", url, headers=caller.headers) as response:
        body = b"" if response.status_code == 200 else response.read()
        text = body.decode().replace(game_id, "<id>")
        return response.status_code, response.headers.get("content-type", ""), text


@pytest.mark.parametrize("kind", KINDS)
def test_a_stream_opens_only_for_who_may_see_the_game(kind, asgi_server, make_user):
    from tests.support.visibility import Caller

    alice, bob = make_user("alice@example.com"), make_user("bob@example.com")
    make_user("dave@example.com")
    callers = {
        "player": Caller(alice),
        "invitee": Caller(User.objects.get(email="dave@example.com")),
        "stranger": Caller(make_user("eve@example.com")),
        "anonymous": Caller(None),
        "watcher": Caller(make_user("watcher@example.com"), with_key=True),
        "operator": Caller(make_user("operator@example.com", is_staff=True)),
    }
    games = {state: make_game(kind, state, alice, bob) for state in STATES}
    unknown = str(uuid.uuid4())
    leaks = []
    for identity, caller in callers.items():
        for route in STREAMS:
            baseline = _open(asgi_server, route, caller, unknown)
            assert baseline[0] in (401, 404), baseline
            for state, game in games.items():
                answer = _open(asgi_server, route, caller, str(game.public_id))
                sees = expected(kind, state, identity)
                if sees and answer[0] != 200 and not (identity == "anonymous" and answer == baseline):
                    leaks.append(f"{identity} {route.name} ({kind}, {state}) was refused: {answer}")
                if not sees and answer != baseline:
                    leaks.append(f"{identity} {route.name} ({kind}, {state}) could tell it exists: {answer}")
    assert not leaks, "\n".join(leaks)
