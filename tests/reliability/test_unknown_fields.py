"""Every write operation of the OpenAPI schema refuses a field it does not know.

The operations come from the schema itself, so an endpoint added tomorrow is
walked too: each gets its request body with one field added that no
operation takes, through a signed-in session allowed to make the request, and
must answer 422 ``unknown_field`` naming that field, and change nothing.

The writes that take no body at all (no ``requestBody`` in the schema) are
walked the same way: a body holding anything is refused with 400
``body_not_allowed`` before they act; ``{}`` holds nothing and counts as no body.
"""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts.models import ApiToken, User
from accounts.services import create_api_token
from games.models import Game
from games.talk.models import Mute
from webhooks import services as webhooks
from webhooks import ssrf
from webhooks.models import Delivery, Endpoint

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
    "PUT /api/v1/games/{game_id}/presence": {"client": "phone-1", "state": "visible"},
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


def bodyless_write_operations(schema: dict[str, Any]) -> list[tuple[str, str]]:
    """(method, path) of every write that takes no request body."""
    return [
        (method, path)
        for path, operations in schema["paths"].items()
        for method, operation in operations.items()
        if method in WRITES and "requestBody" not in operation
    ]


def fill(path: str, *, game: Game, lobby: Game, user: User, endpoint: Endpoint, token_id: int = 0) -> str:
    game_id = str(lobby.public_id if path.endswith(("/join", "/start")) else game.public_id)
    return (
        path.replace("{game_id}", game_id)
        .replace("{player_id}", str(user.pk))
        .replace("{endpoint_id}", str(endpoint.pk))
        .replace("{token_id}", str(token_id))
        .replace("{index}", "1")
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


@pytest.mark.parametrize("body", [{UNKNOWN: 1}, [], [{}], "", 0, False])
def test_every_write_without_a_body_refuses_one(
    alice: User, started_game: Game, lobby_game: Game, monkeypatch: pytest.MonkeyPatch, body: Any
) -> None:
    monkeypatch.setattr(ssrf, "resolve_host", lambda host, port: ["93.184.216.34"])
    endpoint = webhooks.create_endpoint(
        owner=alice, url="https://hooks.example.com/a", event_types=["game.move"]
    ).endpoint
    token = create_api_token(user=alice, name="kept")
    client = APIClient()
    client.force_login(alice)  # a fresh sign-in: allowed every write, closing the account too
    schema = client.get("/api/v1/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    operations = bodyless_write_operations(schema)
    assert ("post", "/api/v1/games/{game_id}/start") in operations  # the walk found the body-less writes

    def state() -> tuple[Any, ...]:
        alice.refresh_from_db()
        return (
            Game.objects.get(pk=started_game.pk).version,
            Game.objects.get(pk=lobby_game.pk).status,
            Game.objects.count(),
            ApiToken.objects.filter(pk=token.token.pk).exists(),
            Endpoint.objects.filter(pk=endpoint.pk).values_list("secret", flat=True).first(),
            Delivery.objects.count(),
            alice.is_bot,
            alice.closed,
            Mute.objects.count(),
        )

    before = state()
    for method, path in operations:
        label = f"{method.upper()} {path}"
        url = fill(path, game=started_game, lobby=lobby_game, user=alice, endpoint=endpoint, token_id=token.token.pk)
        response = getattr(client, method)(url, body, format="json")

        assert response.status_code == 400, (label, response.content)
        assert response["Content-Type"] == "application/problem+json", label
        assert response.json()["code"] == "body_not_allowed", (label, response.json())
        assert "400" in schema["paths"][path][method]["responses"], f"{label}: the schema hides the refusal"

    assert state() == before
    # With {} (no field at all) the same request is carried out: the refusal was the body's.
    assert client.delete(f"/api/v1/tokens/{token.token.pk}", {}, format="json").status_code == 204
