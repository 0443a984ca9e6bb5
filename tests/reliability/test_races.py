"""Races under attack: 32 clients at once, real threads, real database connections.

Every round, 32 API clients (each its own thread, its own database connection
and its own API token of the player to act) send the game's next action at
the same version at the same moment (a barrier releases them together).
Exactly one must be accepted; every other one is told the game has moved on
(409 ``stale_version``, or 412 with ``If-Match``); the log has no gap and no
duplicate and folds to the game's version. Idempotency-Key retries racing
each other add one event at most.

The suite runs these on SQLite (a file test database, IMMEDIATE transactions)
and on PostgreSQL (``DATABASE_URL=postgres://…``; the game row lock); see
docs/reliability.md.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts.models import User
from accounts.services import create_api_token
from games import store
from games.models import Game, GameEvent, IdempotencyKey
from notifications.models import Notification
from tests.factories import two_player_game
from tests.support.concurrency import race

pytestmark = pytest.mark.django_db(transaction=True)

CLIENTS = 32
ROUNDS = 5


@dataclass
class Table:
    """A started two-player game and 32 API clients for each of its two players."""

    game: Game
    clients: dict[int, list[APIClient]]  # seat index -> clients of that seat's player

    @property
    def url(self) -> str:
        return f"/api/v1/games/{self.game.public_id}/actions"

    def to_act(self) -> list[APIClient]:
        self.game.refresh_from_db()
        assert self.game.to_act_seat is not None
        return self.clients[self.game.to_act_seat]


def clients_of(user: User, count: int) -> list[APIClient]:
    clients = []
    for i in range(count):
        client = APIClient()
        client.raise_request_exception = False  # a 500 is a status to assert on, not a crash of the thread
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {create_api_token(user=user, name=f'race {i}').raw}")
        clients.append(client)
    return clients


def new_table(alice: User, bob: User) -> Table:
    game = two_player_game(alice, bob)
    return Table(game=game, clients={0: clients_of(alice, CLIENTS), 1: clients_of(bob, CLIENTS)})


@pytest.fixture
def tables(alice: User, bob: User) -> list[Table]:
    """Two games, played in turn, so that the rounds hop between games as in the long run."""
    return [new_table(alice, bob), new_table(alice, bob)]


def legal_actions(client: APIClient, game: Game) -> dict[str, Any]:
    response = client.get(f"/api/v1/games/{game.public_id}/legal-actions")
    assert response.status_code == 200, response.content
    legal: dict[str, Any] = response.json()
    assert legal["my_turn"], legal
    return legal


def candidate_actions(legal: dict[str, Any]) -> list[dict[str, Any]]:
    """Legal actions in the API's JSON form: the selection, or every placement."""
    if legal["selection"]:
        selection = legal["selection"]
        pieces = [int(size) for size, n in selection["reserve"].items() for _ in range(n)][: selection["count"]]
        return [{"type": "select", "pieces": pieces}]
    return [
        {"type": "place", "card": entry["card"], "city": o["city"], "size": o["size"], "colour": o["colour"]}
        for entry in legal["placements"]
        for o in entry["options"]
    ]


def log_of(game: Game) -> list[int]:
    return list(GameEvent.objects.filter(game=game).order_by("seq").values_list("seq", flat=True))


def assert_log_whole(game: Game) -> None:
    """No gap, no duplicate, and the log folds to exactly the game's version."""
    game.refresh_from_db()
    seqs = log_of(game)
    assert seqs == list(range(1, game.version + 1)), seqs
    state = store.state_of(game)
    assert state is not None
    assert state.seq == game.version
    assert state.to_act == game.to_act_seat


def post_action(client: APIClient, url: str, body: dict[str, Any], **headers: str) -> Any:
    return client.post(url, body, format="json", **headers)


@pytest.mark.slow  # 32 threads racing, many trials
def test_32_clients_same_action_same_version_exactly_one_accepted(tables: list[Table]) -> None:
    accepted_per_round: list[int] = []
    statuses: Counter[int] = Counter()
    for round_ in range(ROUNDS):
        table = tables[round_ % len(tables)]
        clients = table.to_act()
        version = table.game.version
        action = candidate_actions(legal_actions(clients[0], table.game))[0]
        calls: list[Callable[[], Any]] = []
        for i, client in enumerate(clients):
            # Half say the version in the body, half with If-Match (as a browser and a script would).
            if i % 2:
                calls.append(partial(post_action, client, table.url, {"action": action}, HTTP_IF_MATCH=f'"{version}"'))
            else:
                calls.append(partial(post_action, client, table.url, {"action": action, "expected_version": version}))

        responses = race(calls)

        codes = [r.status_code for r in responses]
        statuses.update(codes)
        winners = [r for r in responses if r.status_code == 200]
        accepted_per_round.append(len(winners))
        assert len(winners) == 1, [(r.status_code, r.content[:200]) for r in responses]
        table.game.refresh_from_db()
        new_version = winners[0].json()["version"]
        assert table.game.version == new_version > version
        for i, response in enumerate(responses):
            if response.status_code == 200:
                continue
            expected = (412, "precondition_failed") if i % 2 else (409, "stale_version")
            assert (response.status_code, response.json()["code"]) == expected, response.content
            assert response.json()["current_version"] == new_version
        assert_log_whole(table.game)

    assert accepted_per_round == [1] * ROUNDS
    assert set(statuses) == {200, 409, 412}, statuses
    for table in tables:
        # Every email the accepted moves caused was written once (the outbox key is unique).
        keys = list(Notification.objects.filter(game=table.game).values_list("key", flat=True))
        assert len(keys) == len(set(keys))


