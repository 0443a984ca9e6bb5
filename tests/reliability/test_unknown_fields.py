"""Every write operation of the OpenAPI schema refuses a field it does not know.

The operations come from the schema itself, so an endpoint added tomorrow is
walked too: each gets its request body with one field added that no
operation takes, through a signed-in session allowed to make the request, and
must answer 422 ``unknown_field`` naming that field, and change nothing.
"""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts.models import ApiToken, User
from games.models import Game
from webhooks import services as webhooks
from webhooks import ssrf
from webhooks.models import Endpoint

pytestmark = pytest.mark.django_db

UNKNOWN = "surely_not_a_field"
WRITES = ("post", "put", "patch", "delete")
# A valid body for each operation, so that nothing but the unknown field is wrong.
VALID_BODIES: dict[str, dict[str, Any]] = {
    "POST /api/v1/games": {"seats": [{"kind": "me"}, {"kind": "open"}]},
    "POST /api/v1/games/{game_id}/join": {},
    "POST /api/v1/games/{game_id}/actions": {"action": {"type": "resign"}},
    "POST /api/v1/games/{game_id}/messages": {"text": "hello"},
    "PUT /api/v1/games/{game_id}/visibility": {"public": True},
    "POST /api/v1/lobby": {"players": 2},
    "POST /api/v1/lobby/play-now": {"players": 2},
    "PATCH /api/v1/players/{player_id}": {"hidden": True},
    "POST /api/v1/tokens": {"name": "narrow", "scopes": ["games:read"]},
    "POST /api/v1/webhooks": {"url": "https://hooks.example.com/x", "event_types": ["game.move"]},
    "PATCH /api/v1/webhooks/{endpoint_id}": {"description": "mine"},
}


def write_operations(schema: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """(method, path, operation) of every write that takes a request body."""
    return [
        (method, path, operation)
        for path, operations in schema["paths"].items()
        for method, operation in operations.items()
        if method in WRITES and "requestBody" in operation
    ]


def fill(path: str, *, game: Game, lobby: Game, user: User, endpoint: Endpoint) -> str:
    game_id = str(lobby.public_id if path.endswith("/join") else game.public_id)
    return (
        path.replace("{game_id}", game_id)
        .replace("{player_id}", str(user.pk))
        .replace("{endpoint_id}", str(endpoint.pk))
    )


def test_every_write_operation_refuses_an_unknown_field(
    alice: User, bob: User, started_game: Game, lobby_game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ssrf, "resolve_host", lambda host, port: ["93.184.216.34"])
    endpoint = webhooks.create_endpoint(
        owner=alice, url="https://hooks.example.com/a", event_types=["game.move"]
    ).endpoint
    client = APIClient()
    client.force_login(alice)  # a fresh sign-in: allowed every write, tokens too
    invitee = APIClient()
    invitee.force_login(bob)
    schema = client.get("/api/v1/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    operations = write_operations(schema)
    labels = {f"{method.upper()} {path}" for method, path, _ in operations}
    assert labels >= set(VALID_BODIES), "an operation lost its request body in the schema"
    assert labels <= set(VALID_BODIES), f"a new write operation needs a valid body here: {labels - set(VALID_BODIES)}"

    before = (started_game.version, lobby_game.seats.filter(user=bob).count(), ApiToken.objects.count())
    games_before = Game.objects.count()
    for method, path, _operation in operations:
        label = f"{method.upper()} {path}"
        url = fill(path, game=started_game, lobby=lobby_game, user=alice, endpoint=endpoint)
        caller = invitee if path.endswith("/join") else client
        response = getattr(caller, method)(url, {**VALID_BODIES[label], UNKNOWN: 1}, format="json")

        assert response.status_code == 422, (label, response.content)
        assert response["Content-Type"] == "application/problem+json", label
        problem = response.json()
        assert problem["code"] == "unknown_field", (label, problem)
        assert problem["field"] == UNKNOWN, (label, problem)

    started_game.refresh_from_db()
    assert (started_game.version, lobby_game.seats.filter(user=bob).count(), ApiToken.objects.count()) == before
    assert Game.objects.count() == games_before
    assert Endpoint.objects.get(pk=endpoint.pk).description == ""


def test_a_misspelt_scopes_never_mints_a_full_token(alice: User) -> None:
    """The typo of issue 20: 'scope' for 'scopes' used to answer 201 with every scope."""
    client = APIClient()
    client.force_login(alice)

    response = client.post("/api/v1/tokens", {"name": "narrow", "scope": ["games:read"]}, format="json")

    assert response.status_code == 422, response.content
    assert response.json()["field"] == "scope"
    assert not ApiToken.objects.filter(user=alice).exists()
    made = client.post("/api/v1/tokens", {"name": "narrow", "scopes": ["games:read"]}, format="json")
    assert made.status_code == 201
    assert made.json()["scopes"] == ["games:read"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"seats": [{"kind": "me"}, {"kind": "open", "mail": "x@example.com"}]}, "seats[1].mail"),
        ({"options": {"playres": 2}, "seats": [{"kind": "me"}, {"kind": "open"}]}, "options.playres"),
        ({"reminders": {"timeout": 2}, "seats": [{"kind": "me"}, {"kind": "open"}]}, "reminders.timeout"),
    ],
)
def test_a_nested_unknown_field_is_named_by_its_path(alice: User, body: dict[str, Any], field: str) -> None:
    client = APIClient()
    client.force_login(alice)
    response = client.post("/api/v1/games", body, format="json")
    assert response.status_code == 422
    assert response.json()["field"] == field
