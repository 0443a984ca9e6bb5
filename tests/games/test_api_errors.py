"""Every API error is an RFC 9457 problem (application/problem+json) with a
stable ``code``, and never a 500; no refused request changes a game's log."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from django.conf import settings
from rest_framework.test import APIClient

from accounts.models import User
from games import services
from games.engine.rotation import CARD_TO_LOT
from games.models import Game, GameEvent

pytestmark = pytest.mark.django_db

API = "/api/v1"
PROBLEM = "application/problem+json"


def assert_problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, (response.status_code, response.content[:500])
    assert response["Content-Type"] == PROBLEM, response["Content-Type"]
    body = response.json()
    assert body["status"] == status
    assert body["code"] == code
    assert body["type"] == f"/api/v1/problems/{code}"
    assert isinstance(body["title"], str)
    assert body["title"]
    assert isinstance(body["detail"], str)
    assert body["detail"]
    return dict(body)


class LogWatch:
    """Asserts that a game's log (and its version) did not change."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.count = GameEvent.objects.filter(game=game).count()
        self.version = Game.objects.get(pk=game.pk).version

    def assert_unchanged(self) -> None:
        assert GameEvent.objects.filter(game=self.game).count() == self.count
        assert Game.objects.get(pk=self.game.pk).version == self.version


def actions_url(game: Game) -> str:
    return f"{API}/games/{game.public_id}/actions"


def post_action(client: APIClient, game: Game, action: Any, version: int | None = None, **headers: Any) -> Any:
    body: dict[str, Any] = {"action": action}
    if version is not None:
        body["expected_version"] = version
    return client.post(actions_url(game), body, format="json", **headers)


def play_selections(clients: dict[int, APIClient], game: Game, big_for: int = 0) -> None:
    """Play the selection phase over the API: seat ``big_for`` takes its biggest
    pieces, the other seats their smallest."""
    for _ in range(20):
        game.refresh_from_db()
        if game.phase != "selection":
            return
        seat = game.to_act_seat
        assert seat is not None
        legal = clients[seat].get(f"{API}/games/{game.public_id}/legal-actions").json()
        choice = legal["selection"]
        pieces = [int(s) for s, n in choice["reserve"].items() for _ in range(n)]
        pieces = sorted(pieces, reverse=seat == big_for)[: choice["count"]]
        response = post_action(
            clients[seat], game, {"type": "select", "pieces": pieces, "colour": choice["colour"]}, legal["version"]
        )
        assert response.status_code == 200, response.content
    raise AssertionError("the selection phase did not end")


def start_two_player_game(alice: User, bob: User) -> Game:
    game = services.create_game(
        creator=alice,
        options={"players": 2, "start_player": 0},
        seats=[services.SeatSpec("me"), services.SeatSpec("invite", email=bob.email)],
    )
    services.join_game(game=game, user=bob)
    game.refresh_from_db()  # the last seat taken: it started by itself
    return game


def created_payload(game: Game) -> dict[str, Any]:
    return dict(GameEvent.objects.get(game=game, seq=1).payload)


# --- the shape of every problem ---------------------------------------------------------


def test_malformed_json_body(api, alice, started_game):
    watch = LogWatch(started_game)
    response = api(alice).post(actions_url(started_game), '{"action": ', content_type="application/json")
    assert_problem(response, 400, "malformed_request")
    watch.assert_unchanged()


def test_json_that_is_not_utf8(api, alice, started_game):
    watch = LogWatch(started_game)
    response = api(alice).post(actions_url(started_game), b'{"action": "\xff"}', content_type="application/json")
    assert_problem(response, 400, "malformed_request")
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
        ({"players": 2}, [{"kind": "me"}, {"kind": "me"}], "bad_seats"),
    ],
)
def test_rule_errors_when_creating_a_game(api, alice, options, seats, code):
    games = Game.objects.count()
    response = api(alice).post(f"{API}/games", {"options": options, "seats": seats}, format="json")
    assert_problem(response, 422, code)
    assert Game.objects.count() == games