@pytest.mark.slow  # 32 threads racing, many trials
def test_32_clients_with_32_different_moves_at_one_version(alice: User, bob: User) -> None:
    """Each client sends a different legal placement: one is stored, and it is the one answered 200."""
    table = new_table(alice, bob)
    for _ in range(ROUNDS):
        for _ in range(10):  # both players select for both colours: then the first placement is due
            clients = table.to_act()
            legal = legal_actions(clients[0], table.game)
            if not legal["selection"]:
                break
            response = post_action(
                clients[0], table.url, {"action": candidate_actions(legal)[0], "expected_version": legal["version"]}
            )
            assert response.status_code == 200, response.content
        clients = table.to_act()
        legal = legal_actions(clients[0], table.game)
        options = candidate_actions(legal)
        assert len(options) >= 2, "a placement has several legal options"
        moves = [options[i % len(options)] for i in range(CLIENTS)]
        version = legal["version"]

        responses = race(
            [
                partial(post_action, c, table.url, {"action": m, "expected_version": version})
                for c, m in zip(clients, moves, strict=True)
            ]
        )

        winners = [i for i, r in enumerate(responses) if r.status_code == 200]
        assert len(winners) == 1, Counter(r.status_code for r in responses)
        assert all(r.status_code == 409 for i, r in enumerate(responses) if i != winners[0])
        won = moves[winners[0]]
        stored = GameEvent.objects.get(game=table.game, seq=version + 1).payload
        assert stored["type"] == "piece_placed", stored
        assert (stored["card"] + 1, stored["city"] + 1, stored["size"]) == (won["card"], won["city"], won["size"])
        assert_log_whole(table.game)


def test_idempotent_retries_racing_each_other_add_one_event(tables: list[Table]) -> None:
    for round_ in range(ROUNDS):
        table = tables[round_ % len(tables)]
        clients = table.to_act()
        version = table.game.version
        body = {"action": candidate_actions(legal_actions(clients[0], table.game))[0], "expected_version": version}
        key = f"retry-{round_}"

        responses = race([partial(post_action, c, table.url, body, HTTP_IDEMPOTENCY_KEY=key) for c in clients])

        # Every retry gets the stored success, byte for byte; one action was stored.
        assert [r.status_code for r in responses] == [200] * CLIENTS, Counter(r.status_code for r in responses)
        assert all(r.json() == responses[0].json() for r in responses)
        table.game.refresh_from_db()
        assert table.game.version == responses[0].json()["version"] > version
        assert IdempotencyKey.objects.filter(game=table.game, key=key).count() == 1
        assert_log_whole(table.game)
        # A late retry still gets the same answer and adds nothing.
        again = post_action(clients[-1], table.url, body, HTTP_IDEMPOTENCY_KEY=key)
        assert (again.status_code, again.json()) == (200, responses[0].json())
        assert log_of(table.game)[-1] == table.game.version


def test_two_idempotency_keys_racing_for_one_move(tables: list[Table]) -> None:
    """Two devices retry the same move, each with its own key: one key wins
    and all its retries see the success; the other key's see a conflict."""
    for round_ in range(ROUNDS):
        table = tables[round_ % len(tables)]
        clients = table.to_act()
        version = table.game.version
        body = {"action": candidate_actions(legal_actions(clients[0], table.game))[0], "expected_version": version}
        keys = [f"device-a-{round_}", f"device-b-{round_}"]

        responses = race(
            [partial(post_action, c, table.url, body, HTTP_IDEMPOTENCY_KEY=keys[i % 2]) for i, c in enumerate(clients)]
        )

        by_key: dict[str, list[Any]] = {k: [r for i, r in enumerate(responses) if keys[i % 2] == k] for k in keys}
        winning = [k for k in keys if any(r.status_code == 200 for r in by_key[k])]
        assert len(winning) == 1, Counter(r.status_code for r in responses)
        losing = next(k for k in keys if k not in winning)
        assert all(r.status_code == 200 and r.json() == by_key[winning[0]][0].json() for r in by_key[winning[0]])
        assert all(r.status_code == 409 for r in by_key[losing]), Counter(r.status_code for r in by_key[losing])
        table.game.refresh_from_db()
        assert table.game.version == by_key[winning[0]][0].json()["version"]
        assert list(IdempotencyKey.objects.filter(game=table.game, key__in=keys).values_list("key", flat=True)) == [
            winning[0]
        ]
        assert_log_whole(table.game)
