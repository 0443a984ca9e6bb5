"""Strict input: a field the API does not know is refused (422, naming it),
never ignored; a version is a JSON integer; If-Match and expected_version agree."""

from __future__ import annotations

import pytest

from games import services
from tests.support.api import API, LogWatch, actions_url, assert_problem, post_action

pytestmark = pytest.mark.django_db


def test_a_lot_in_a_placement_is_refused_not_ignored(api, bot_game, alice):
    """The card decides the lot: a 'lot' would be dropped and the piece land elsewhere."""
    services_version = bot_game.version
    client = api(alice)
    legal = client.get(f"{API}/games/{bot_game.public_id}/legal-actions").json()
    pieces = legal["selection"]
    sizes = [int(size) for size, n in sorted(pieces["reserve"].items()) for _ in range(n)][: pieces["count"]]
    assert post_action(client, bot_game, {"type": "select", "pieces": sizes}, services_version).status_code == 200
    services.play_bot_turns(game_id=bot_game.public_id)  # the bots select too; then alice places first
    bot_game.refresh_from_db()
    option = client.get(f"{API}/games/{bot_game.public_id}/legal-actions").json()["placements"][0]
    place = {"type": "place", "card": option["card"], **{k: option["options"][0][k] for k in ("city", "size")}}
    watch = LogWatch(bot_game)

    response = post_action(client, bot_game, {**place, "lot": 9}, bot_game.version)

    body = assert_problem(response, 422, "unknown_field")
    assert body["field"] == "action.lot"
    assert "lot" in body["detail"]
    watch.assert_unchanged()


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"action": "resign", "expected_versoin": 3}, "expected_versoin"),
        ({"action": {"type": "resign", "why": "bored"}}, "action.why"),
        ({"action": {"type": "select", "pieces": [1], "count": 1}}, "action.count"),
    ],
)
def test_unknown_fields_of_an_action_are_refused(api, alice, started_game, body, field):
    watch = LogWatch(started_game)
    response = api(alice).post(
        actions_url(started_game), body, format="json", HTTP_IF_MATCH=f'"{started_game.version}"'
    )
    assert assert_problem(response, 422, "unknown_field")["field"] == field
    watch.assert_unchanged()


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"seats": [{"kind": "me"}, {"kind": "open"}], "colour": "red"}, "colour"),
        ({"seats": [{"kind": "me"}, {"kind": "open"}], "options": {"players": 2, "rounds": 6}}, "options.rounds"),
        ({"seats": [{"kind": "me"}, {"kind": "bot", "bot": "greedy", "level": 3}]}, "seats[1].level"),
        ({"seats": [{"kind": "me"}, {"kind": "open"}], "reminders": {"first_hour": 1}}, "reminders.first_hour"),
    ],
)
def test_unknown_fields_of_a_new_game_are_refused(api, alice, body, field):
    response = api(alice).post(f"{API}/games", body, format="json")
    assert assert_problem(response, 422, "unknown_field")["field"] == field


def test_a_known_new_game_is_still_made(api, alice):
    body = {"seats": [{"kind": "me"}, {"kind": "bot", "bot": "greedy"}], "options": {"players": 2}}
    assert api(alice).post(f"{API}/games", body, format="json").status_code == 201


def test_an_unknown_field_of_a_join_is_refused(api, bob, lobby_game):
    response = api(bob).post(f"{API}/games/{lobby_game.public_id}/join", {"seat": 1, "colour": "red"}, format="json")
    assert assert_problem(response, 422, "unknown_field")["field"] == "colour"


@pytest.mark.parametrize("version", ["12", 12.0, True, "1", 1.5, [1]])
def test_expected_version_is_a_json_integer(api, alice, started_game, version):
    watch = LogWatch(started_game)
    body = assert_problem(post_action(api(alice), started_game, "resign", version), 400, "invalid")
    assert "expected_version" in body["errors"]
    watch.assert_unchanged()


def test_a_whole_number_version_is_taken(api, alice, started_game):
    assert post_action(api(alice), started_game, "resign", started_game.version).status_code == 200


@pytest.mark.parametrize(
    "action",
    [
        {"type": {"$gt": ""}},
        {"type": ["place"]},
        {"type": None},
        {"type": 7, "card": 1},
        {"type": "place", "card": {"a": 1}, "city": [1], "size": "2"},
        {"type": "select", "pieces": "1234"},
        {"type": "select", "pieces": [[1], {"x": 2}]},
        [],
        7,
        None,
        True,
    ],
)
def test_an_action_of_the_wrong_shape_is_a_4xx_problem_never_a_500(api, alice, started_game, action):
    watch = LogWatch(started_game)
    response = post_action(api(alice), started_game, action, started_game.version)
    assert 400 <= response.status_code < 500, response.content
    assert response["Content-Type"] == "application/problem+json"
    watch.assert_unchanged()


@pytest.mark.parametrize(
    "raw",
    [
        b'{"action": "\\ud800"}',  # a lone surrogate, which no answer could echo
        b'{"action": {"type": "undo", "reason": "\\udfff x"}}',
        b'{"action": "card 5\\u0000"}',  # NUL, which no database text holds
        b'{"\\ud800": 1}',
    ],
)
def test_text_no_field_can_hold_is_a_400_problem(api, alice, started_game, raw):
    watch = LogWatch(started_game)
    response = api(alice).generic("POST", actions_url(started_game), raw, content_type="application/json")
    assert response.status_code == 400, response.content
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["code"] == "malformed_request"
    watch.assert_unchanged()


def test_message_text_is_a_json_string_not_a_number_turned_into_text(api, alice, started_game):
    """{"text": 5} was stored and shown to the table as "5"; a name or a flag likewise."""
    url = f"{API}/games/{started_game.public_id}/messages"
    body = assert_problem(api(alice).post(url, {"text": 5}, format="json"), 400, "invalid")
    assert "text" in body["errors"]
    assert api(alice).get(url).json()["messages"] == []


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"name": 27, "seats": [{"kind": "me"}, {"kind": "open"}], "options": {"players": 2}}, "name"),
        ({"seats": [{"kind": "me"}, {"kind": "open"}], "options": {"players": 2, "six_rounds": "yes"}}, "options"),
    ],
)
def test_a_new_game_takes_strings_and_booleans_only_as_json_strings_and_booleans(api, alice, body, field):
    problem = assert_problem(api(alice).post(f"{API}/games", body, format="json"), 400, "invalid")
    assert field in problem["errors"]


@pytest.mark.parametrize("public", ["yes", "true", 1, 0, "false"])
def test_visibility_is_a_json_boolean(api, alice, started_game, public):
    url = f"{API}/games/{started_game.public_id}/visibility"
    problem = assert_problem(api(alice).put(url, {"public": public}, format="json"), 400, "invalid")
    assert "public" in problem["errors"]
    started_game.refresh_from_db()
    assert started_game.public is False
