"""What is not there (unknown games, paths, states, events and tokens), and
the throttle and authentication refusals: each an RFC 9457 problem with a
stable ``code``, never a 500."""

from __future__ import annotations

import uuid

import pytest
from django.conf import settings

from tests.support.api import API, LogWatch, assert_problem

pytestmark = pytest.mark.django_db


# --- missing things -------------------------------------------------------------------------

GAME_ENDPOINTS = [
    ("get", ""),
    ("post", "/join"),
    ("post", "/start"),
    ("get", "/legal-actions"),
    ("post", "/actions"),
    ("get", "/events"),
    ("get", "/states/1"),
    ("get", "/record"),
    ("get", "/review"),
]


@pytest.mark.parametrize(("method", "suffix"), GAME_ENDPOINTS)
def test_unknown_game_id(api, alice, method, suffix):
    client = api(alice)
    response = getattr(client, method)(
        f"{API}/games/{uuid.uuid4()}{suffix}", {"action": "resign", "expected_version": 1}, format="json"
    )
    assert_problem(response, 404, "game_not_found")


@pytest.mark.parametrize(("method", "suffix"), GAME_ENDPOINTS)
def test_game_id_that_is_not_a_uuid(api, alice, started_game, method, suffix):
    """``get_game`` catches ValueError, but Django's UUIDField raises its own
    ValidationError for a malformed id: that must be a 404, not a 500."""
    watch = LogWatch(started_game)
    client = api(alice)
    response = getattr(client, method)(
        f"{API}/games/not-a-uuid{suffix}", {"action": "resign", "expected_version": 1}, format="json"
    )
    assert_problem(response, 404, "game_not_found")
    watch.assert_unchanged()


@pytest.mark.parametrize("game_id", ["123", "0" * 40, f"{uuid.UUID(int=1)}x", "%20"])
def test_other_malformed_game_ids(api, alice, game_id):
    assert_problem(api(alice).get(f"{API}/games/{game_id}"), 404, "game_not_found")


@pytest.mark.parametrize(
    "path",
    [
        f"{API}/nope",
        f"{API}/games/",
        f"{API}/games/{{game}}/nope",
        f"{API}/games/{{game}}/states/-1",
        f"{API}/games/{{game}}/states/one",
        f"{API}/tokens/abc",
    ],
)
def test_unknown_api_path(api, alice, started_game, path):
    response = api(alice).get(path.format(game=started_game.public_id))
    assert_problem(response, 404, "not_found")


def test_unknown_api_path_needs_no_authentication(api):
    assert_problem(api(None).get(f"{API}/nope"), 404, "not_found")


@pytest.mark.parametrize("path", ["/api/", "/api/v2/games"])
def test_unknown_path_under_api_outside_v1_is_a_problem_too(api, alice, path):
    """manhattan_site/api/problems.py promises that unknown URLs under /api/ answer in
    problem+json; only /api/v1/... is routed to ``api_not_found``."""
    assert_problem(api(alice).get(path), 404, "not_found")


def test_record_of_an_unfinished_game(api, alice, started_game):
    watch = LogWatch(started_game)
    assert_problem(api(alice).get(f"{API}/games/{started_game.public_id}/record"), 409, "game_not_finished")
    watch.assert_unchanged()


@pytest.mark.parametrize("n", [0, 2, 99999999999999999999])
def test_state_out_of_range(api, alice, started_game, n):
    watch = LogWatch(started_game)
    response = api(alice).get(f"{API}/games/{started_game.public_id}/states/{n}")
    problem = assert_problem(response, 404, "no_such_event")
    assert str(started_game.version) in problem["detail"]
    watch.assert_unchanged()


@pytest.mark.parametrize("after", ["abc", "-1", "1.5", "", "0x1", "²", "1²"])
def test_bad_events_after(api, alice, started_game, after):
    """'²'.isdigit() is true but int('²') fails: that must be a 400, not a 500."""
    watch = LogWatch(started_game)
    response = api(alice).get(f"{API}/games/{started_game.public_id}/events", {"after": after})
    assert_problem(response, 400, "bad_after")
    watch.assert_unchanged()


def test_events_after_with_thousands_of_digits(api, alice, started_game):
    """More digits than ``int`` converts (4300): a 400, or an empty page, never a 500."""
    response = api(alice).get(f"{API}/games/{started_game.public_id}/events", {"after": "1" * 5000})
    if response.status_code == 200:
        assert response.json()["events"] == []
    else:
        assert_problem(response, 400, "bad_after")


def test_after_beyond_the_log_is_an_empty_page(api, alice, started_game):
    response = api(alice).get(f"{API}/games/{started_game.public_id}/events", {"after": "1000000"})
    assert response.status_code == 200
    assert response.json() == {"version": started_game.version, "events": [], "messages": []}


def test_bad_status_filter(api, alice):
    assert_problem(api(alice).get(f"{API}/games", {"status": "won"}), 400, "bad_filter")


def test_unknown_token(api, alice):
    assert_problem(api(alice).delete(f"{API}/tokens/999999"), 404, "token_not_found")


def test_throttled_token_creation(signed_in, alice):
    rate = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["token_create"]
    allowed = int(rate.split("/")[0])
    client = signed_in(alice)
    for i in range(allowed):
        assert client.post(f"{API}/tokens", {"name": f"t{i}"}, format="json").status_code == 201
    tokens = alice.api_tokens.count()
    response = client.post(f"{API}/tokens", {"name": "one too many"}, format="json")
    assert_problem(response, 429, "throttled")
    assert int(response["Retry-After"]) > 0
    assert alice.api_tokens.count() == tokens


def test_authentication_problems(api, alice):
    anonymous = api(None)
    response = anonymous.get(f"{API}/me")
    assert_problem(response, 401, "not_authenticated")
    assert response["WWW-Authenticate"] == "Bearer"
    for header in ("Bearer", "Bearer a b", "Bearer mbm_unknown", "Token mbm_unknown"):
        response = anonymous.get(f"{API}/me", HTTP_AUTHORIZATION=header)
        assert_problem(response, 401, "authentication_failed")
        assert response["WWW-Authenticate"] == "Bearer"
