"""A request the API cannot read (malformed or deeply nested JSON, wrong types,
another media type or method, a body over the size limit) is an RFC 9457
problem (application/problem+json) with a stable ``code``, never a 500, and
changes no game's log."""

from __future__ import annotations

import pytest
from django.conf import settings

from games.models import Game
from tests.factories import open_game
from tests.support.api import API, LogWatch, actions_url, assert_problem

pytestmark = pytest.mark.django_db


# --- the shape of every problem ---------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "content_type", "status", "code"),
    [
        pytest.param('{"action": ', "application/json", 400, "malformed_request", id="malformed-json"),
        pytest.param(b'{"action": "\xff"}', "application/json", 400, "malformed_request", id="json-not-utf8"),
        pytest.param("resign", "text/plain", 415, "unsupported_media_type", id="unsupported-media-type"),
    ],
)
def test_an_action_body_the_api_cannot_read(api, alice, started_game, body, content_type, status, code):
    watch = LogWatch(started_game)
    response = api(alice).post(actions_url(started_game), body, content_type=content_type)
    assert_problem(response, status, code)
    watch.assert_unchanged()


@pytest.mark.parametrize("path", ["/games", "/games/{game}/actions", "/games/{game}/join", "/tokens"])
def test_deeply_nested_json_is_a_malformed_request_not_a_server_error(api, signed_in, alice, started_game, path):
    """A small body (well under the size limit) nested deeper than the JSON
    decoder's recursion limit must be refused as malformed, not crash."""
    body = '{"action": ' + "[" * 20_000 + "]" * 20_000 + ', "expected_version": 1}'
    assert len(body) < settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    watch = LogWatch(started_game)
    client = signed_in(alice) if path == "/tokens" else api(alice)  # only a fresh session makes tokens
    response = client.post(API + path.format(game=started_game.public_id), body, content_type="application/json")
    assert_problem(response, 400, "malformed_request")
    watch.assert_unchanged()


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"action": "resign", "expected_version": "abc"}, "expected_version"),
        ({"action": "resign", "expected_version": -1}, "expected_version"),
        ({"action": "resign", "expected_version": 1.5}, "expected_version"),
        ({"action": None, "expected_version": 1}, "action"),
        ({"expected_version": 1}, "action"),
        ([{"action": "resign", "expected_version": 1}], "non_field_errors"),
    ],
)
def test_wrong_types_in_an_action_request(api, alice, started_game, body, field):
    watch = LogWatch(started_game)
    response = api(alice).post(actions_url(started_game), body, format="json")
    problem = assert_problem(response, 400, "invalid")
    assert field in problem["errors"]
    watch.assert_unchanged()


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"seats": "me"}, "seats"),
        ({"seats": [{"kind": "me"}, {"kind": "ghost"}]}, "seats"),
        ({"seats": [{"kind": "me"}, {"kind": "invite"}]}, "seats"),
        ({"seats": [{"kind": "me"}, {"kind": "invite", "email": "not-an-email"}]}, "seats"),
        ({"seats": [{"kind": "me"}]}, "seats"),
        ({"options": "fast", "seats": [{"kind": "me"}, {"kind": "open"}]}, "options"),
        ({"options": {"players": "two"}, "seats": [{"kind": "me"}, {"kind": "open"}]}, "options"),
    ],
)
def test_wrong_types_when_creating_a_game(api, alice, body, field):
    games = Game.objects.count()
    response = api(alice).post(f"{API}/games", body, format="json")
    problem = assert_problem(response, 400, "invalid")
    assert field in problem["errors"]
    assert Game.objects.count() == games


@pytest.mark.parametrize(
    ("options", "seats", "code"),
    [
        ({"players": 2, "sides": ["S", "S"]}, [{"kind": "me"}, {"kind": "open"}], "bad_option"),
        ({"players": 3}, [{"kind": "me"}, {"kind": "open"}], "bad_seats"),
        ({"players": 2}, [{"kind": "me"}, {"kind": "me"}], "creator_seated_twice"),
    ],
)
def test_rule_errors_when_creating_a_game(api, alice, options, seats, code):
    games = Game.objects.count()
    response = api(alice).post(f"{API}/games", {"options": options, "seats": seats}, format="json")
    assert_problem(response, 422, code)
    assert Game.objects.count() == games


def test_wrong_type_when_joining(api, bob, alice):
    game = open_game(alice)
    response = api(bob).post(f"{API}/games/{game.public_id}/join", {"seat": "first"}, format="json")
    assert_problem(response, 400, "invalid")
    assert not game.seats.filter(user=bob).exists()


def test_method_not_allowed(api, alice, started_game):
    watch = LogWatch(started_game)
    response = api(alice).delete(f"{API}/games/{started_game.public_id}")
    assert_problem(response, 405, "method_not_allowed")
    assert "GET" in response["Allow"]
    assert_problem(api(alice).get(actions_url(started_game)), 405, "method_not_allowed")
    watch.assert_unchanged()


@pytest.mark.parametrize("path", ["/games", "/games/{game}/actions", "/games/{game}/join", "/tokens"])
def test_body_too_large(api, signed_in, alice, started_game, path):
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    body = {"action": "x" * (limit + 1), "expected_version": started_game.version, "name": "y" * (limit + 1)}
    client = signed_in(alice) if path == "/tokens" else api(alice)  # only a fresh session makes tokens
    watch = LogWatch(started_game)
    games, tokens = Game.objects.count(), alice.api_tokens.count()
    response = client.post(API + path.format(game=started_game.public_id), body, format="json")
    assert_problem(response, 413, "body_too_large")
    watch.assert_unchanged()
    assert Game.objects.count() == games
    assert alice.api_tokens.count() == tokens


def test_body_just_under_the_limit_is_read(api, alice, started_game):
    """The 413 is about size alone: a body at the limit is parsed (and here
    refused for its content)."""
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    padding = limit - len('{"action":"","expected_version":1}')
    body = '{"action":"' + " " * padding + '","expected_version":1}'
    assert len(body) == limit
    watch = LogWatch(started_game)
    response = api(alice).post(actions_url(started_game), body, content_type="application/json")
    assert_problem(response, 422, "bad_notation")
    watch.assert_unchanged()