def test_wrong_type_when_joining(api, bob, alice):
    game = services.create_game(
        creator=alice, options={"players": 2}, seats=[services.SeatSpec("me"), services.SeatSpec("open")]
    )
    response = api(bob).post(f"{API}/games/{game.public_id}/join", {"seat": "first"}, format="json")
    assert_problem(response, 400, "invalid")
    assert not game.seats.filter(user=bob).exists()


def test_unsupported_media_type(api, alice, started_game):
    watch = LogWatch(started_game)
    response = api(alice).post(actions_url(started_game), "resign", content_type="text/plain")
    assert_problem(response, 415, "unsupported_media_type")
    watch.assert_unchanged()


def test_method_not_allowed(api, alice, started_game):
    watch = LogWatch(started_game)
    response = api(alice).delete(f"{API}/games/{started_game.public_id}")
    assert_problem(response, 405, "method_not_allowed")
    assert "GET" in response["Allow"]
    assert_problem(api(alice).get(actions_url(started_game)), 405, "method_not_allowed")
    watch.assert_unchanged()


# --- actions the engine refuses ------------------------------------------------------------


@pytest.mark.parametrize("action", [{"type": "fly"}, {"card": 5}, 5, [1, 2], {"type": None}])
def test_unknown_action_type(api, alice, started_game, action):
    watch = LogWatch(started_game)
    response = post_action(api(alice), started_game, action, started_game.version)
    assert_problem(response, 422, "bad_action")
    watch.assert_unchanged()


@pytest.mark.parametrize(
    ("action", "code"),
    [
        ({"type": "place", "card": 0, "city": 1, "size": 1}, "bad_card"),
        ({"type": "place", "card": "5", "city": 1, "size": 1}, "bad_card"),
        ({"type": "place", "card": 5, "city": 7, "size": 1}, "bad_city"),
        ({"type": "place", "card": 5, "city": 1, "size": True}, "bad_size"),
        ({"type": "place", "card": 5, "city": 1, "size": 1, "colour": "purple"}, "bad_colour"),
        ({"type": "select", "pieces": "1234"}, "bad_selection"),
    ],
)
def test_badly_formed_actions(api, alice, started_game, action, code):
    watch = LogWatch(started_game)
    response = post_action(api(alice), started_game, action, started_game.version)
    assert_problem(response, 422, code)
    watch.assert_unchanged()


@pytest.mark.parametrize(
    ("text", "position", "token"),
    [
        ("card 5 city banana", 7, "city"),
        ("fly me to the moon", 0, "fly"),
        ("resign now", 7, "now"),
    ],
)
def test_notation_garbage_points_at_the_wrong_token(api, alice, started_game, text, position, token):
    watch = LogWatch(started_game)
    response = post_action(api(alice), started_game, text, started_game.version)
    problem = assert_problem(response, 422, "bad_notation")
    assert problem["position"] == position
    assert problem["token"] == token
    assert problem["pointer"] == f"{text}\n{' ' * position}^"
    watch.assert_unchanged()


def test_empty_notation(api, alice, started_game):
    watch = LogWatch(started_game)
    problem = assert_problem(post_action(api(alice), started_game, "  ", started_game.version), 422, "bad_notation")
    assert problem["position"] == 0
    watch.assert_unchanged()


def test_overlong_notation(api, alice, started_game):
    watch = LogWatch(started_game)
    response = post_action(api(alice), started_game, "card 5 " * 100, started_game.version)
    assert_problem(response, 422, "bad_notation")
    watch.assert_unchanged()


def test_out_of_turn(api, bob, started_game):
    watch = LogWatch(started_game)
    response = post_action(api(bob), started_game, {"type": "select", "pieces": [1, 1, 1, 1]}, started_game.version)
    problem = assert_problem(response, 422, "not_your_turn")
    assert problem["rule"] == "R9"
    watch.assert_unchanged()


def test_a_player_cannot_undo(api, alice, started_game):
    watch = LogWatch(started_game)
    assert_problem(post_action(api(alice), started_game, "undo misclick", started_game.version), 403, "undo_forbidden")
    response = post_action(api(alice), started_game, {"type": "undo", "reason": "x"}, started_game.version)
    assert_problem(response, 403, "undo_forbidden")
    watch.assert_unchanged()


