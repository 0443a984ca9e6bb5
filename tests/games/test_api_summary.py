"""The game summary of API responses, and how many queries a move and a read cost.

``GameSummarySerializer`` writes its representation by hand for speed; these
tests hold it to exactly what DRF's generic field-by-field walk gives, in
every stage of a game and for every kind of caller. The query counts keep the
hot paths from sliding back into one query per seat.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework import serializers
from rest_framework.test import APIClient

from accounts.models import User
from games import services
from games.api.serializers import GameSummarySerializer
from games.models import Game


class _Request:
    def __init__(self, user: User) -> None:
        self.user = user


def _both(game: Game, user: User) -> tuple[dict[str, Any], dict[str, Any]]:
    serializer = GameSummarySerializer(game, context={"request": _Request(user)})
    generic = serializers.ModelSerializer.to_representation(serializer, game)
    return serializer.to_representation(game), dict(generic)


@pytest.mark.django_db
@pytest.mark.parametrize("who", ["alice", "bob", "stranger"])
def test_summary_is_drfs_representation_in_the_lobby(lobby_game: Game, who: str, request: Any) -> None:
    user = request.getfixturevalue(who)
    fast, generic = _both(services.get_game(lobby_game.public_id), user)
    assert fast == generic


@pytest.mark.django_db
@pytest.mark.parametrize("who", ["alice", "bob", "stranger"])
def test_summary_is_drfs_representation_while_playing(started_game: Game, who: str, request: Any) -> None:
    user = request.getfixturevalue(who)
    user.display_name = "Shown Name" if who == "bob" else ""
    user.save()
    fast, generic = _both(services.get_game(started_game.public_id), user)
    assert fast == generic
    assert fast["my_turn"] == (who == "alice")


@pytest.mark.django_db
def test_summary_is_drfs_representation_when_finished(started_game: Game, alice: User) -> None:
    game = services.get_game(started_game.public_id)
    game.status, game.finished = Game.Status.FINISHED, timezone.now()
    fast, generic = _both(game, alice)
    assert fast == generic
    assert fast["finished"] is not None
    assert fast["my_turn"] is False


def _some_action(legal: dict[str, Any]) -> dict[str, Any]:
    """The first legal action: pieces for the round, or the first placement option."""
    if legal.get("selection"):
        reserve = legal["selection"]["reserve"]
        pool = [int(size) for size, n in reserve.items() for _ in range(n)]
        return {"type": "select", "pieces": sorted(pool[: legal["selection"]["count"]])}
    placement = legal["placements"][0]
    return {"type": "place", "card": placement["card"], **placement["options"][0]}


@pytest.mark.django_db
def test_a_move_and_a_read_cost_a_fixed_number_of_queries(
    started_game: Game, alice: User, client_for: Callable[[User | None], APIClient]
) -> None:
    """Token, game with its secret, the seats with their users, the log; a move adds
    the writes. Four seats or two, the counts are the same (no query per seat)."""
    client = client_for(alice)
    url = f"/api/v1/games/{started_game.public_id}"
    client.get(f"{url}/legal-actions")  # the token's last-used time is written once; not counted
    with CaptureQueriesContext(connection) as read:
        legal = client.get(f"{url}/legal-actions")
    assert legal.status_code == 200
    assert len(read) <= 4, [q["sql"] for q in read]

    action = _some_action(legal.json())
    with CaptureQueriesContext(connection) as move:
        response = client.post(
            f"{url}/actions", {"action": action, "expected_version": legal.json()["version"]}, format="json"
        )
    assert response.status_code == 200, response.content
    # token, lock (with the secret), seats, log, insert events, update game, and the
    # "your turn" email in its savepoint (it was 24 when each seat was read on its own)
    assert len(move) <= 8, [q["sql"] for q in move]
    # Seats and events are never joined to their game only to be sorted (as
    # ordering them by the relation "game" instead of "game_id" would do).
    for query in [*read, *move]:
        if re.search(r'FROM "games_(seat|gameevent)"', query["sql"]):
            assert 'JOIN "games_game"' not in query["sql"], query["sql"]
