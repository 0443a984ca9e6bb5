"""Actions the engine refuses, and games that cannot take an action, answered
over the API as problems with a stable ``code`` (and the rule's id where a
rule refuses); no refused action changes the game's log."""

from __future__ import annotations

import pytest

from games import services
from games.engine.rotation import CARD_TO_LOT
from games.models import GameEvent
from tests.factories import open_game, two_player_game
from tests.support.api import API, LogWatch, assert_problem, created_payload, play_selections, post_action

pytestmark = pytest.mark.django_db


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
    play_selections(clients, started_game, big_for=0)
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
        game = two_player_game(alice, bob)
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


# --- games that cannot take an action -------------------------------------------------------


def test_acting_in_a_game_that_has_not_started(api, alice):
    game = open_game(alice)
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