def test_card_not_in_hand(api, alice, bob, started_game):
    clients = {0: api(alice), 1: api(bob)}
    play_selections(clients, started_game)
    started_game.refresh_from_db()
    assert started_game.phase == "placement"
    assert started_game.to_act_seat == 0
    hand = clients[0].get(f"{API}/games/{started_game.public_id}").json()["state"]["hand"]
    missing = next(card for card in range(1, 10) if card not in hand)
    watch = LogWatch(started_game)
    action = {"type": "place", "card": missing, "city": 1, "size": 1, "colour": "red"}
    problem = assert_problem(
        post_action(clients[0], started_game, action, started_game.version), 422, "card_not_in_hand"
    )
    assert problem["rule"] == "R10"
    watch.assert_unchanged()


def test_takeover_too_small(api, alice, bob):
    # Deal until alice (south) and bob (north) hold cards naming the same lot.
    for _ in range(60):
        game = start_two_player_game(alice, bob)
        payload = created_payload(game)
        sides, hands = payload["sides"], payload["hands"]
        pairs = [(a, b) for a in hands[0] for b in hands[1] if CARD_TO_LOT[sides[0]][a] == CARD_TO_LOT[sides[1]][b]]
        if pairs:
            break
    else:  # pragma: no cover - the odds of 60 misses are negligible
        pytest.fail("no deal gave the two players cards for a common lot")
    alice_card, bob_card = pairs[0]
    clients = {0: api(alice), 1: api(bob)}
    play_selections(clients, game, big_for=0)
    game.refresh_from_db()
    placed = post_action(
        clients[0], game, {"type": "place", "card": alice_card + 1, "city": 1, "size": 4, "colour": "red"}, game.version
    )
    assert placed.status_code == 200, placed.content
    game.refresh_from_db()
    assert game.to_act_seat == 1
    watch = LogWatch(game)
    action = {"type": "place", "card": bob_card + 1, "city": 1, "size": 1, "colour": "blue"}
    problem = assert_problem(post_action(clients[1], game, action, game.version), 422, "takeover_too_small")
    assert problem["rule"] == "R14"
    watch.assert_unchanged()


# --- versions -------------------------------------------------------------------------------


def test_stale_expected_version(api, alice, started_game):
    watch = LogWatch(started_game)
    response = post_action(api(alice), started_game, "resign", started_game.version - 1)
    problem = assert_problem(response, 409, "stale_version")
    assert problem["current_version"] == started_game.version
    watch.assert_unchanged()


def test_future_expected_version(api, alice, started_game):
    watch = LogWatch(started_game)
    problem = assert_problem(post_action(api(alice), started_game, "resign", 10**30), 409, "stale_version")
    assert problem["current_version"] == started_game.version
    watch.assert_unchanged()


@pytest.mark.parametrize("header", ['"0"', 'W/"0"', '"7"'])
def test_stale_if_match(api, alice, started_game, header):
    watch = LogWatch(started_game)
    response = post_action(api(alice), started_game, "resign", HTTP_IF_MATCH=header)
    problem = assert_problem(response, 412, "precondition_failed")
    assert problem["current_version"] == started_game.version
    watch.assert_unchanged()


def test_if_match_and_expected_version_that_disagree_are_refused(api, alice, started_game):
    """Which of the two should win is a guess: neither does."""
    watch = LogWatch(started_game)
    response = post_action(api(alice), started_game, "resign", started_game.version, HTTP_IF_MATCH='"0"')
    body = assert_problem(response, 422, "versions_disagree")
    assert "If-Match" in body["detail"]
    watch.assert_unchanged()


def test_if_match_and_expected_version_that_agree_are_accepted(api, alice, started_game):
    version = started_game.version
    response = post_action(api(alice), started_game, "resign", version, HTTP_IF_MATCH=f'"{version}"')
    assert response.status_code == 200, response.content


def test_missing_version(api, alice, started_game):
    watch = LogWatch(started_game)
    assert_problem(post_action(api(alice), started_game, "resign"), 428, "version_required")
    watch.assert_unchanged()


