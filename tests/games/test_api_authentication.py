"""Who the API lets in: nobody and a revoked token are refused at every endpoint
under /api/v1/, a session's writes need its CSRF token, a token's do not."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts.models import ApiToken
from accounts.services import create_api_token, revoke_api_token
from games.models import Game
from tests.support.api import API, assert_problem, event_count, legal_body, signed_in

pytestmark = pytest.mark.django_db


# --- nobody, and revoked tokens: every endpoint ---------------------------------------------

ENDPOINTS = [
    ("get", "/games"),
    ("post", "/games"),
    ("get", "/games/{game}"),
    ("post", "/games/{game}/join"),
    ("post", "/games/{game}/start"),
    ("get", "/games/{game}/legal-actions"),
    ("post", "/games/{game}/actions"),
    ("get", "/games/{game}/events"),
    ("get", "/games/{game}/states/1"),
    ("get", "/games/{game}/record"),
    ("get", "/games/{game}/review"),
    ("get", "/tokens"),
    ("post", "/tokens"),
    ("delete", "/tokens/{token}"),
    ("get", "/me"),
]
BODIES = {
    "/games": {"options": {"players": 2}, "seats": [{"kind": "me"}, {"kind": "open"}]},
    "/games/{game}/actions": {"action": {"type": "resign"}, "expected_version": 1},
    "/tokens": {"name": "sneaky"},
}


def call(client: APIClient, method: str, path: str, game: Game, token: ApiToken) -> Any:
    url = API + path.format(game=game.public_id, token=token.pk)
    if method in ("post", "delete"):
        return getattr(client, method)(url, BODIES.get(path, {}), format="json")
    return client.get(url)


def assert_nothing_changed(game: Game, events: int, games: int, token: ApiToken, tokens: int) -> None:
    assert event_count(game) == events
    assert Game.objects.count() == games
    assert ApiToken.objects.count() == tokens
    token.refresh_from_db()
    assert token.revoked is None


@pytest.mark.parametrize(("method", "path"), ENDPOINTS)
def test_nobody_gets_401_everywhere(alice, started_game, method, path):
    token = create_api_token(user=alice, name="victim").token
    events, games, tokens = event_count(started_game), Game.objects.count(), ApiToken.objects.count()
    client = APIClient()
    client.raise_request_exception = False
    response = call(client, method, path, started_game, token)
    assert_problem(response, 401, "not_authenticated")
    assert response["WWW-Authenticate"] == "Bearer"
    assert_nothing_changed(started_game, events, games, token, tokens)


@pytest.mark.parametrize(("method", "path"), ENDPOINTS)
def test_a_revoked_token_gets_401_everywhere(alice, started_game, method, path):
    token = create_api_token(user=alice, name="victim").token
    old = create_api_token(user=alice, name="old")
    revoke_api_token(token=old.token)
    events, games, tokens = event_count(started_game), Game.objects.count(), ApiToken.objects.count()
    client = APIClient()
    client.raise_request_exception = False
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {old.raw}")
    response = call(client, method, path, started_game, token)
    assert_problem(response, 401, "authentication_failed")
    assert response["WWW-Authenticate"] == "Bearer"
    assert_nothing_changed(started_game, events, games, token, tokens)


def test_a_revoked_token_does_not_fall_back_to_the_session(alice, started_game):
    """A bad token is an error even when the same client also has a session."""
    old = create_api_token(user=alice, name="old")
    revoke_api_token(token=old.token)
    client = signed_in(alice)
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {old.raw}")
    assert_problem(client.get(f"{API}/games/{started_game.public_id}"), 401, "authentication_failed")


def test_a_token_of_a_deactivated_user_gets_401(alice, started_game, client_for):
    client = client_for(alice)
    alice.is_active = False
    alice.save(update_fields=["is_active"])
    assert_problem(client.get(f"{API}/games/{started_game.public_id}"), 401, "authentication_failed")


@pytest.mark.parametrize("path", ["/schema/", "/docs/"])
def test_the_api_documentation_is_public(path):
    assert APIClient().get(API + path).status_code == 200


# --- session authentication and CSRF -----------------------------------------------------------


def csrf_token(client: APIClient) -> str:
    """A CSRF token as a browser gets one: from a page with a form."""
    client.get("/admin/login/")
    return str(client.cookies["csrftoken"].value)


def test_session_writes_without_a_csrf_token_are_refused(alice, started_game):
    client = signed_in(alice, enforce_csrf=True)
    token = create_api_token(user=alice, name="keep").token
    events, games, tokens = event_count(started_game), Game.objects.count(), ApiToken.objects.count()

    # Reading needs no CSRF token.
    assert client.get(f"{API}/games/{started_game.public_id}").status_code == 200
    refused = [
        client.post(f"{API}/games", BODIES["/games"], format="json"),
        client.post(f"{API}/games/{started_game.public_id}/actions", legal_body(client, started_game), format="json"),
        client.post(f"{API}/games/{started_game.public_id}/join", {}, format="json"),
        client.post(f"{API}/tokens", {"name": "csrf"}, format="json"),
        client.delete(f"{API}/tokens/{token.pk}"),
    ]
    for response in refused:
        problem = assert_problem(response, 403, "forbidden")
        assert "CSRF" in problem["detail"]
    assert_nothing_changed(started_game, events, games, token, tokens)


def test_session_writes_with_a_csrf_token_are_accepted(alice, started_game):
    client = signed_in(alice, enforce_csrf=True)
    csrf = csrf_token(client)
    response = client.post(
        f"{API}/games/{started_game.public_id}/actions",
        legal_body(client, started_game),
        format="json",
        HTTP_X_CSRFTOKEN=csrf,
    )
    assert response.status_code == 200, response.content
    created = client.post(f"{API}/tokens", {"name": "from the browser"}, format="json", HTTP_X_CSRFTOKEN=csrf)
    assert created.status_code == 201, created.content


def test_a_wrong_csrf_token_is_refused(alice, started_game):
    client = signed_in(alice, enforce_csrf=True)
    csrf_token(client)
    before = event_count(started_game)
    response = client.post(
        f"{API}/games/{started_game.public_id}/actions",
        legal_body(client, started_game),
        format="json",
        HTTP_X_CSRFTOKEN="x" * 32,
    )
    assert_problem(response, 403, "forbidden")
    assert event_count(started_game) == before


def test_token_requests_need_no_csrf_token(alice, started_game):
    raw = create_api_token(user=alice, name="cli").raw
    client = APIClient(enforce_csrf_checks=True)
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    response = client.post(
        f"{API}/games/{started_game.public_id}/actions", legal_body(client, started_game), format="json"
    )
    assert response.status_code == 200, response.content
