"""Who may change what under /api/v1/: only the seat one is offered can be
joined, only the creator starts, only a seat's owner acts for it, and a
caller's tokens and /me are their own."""

from __future__ import annotations

import pytest

from accounts.services import create_api_token
from games import services
from games.models import GameEvent
from tests.factories import invitation, open_game, watched
from tests.support.api import API, assert_problem, event_count, legal_body

pytestmark = pytest.mark.django_db


# --- games: who may change what ----------------------------------------------------------------


def test_join_only_the_seat_one_is_offered(auth, alice, bob, stranger, started_game):
    game = invitation(alice, bob)
    url = f"{API}/games/{game.public_id}/join"
    # A private game with no seat for the stranger: not there for them at all.
    assert_problem(auth(stranger).post(url, {}, format="json"), 404, "game_not_found")
    assert_problem(auth(alice).post(url, {}, format="json"), 409, "already_seated")
    watched(game)
    assert_problem(auth(stranger).post(url, {"seat": 1}, format="json"), 403, "no_seat")
    joined = auth(bob).post(url, {}, format="json")
    assert joined.status_code == 200, joined.content
    assert joined.json()["my_seat"] == 1
    assert game.seats.get(index=1).user == bob
    assert_problem(auth(stranger).post(f"{API}/games/{started_game.public_id}/join"), 404, "game_not_found")
    watched(started_game)
    assert_problem(auth(stranger).post(f"{API}/games/{started_game.public_id}/join"), 409, "game_started")


def test_an_open_seat_is_anyones(auth, alice, stranger):
    game = open_game(alice)
    joined = auth(stranger).post(f"{API}/games/{game.public_id}/join", {}, format="json")
    assert joined.status_code == 200, joined.content
    assert joined.json()["my_seat"] == 1


def test_only_the_creator_starts(auth, alice, bob, stranger):
    game = invitation(alice, bob)
    services.join_game(game=game, user=bob)
    url = f"{API}/games/{game.public_id}/start"
    assert_problem(auth(bob).post(url), 403, "not_creator")
    assert_problem(auth(stranger).post(url), 404, "game_not_found")
    assert event_count(game) == 1  # bob took the last seat: the game dealt itself
    assert_problem(auth(alice).post(url), 409, "game_started")
    assert event_count(game) == 1


def test_only_a_seats_owner_acts_for_it(auth, alice, bob, stranger, started_game):
    url = f"{API}/games/{started_game.public_id}/actions"
    body = legal_body(auth(alice), started_game)
    before = event_count(started_game)

    # Bob cannot act in alice's turn, even naming her colour.
    assert_problem(auth(bob).post(url, body, format="json"), 422, "not_your_turn")
    as_red = {**body, "action": {**body["action"], "colour": "red"}}
    assert_problem(auth(bob).post(url, as_red, format="json"), 422, "not_your_turn")
    # A stranger has no seat at all: a private game is not there for them, a public one refuses them.
    assert_problem(auth(stranger).post(url, body, format="json"), 404, "game_not_found")
    watched(started_game)
    assert_problem(auth(stranger).post(url, body, format="json"), 403, "not_a_player")
    assert_problem(auth(stranger).post(url, {**body, "action": "resign"}, format="json"), 403, "not_a_player")
    assert event_count(started_game) == before

    done = auth(alice).post(url, body, format="json")
    assert done.status_code == 200, done.content
    assert event_count(started_game) > before
    assert GameEvent.objects.filter(game=started_game).order_by("-seq").first().actor == alice


# --- tokens and me -------------------------------------------------------------------------------


def test_tokens_are_private_to_their_owner(auth, alice, bob):
    mine = create_api_token(user=alice, name="alice's laptop").token
    theirs = create_api_token(user=bob, name="bob's phone").token

    listed = auth(alice).get(f"{API}/tokens")
    assert listed.status_code == 200
    names = {t["name"] for t in listed.json()}
    assert "alice's laptop" in names
    assert "bob's phone" not in names
    assert all(t["id"] != theirs.pk for t in listed.json())

    assert_problem(auth(alice).delete(f"{API}/tokens/{theirs.pk}"), 404, "token_not_found")
    theirs.refresh_from_db()
    assert theirs.revoked is None

    assert auth(alice).delete(f"{API}/tokens/{mine.pk}").status_code == 204
    mine.refresh_from_db()
    assert mine.revoked is not None


def test_me_is_the_caller(auth, alice, bob):
    for user in (alice, bob):
        response = auth(user).get(f"{API}/me")
        assert response.status_code == 200
        assert response.json() == {
            "id": user.pk,
            "email": user.email,
            "name": user.public_name,
            "is_staff": False,
            "is_bot": False,
            "scopes": ["games:play", "games:read", "webhooks:manage"],
        }