@pytest.mark.parametrize("header", ["abc", '"one"', "*", '"-1"', '"1.0"', '""', '"²"'])
def test_bad_if_match(api, alice, started_game, header):
    """``str.isdigit`` is true for '²', which ``int`` refuses: the header must
    be checked for ASCII digits, or such a header is a 500."""
    watch = LogWatch(started_game)
    assert_problem(post_action(api(alice), started_game, "resign", HTTP_IF_MATCH=header), 400, "bad_if_match")
    watch.assert_unchanged()


def test_if_match_with_thousands_of_digits(api, alice, started_game):
    """``int`` refuses strings of more than 4300 digits (CVE-2020-10735), and
    such a header fits in gunicorn's 8 KiB header limit: it must be refused
    as a bad or stale version, not crash."""
    watch = LogWatch(started_game)
    response = post_action(api(alice), started_game, "resign", HTTP_IF_MATCH='"' + "1" * 5000 + '"')
    assert response.status_code in (400, 412), (response.status_code, response.content[:300])
    assert_problem(
        response, response.status_code, "bad_if_match" if response.status_code == 400 else "precondition_failed"
    )
    watch.assert_unchanged()


def test_expected_version_with_thousands_of_digits(api, alice, started_game):
    watch = LogWatch(started_game)
    body = '{"action": "resign", "expected_version": ' + "1" * 5000 + "}"
    assert_problem(
        api(alice).post(actions_url(started_game), body, content_type="application/json"), 400, "malformed_request"
    )
    body = '{"action": "resign", "expected_version": "' + "1" * 5000 + '"}'
    assert_problem(api(alice).post(actions_url(started_game), body, content_type="application/json"), 400, "invalid")
    watch.assert_unchanged()


@pytest.mark.parametrize(
    "key",
    ["k" * 201, "k" * 255, "tab\there", "caf\u00e9", "line\x7f", ""],
    ids=["201", "255", "tab", "non-ascii", "del", "empty"],
)
def test_bad_idempotency_key(api, alice, started_game, key):
    """The catalogue's rule: 1 to 200 printable ASCII characters; anything else is a 400 problem."""
    watch = LogWatch(started_game)
    response = post_action(api(alice), started_game, "resign", started_game.version, HTTP_IDEMPOTENCY_KEY=key)
    assert_problem(response, 400, "bad_idempotency_key")
    watch.assert_unchanged()


@pytest.mark.parametrize("key", ["k" * 200, "~ !Az09-_.:/{}", "x"], ids=["200", "punctuation", "one"])
def test_idempotency_keys_the_catalogue_allows_are_accepted(api, alice, started_game, key):
    response = post_action(api(alice), started_game, "resign", started_game.version, HTTP_IDEMPOTENCY_KEY=key)
    assert response.status_code == 200, response.content


# --- games that cannot take an action -------------------------------------------------------


def test_acting_in_a_game_that_has_not_started(api, alice):
    game = services.create_game(
        creator=alice, options={"players": 2}, seats=[services.SeatSpec("me"), services.SeatSpec("open")]
    )
    assert_problem(post_action(api(alice), game, "resign", 0), 409, "game_lobby")
    assert_problem(api(alice).get(f"{API}/games/{game.public_id}/legal-actions"), 409, "game_lobby")
    assert GameEvent.objects.filter(game=game).count() == 0


def test_acting_in_an_abandoned_game(api, alice, make_user, started_game):
    services.abandon_game(game=started_game, operator=make_user(is_staff=True))
    watch = LogWatch(started_game)
    assert_problem(post_action(api(alice), started_game, "resign", started_game.version), 409, "game_abandoned")
    watch.assert_unchanged()


def test_joining_or_starting_a_started_game(api, alice, stranger, started_game):
    watch = LogWatch(started_game)
    assert_problem(api(stranger).post(f"{API}/games/{started_game.public_id}/join"), 404, "game_not_found")
    assert_problem(api(alice).post(f"{API}/games/{started_game.public_id}/start"), 409, "game_started")
    watch.assert_unchanged()


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
