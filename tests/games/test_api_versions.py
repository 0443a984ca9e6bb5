"""The version a write is made against (expected_version and If-Match) and its
Idempotency-Key: a stale, missing, disagreeing or malformed one is a problem
with a stable ``code``, never a 500, and changes no game's log."""

from __future__ import annotations

import pytest

from tests.support.api import LogWatch, actions_url, assert_problem, post_action

pytestmark = pytest.mark.django_db


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
