"""Bad input to the API: each refused as a 4xx problem+json.

Part of the bad input catalogue (tests/reliability/test_bad_input_*.py): one test
per kind of bad input, through each way input comes in. Every test shows two
things: the refusal is clear, and no game changed: its events, version, status
and seats are as they were (``unchanged``). Where a refusal could hide a harness
that never reaches the game, the test then sends the same input made good and
sees it played.

API requests go through a client that enforces CSRF as a real server does
(Django's test client skips the check by default; see
``test_an_unsafe_method_on_an_unknown_api_url``). The tests/games/test_api_*.py
error tests have the finer variants of the API entries (every problem code,
nesting, digits beyond int's limit)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.conf import settings
from rest_framework.test import APIClient

from accounts.models import User
from accounts.services import create_api_token
from games.models import Game
from tests.factories import a_legal_move, open_game
from tests.support.api import API, actions_url, assert_problem
from tests.support.unchanged import unchanged

pytestmark = pytest.mark.django_db


@pytest.fixture
def api() -> Callable[[User], APIClient]:
    """API clients with a real token, that check CSRF as a server does and
    report a server error as a 500 response instead of raising it."""

    def make(user: User) -> APIClient:
        client = APIClient(enforce_csrf_checks=True)
        client.raise_request_exception = False
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {create_api_token(user=user, name='catalogue').raw}")
        return client

    return make


# --- the API ------------------------------------------------------------------------------------


def test_malformed_json(api, alice, started_game):
    with unchanged(started_game):
        body = '{"action": "resign", "expected_version": ' + str(started_game.version)  # no closing brace
        response = api(alice).post(actions_url(started_game), body, content_type="application/json")
        assert_problem(response, 400, "malformed_request")


def test_wrong_types(api, alice, started_game):
    """A version that is not a number, with an action that would end the game."""
    with unchanged(started_game):
        response = api(alice).post(
            actions_url(started_game), {"action": "resign", "expected_version": "latest"}, format="json"
        )
        problem = assert_problem(response, 400, "invalid")
        assert "expected_version" in problem["errors"]


def test_oversized_body(api, alice, started_game):
    padding = " " * settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    body = f'{{"action": "resign{padding}", "expected_version": {started_game.version}}}'
    with unchanged(started_game):
        response = api(alice).post(actions_url(started_game), body, content_type="application/json")
        assert_problem(response, 413, "body_too_large")


def test_unknown_action_type(api, alice, started_game):
    with unchanged(started_game):
        response = api(alice).post(
            actions_url(started_game),
            {"action": {"type": "teleport", "card": 1, "city": 1}, "expected_version": started_game.version},
            format="json",
        )
        assert_problem(response, 422, "bad_action")


def test_notation_garbage(api, alice, started_game):
    text = "select red 1 1 1 banana"
    with unchanged(started_game):
        response = api(alice).post(
            actions_url(started_game), {"action": text, "expected_version": started_game.version}, format="json"
        )
        problem = assert_problem(response, 422, "bad_notation")
        assert problem["token"] == "banana"
        assert problem["pointer"] == f"{text}\n{' ' * text.index('banana')}^"


def test_out_of_turn_action(api, bob, started_game):
    """Bob sends a well-formed selection while it is alice's turn."""
    assert started_game.to_act_seat == 0
    with unchanged(started_game):
        response = api(bob).post(
            actions_url(started_game),
            {"action": {"type": "select", "pieces": [1, 1, 1, 1]}, "expected_version": started_game.version},
            format="json",
        )
        problem = assert_problem(response, 422, "not_your_turn")
        assert problem["rule"] == "R9"


def test_action_by_a_stranger(api, stranger, started_game):
    """A legal move for the seat to act, sent by someone who has no seat: a
    private game is not there for them; a public one refuses them."""
    body = {"action": a_legal_move(started_game), "expected_version": started_game.version}
    with unchanged(started_game):
        response = api(stranger).post(actions_url(started_game), body, format="json")
        assert_problem(response, 404, "game_not_found")
        Game.objects.filter(pk=started_game.pk).update(public=True)
        response = api(stranger).post(actions_url(started_game), body, format="json")
        assert_problem(response, 403, "not_a_player")


def test_stale_version(api, alice, started_game):
    """A legal move made against an older version of the game."""
    move = a_legal_move(started_game)
    client = api(alice)
    with unchanged(started_game):
        response = client.post(
            actions_url(started_game), {"action": move, "expected_version": started_game.version - 1}, format="json"
        )
        problem = assert_problem(response, 409, "stale_version")
        assert problem["current_version"] == started_game.version
        response = client.post(actions_url(started_game), {"action": move}, format="json", HTTP_IF_MATCH='"0"')
        assert_problem(response, 412, "precondition_failed")
    # The same move at the current version is played: only the version was wrong.
    response = client.post(
        actions_url(started_game), {"action": move, "expected_version": started_game.version}, format="json"
    )
    assert response.status_code == 200, response.content


def test_reused_idempotency_key_with_another_body(api, alice, started_game):
    client = api(alice)
    first = client.post(
        actions_url(started_game),
        {"action": a_legal_move(started_game), "expected_version": started_game.version},
        format="json",
        HTTP_IDEMPOTENCY_KEY="move-1",
    )
    assert first.status_code == 200, first.content
    started_game.refresh_from_db()
    with unchanged(started_game):
        # The key again, with a body that would end the game for alice.
        response = client.post(
            actions_url(started_game),
            {"action": "resign", "expected_version": started_game.version},
            format="json",
            HTTP_IDEMPOTENCY_KEY="move-1",
        )
        assert_problem(response, 422, "idempotency_key_reused")


@pytest.mark.parametrize("body", ['""', "0", "false", "[]"])
def test_join_with_a_body_that_is_not_an_object(api, alice, stranger, body):
    """The join body is an object ({"seat": n}) or nothing; other JSON must be
    refused, not read as "no preference" and acted on.

    Found by the API fuzzer (negative data): ``JoinSerializer(data=request.data
    or {})`` turns every falsy body into {}, so the stranger took the open seat."""
    game = open_game(alice)
    with unchanged(game):
        response = api(stranger).post(f"{API}/games/{game.public_id}/join", body, content_type="application/json")
        assert_problem(response, 400, "invalid")
    # With no body at all, or an object, the stranger joins.
    response = api(stranger).post(f"{API}/games/{game.public_id}/join", "{}", content_type="application/json")
    assert response.status_code == 200, response.content


def test_an_unsafe_method_on_an_unknown_api_url(api, alice, started_game):
    """A typo in an action URL must be a 404 problem, as it is for GET.

    Found by the API fuzzer: the catch-all view under /api/ (``api_not_found``)
    is a plain Django view, so CsrfViewMiddleware refuses POST, PUT, PATCH and
    DELETE to unknown URLs with Django's HTML "403 CSRF verification failed"
    page (Django's test client skips that check, which is why this client
    enforces it)."""
    client = api(alice)
    with unchanged(started_game):
        for method, path in [
            ("post", f"{API}/games/{started_game.public_id}/act"),
            ("delete", f"{API}/tokens/first"),
            ("put", f"{API}/games/{started_game.public_id}/join/"),
            ("post", "/api/v2/games"),
        ]:
            response = getattr(client, method)(path, {"action": "resign", "expected_version": 1}, format="json")
            assert_problem(response, 404, "not_found")
