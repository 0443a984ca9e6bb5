"""The OpenAPI schema says what the API does: problem bodies on every error, the
errors any operation can give, and the constraints the views enforce."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from accounts.models import User
from games.api.views import IF_MATCH_PATTERN
from games.models import Game

METHODS = ("get", "post", "put", "patch", "delete")


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    generated: dict[str, Any] = SchemaGenerator().get_schema(request=None, public=True)
    return generated


def operations(schema: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (path, method, operation)
        for path, item in schema["paths"].items()
        for method, operation in item.items()
        if method in METHODS
    ]


def test_every_error_response_is_a_problem(schema: dict[str, Any]) -> None:
    errors = [
        (path, method, status, response)
        for path, method, operation in operations(schema)
        for status, response in operation["responses"].items()
        if str(status).startswith("4")
    ]
    assert len(errors) > 40
    for path, method, status, response in errors:
        assert response["content"] == {
            "application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}
        }, (path, method, status)
    assert schema["components"]["schemas"]["Problem"]["required"] == ["type", "title", "status", "code", "detail"]


def test_errors_any_operation_can_give_are_listed_where_they_apply(schema: dict[str, Any]) -> None:
    for path, method, operation in operations(schema):
        statuses = set(operation["responses"])
        assert "429" in statuses, (path, method)
        if {} not in operation.get("security", [{}]):
            assert "401" in statuses, (path, method)
        if "{game_id}" in path:
            assert "404" in statuses, (path, method)
        if "requestBody" in operation:
            assert {"400", "413", "415"} <= statuses, (path, method)


def test_request_constraints_are_in_the_schema(schema: dict[str, Any]) -> None:
    components = schema["components"]["schemas"]
    seats = components["CreateGameRequest"]["properties"]["seats"]
    assert (seats["minItems"], seats["maxItems"]) == (2, 4)
    kinds = [option["properties"]["kind"]["enum"] for option in components["SeatSpecRequest"]["oneOf"]]
    assert kinds == [["me", "open"], ["invite"], ["bot"]]
    actions = schema["paths"]["/api/v1/games/{game_id}/actions"]["post"]
    headers = {p["name"]: p["schema"] for p in actions["parameters"] if p["in"] == "header"}
    assert headers["If-Match"]["pattern"] == IF_MATCH_PATTERN
    assert (headers["Idempotency-Key"]["minLength"], headers["Idempotency-Key"]["maxLength"]) == (1, 200)
    events = schema["paths"]["/api/v1/games/{game_id}/events"]["get"]
    after = next(p for p in events["parameters"] if p["name"] == "after")
    assert after["schema"]["minimum"] == 0
    action = components["ActionRequestRequest"]["properties"]["action"]
    assert [option["type"] for option in action["oneOf"]] == ["object"] * 4 + ["string"]
    place = action["oneOf"][0]
    assert place["additionalProperties"] is False  # strict input: no 'lot'
    assert place["properties"]["type"]["enum"] == ["place"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("header", "documented"),
    [
        ('"999"', True),
        ('W/"999"', True),
        ("999", True),
        (' "999" ', True),
        ("", False),
        ('""3""', False),
        ('"three"', False),
        ('"3.0"', False),
        ('"-3"', False),
        ('"1234567890123"', False),
        ('"²"', False),
    ],
)
def test_if_match_is_accepted_exactly_when_the_schema_allows_it(
    header: str,
    documented: bool,
    started_game: Game,
    alice: User,
    api: Callable[[User | None], APIClient],
) -> None:
    assert bool(re.search(IF_MATCH_PATTERN, header)) == documented
    response = api(alice).post(
        f"/api/v1/games/{started_game.public_id}/actions",
        {"action": "resign"},
        format="json",
        HTTP_IF_MATCH=header,
    )
    if documented:  # well-formed: a stale version, not a malformed header
        assert response.status_code == 412, response.content
    else:
        assert response.status_code == 400, response.content
        assert response.json()["code"] == "bad_if_match"
    started_game.refresh_from_db()
    assert started_game.status == Game.Status.ACTIVE


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "status"),
    [
        ({"my_turn": "true"}, 200),
        ({"my_turn": "1"}, 200),
        ({"my_turn": "false"}, 200),
        ({"my_turn": "0"}, 200),
        ({"my_turn": "yes"}, 400),
        ({"my_turn": ""}, 400),
        ({"status": "active"}, 200),
        ({"status": ""}, 400),
        ({"status": "won"}, 400),
    ],
)
def test_list_filters_take_only_documented_values(
    query: dict[str, str], status: int, alice: User, api: Callable[[User | None], APIClient]
) -> None:
    response = api(alice).get("/api/v1/games", query)
    assert response.status_code == status
    if status == 400:
        assert response.json()["code"] == "bad_filter"


@pytest.mark.django_db
@pytest.mark.parametrize(("name", "status"), [("laptop", 201), (8576, 400), (True, 400), ("   ", 400), (None, 400)])
def test_a_token_name_is_a_string_with_a_visible_character(
    name: Any, status: int, alice: User, signed_in: Callable[[User], APIClient]
) -> None:
    response = signed_in(alice).post("/api/v1/tokens", {"name": name}, format="json")
    assert response.status_code == status, response.content
    if status == 400:
        assert response.json()["code"] == "invalid"
        assert set(response.json()["errors"]) == {"name"}


def _resolve(schema: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node or len(node.get("allOf", [])) == 1:
        node = node["allOf"][0] if "allOf" in node else node
        if "$ref" in node:
            node = schema["components"]["schemas"][node["$ref"].rsplit("/", 1)[1]]
    return node


def test_every_success_body_has_its_real_type(schema: dict[str, Any]) -> None:
    """No 2xx body is a bare object: each names its properties (or is a list of such)."""
    untyped = []
    for path, method, operation in operations(schema):
        for status, response in operation["responses"].items():
            if not str(status).startswith("2") or "content" not in response:
                continue
            if list(response["content"]) == ["text/event-stream"]:
                continue  # the event streams: frames of text, described in docs/api.md
            body = _resolve(schema, response["content"]["application/json"]["schema"])
            if body.get("type") == "array":
                body = _resolve(schema, body["items"])
            if not body.get("properties"):
                untyped.append((method.upper(), path, status))
    assert untyped == []


def test_the_new_token_body_names_the_token(schema: dict[str, Any]) -> None:
    created = schema["paths"]["/api/v1/tokens"]["post"]["responses"]["201"]
    body = _resolve(schema, created["content"]["application/json"]["schema"])
    assert body["properties"]["token"]["type"] == "string"
    assert "token" in body.get("required", [])


def test_the_game_view_documents_the_board(schema: dict[str, Any]) -> None:
    game = schema["components"]["schemas"]["Game"]
    state = _resolve(schema, game["properties"]["state"])
    board = state["properties"]["board"]
    assert (board["minItems"], board["items"]["minItems"]) == (6, 9)
    assert board["items"]["items"]["nullable"] is True, "an empty lot is null"
    building = schema["components"]["schemas"]["Building"]
    assert {"owner", "height", "pieces", "storeys"} <= set(building["properties"])


def test_the_event_streams_are_in_the_schema(schema: dict[str, Any]) -> None:
    game = schema["paths"]["/api/v1/games/{game_id}/stream"]["get"]
    mine = schema["paths"]["/api/v1/stream"]["get"]
    for operation in (game, mine):
        assert list(operation["responses"]["200"]["content"]) == ["text/event-stream"]
        assert {"oauthApp": ["games:read"]} in operation["security"]
        assert "Last-Event-ID" in [p["name"] for p in operation["parameters"]]
        assert {"401", "403", "429", "503"} <= set(operation["responses"])
    assert [p["name"] for p in game["parameters"] if p["in"] == "query"] == ["after"]


def test_every_operation_that_needs_a_scope_lists_its_insufficient_scope(schema: dict[str, Any]) -> None:
    scoped = [
        (path, method, operation)
        for path, method, operation in operations(schema)
        if any(scopes for requirement in operation.get("security", []) for scopes in requirement.values())
    ]
    assert len(scoped) >= 30
    for path, method, operation in scoped:
        refusal = operation["responses"].get("403")
        assert refusal is not None, (method, path)
        assert "insufficient_scope" in refusal["description"], (method, path)
        assert refusal["content"]["application/problem+json"]


def test_if_none_match_is_declared_wherever_304_is_answered(schema: dict[str, Any]) -> None:
    conditional = [(p, m, o) for p, m, o in operations(schema) if "304" in o["responses"]]
    assert conditional
    for path, method, operation in conditional:
        headers = {p["name"] for p in operation.get("parameters", []) if p["in"] == "header"}
        assert "If-None-Match" in headers, (method, path)


def test_each_event_type_has_its_own_schema(schema: dict[str, Any]) -> None:
    from games.engine.events import EVENT_TYPES

    logged = schema["components"]["schemas"]["LoggedEvent"]
    assert logged["discriminator"]["propertyName"] == "type"
    assert set(logged["discriminator"]["mapping"]) == set(EVENT_TYPES)
    for kind, ref in logged["discriminator"]["mapping"].items():
        variant = schema["components"]["schemas"][ref.rsplit("/", 1)[1]]
        assert variant["properties"]["type"]["enum"] == [kind]
        assert {"seq", "created", "v"} <= set(variant["required"])
