"""What a client meets on the unhappy paths is in the schema: a status the server answers
for an operation is one the OpenAPI schema lists for it, so a generated client has a type
for the problem body instead of an "unexpected status" error."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rest_framework.test import APIClient

from accounts.models import User
from games.models import Game

API = "/api/v1"


def listed_statuses(schema: dict[str, Any], path: str, method: str) -> set[str]:
    return set(schema["paths"][path][method]["responses"])


def test_muting_yourself_is_a_status_the_schema_lists(
    api: Callable[[User | None], APIClient], alice: User, started_game: Game
) -> None:
    client = api(alice)
    schema = client.get(f"{API}/schema/", HTTP_ACCEPT="application/json").json()
    path = "/api/v1/games/{game_id}/seats/{index}/mute"

    answer = client.put(f"{API}/games/{started_game.public_id}/seats/0/mute")

    assert answer.json()["code"] == "mute_self"
    assert str(answer.status_code) in listed_statuses(schema, path, "put")
