"""What each caller sees under /api/v1/: lists show only the caller's games; a
seat's owner sees their own hand and draws, the other player and a stranger
(signed in but not in the game) public information only; a private game is
its players' alone."""

from __future__ import annotations

from typing import Any

import pytest

from accounts.models import User
from games import store
from games.models import Game, GameEvent
from tests.factories import invitation, open_game, play_to_end, watched
from tests.support.api import API, assert_problem, created_payload, legal_body, play_to_first_placement

pytestmark = pytest.mark.django_db


def hand_of(payload: dict[str, Any], seat: int) -> list[int]:
    """A seat's dealt hand as the API shows cards (1-based)."""
    return sorted(card + 1 for card in payload["hands"][seat])


# --- games: lists ------------------------------------------------------------------------------


def test_lists_show_only_the_callers_games(auth, alice, bob, stranger, started_game):
    own = open_game(stranger)
    invited = invitation(alice, bob)

    def ids(user: User) -> set[str]:
        response = auth(user).get(f"{API}/games")
        assert response.status_code == 200, response.content
        return {game["id"] for game in response.json()}

    assert ids(alice) == {str(started_game.public_id), str(invited.public_id)}
    # Bob sees the game he plays and the one he is invited to (not yet joined).
    assert ids(bob) == {str(started_game.public_id), str(invited.public_id)}
    assert ids(stranger) == {str(own.public_id)}


def test_a_list_does_not_reveal_invitees_addresses(auth, alice, bob):
    invitation(alice, bob)
    body = auth(alice).get(f"{API}/games").content.decode()
    assert bob.email not in body


def test_anyone_signed_in_can_create_a_game(auth, stranger):
    response = auth(stranger).post(
        f"{API}/games", {"options": {"players": 2}, "seats": [{"kind": "me"}, {"kind": "open"}]}, format="json"
    )
    assert response.status_code == 201, response.content
    game = Game.objects.get(public_id=response.json()["id"])
    assert game.creator == stranger
    assert game.seats.get(index=0).user == stranger


# --- games: what each caller sees ---------------------------------------------------------------


def test_private_games_are_not_found_by_strangers_but_are_by_players_and_invitees(
    auth, alice, bob, stranger, started_game
):
    for path in ("", "/events", "/states/1", "/record", "/review"):
        assert_problem(auth(stranger).get(f"{API}/games/{started_game.public_id}{path}"), 404, "game_not_found")
    assert auth(bob).get(f"{API}/games/{started_game.public_id}").status_code == 200
    invited = invitation(alice, bob)
    assert auth(bob).get(f"{API}/games/{invited.public_id}").status_code == 200  # invited, not yet seated
    assert_problem(auth(stranger).get(f"{API}/games/{invited.public_id}"), 404, "game_not_found")


def test_game_detail_shows_only_the_callers_hand(auth, alice, bob, stranger, started_game):
    watched(started_game)
    payload = created_payload(started_game)
    url = f"{API}/games/{started_game.public_id}"

    mine = auth(alice).get(url).json()
    assert mine["my_seat"] == 0
    assert mine["my_turn"] is True
    assert mine["state"]["seat"] == 0
    assert sorted(mine["state"]["hand"]) == hand_of(payload, 0)

    other = auth(bob).get(url).json()
    assert other["my_seat"] == 1
    assert other["my_turn"] is False
    assert sorted(other["state"]["hand"]) == hand_of(payload, 1)

    public = auth(stranger).get(url)
    assert public.status_code == 200
    body = public.json()
    assert body["my_seat"] is None
    assert body["my_turn"] is False
    assert body["state"]["seat"] is None
    assert body["state"]["hand"] is None
    assert [p["hand_size"] for p in body["state"]["players"]] == [4, 4]

    for view in (mine, other, body):
        assert "draw_pile" not in view["state"]
        assert "hands" not in view["state"]
    assert str(payload["draw_pile"]) not in public.content.decode()


def test_a_stranger_sees_a_lobby_game_without_addresses(auth, alice, bob, stranger):
    game = watched(invitation(alice, bob))
    response = auth(stranger).get(f"{API}/games/{game.public_id}")
    assert response.status_code == 200
    assert response.json()["state"] is None
    assert bob.email not in response.content.decode()
    assert [s["invited"] for s in response.json()["seats"]] == [False, True]


def test_legal_actions_only_for_players(auth, alice, bob, stranger, started_game):
    url = f"{API}/games/{started_game.public_id}/legal-actions"
    mine = auth(alice).get(url)
    assert mine.status_code == 200
    assert mine.json()["my_turn"] is True
    assert mine.json()["selection"] is not None
    other = auth(bob).get(url)
    assert other.status_code == 200
    assert other.json()["my_turn"] is False
    assert other.json()["selection"] is None
    # A private game is not there for a stranger; a public one is, without a seat for them.
    assert_problem(auth(stranger).get(url), 404, "game_not_found")
    watched(started_game)
    assert_problem(auth(stranger).get(url), 403, "not_a_player")


def test_events_are_redacted_for_each_caller(auth, alice, bob, stranger, started_game):
    watched(started_game)
    play_to_first_placement({0: auth(alice), 1: auth(bob)}, started_game)
    payloads = {e.seq: e.payload for e in GameEvent.objects.filter(game=started_game)}
    placed = [seq for seq, p in payloads.items() if p["type"] == "piece_placed"]
    assert len(placed) == 1
    drawn = payloads[placed[0]]["drew"]
    assert drawn is not None
    url = f"{API}/games/{started_game.public_id}/events"

    def events(user: User) -> list[dict[str, Any]]:
        response = auth(user).get(url)
        assert response.status_code == 200, response.content
        body = response.json()
        assert body["version"] == started_game.version
        assert [e["seq"] for e in body["events"]] == list(range(1, started_game.version + 1))
        for event in body["events"]:
            assert "draw_pile" not in event
            assert "reshuffle" not in event
        return list(body["events"])

    mine, other, public = events(alice), events(bob), events(stranger)
    created = payloads[1]
    assert mine[0]["hands"] == [created["hands"][0], None]
    assert other[0]["hands"] == [None, created["hands"][1]]
    assert public[0]["hands"] == [None, None]
    for view in (mine, other, public):
        assert view[0]["hand_sizes"] == [4, 4]
        assert view[0]["draw_pile_size"] == len(created["draw_pile"])
    seq = placed[0] - 1
    assert mine[seq]["drew"] == drawn
    assert other[seq]["drew"] is None
    assert other[seq]["drew_count"] == 1
    assert public[seq]["drew"] is None
    assert public[seq]["drew_count"] == 1


def test_a_stranger_never_sees_a_secret_in_a_whole_game(client_for, alice, stranger, bot_game):
    """A finished four-player game has reshuffles and many draws: none reaches
    a stranger, and alice sees only her own draws."""
    watched(bot_game)
    play_to_end(bot_game, alice)
    payloads = list(GameEvent.objects.filter(game=bot_game).order_by("seq").values_list("payload", flat=True))
    assert any("reshuffle" in p for p in payloads), "this game should have needed a reshuffle"
    url = f"{API}/games/{bot_game.public_id}/events"

    public = client_for(stranger).get(url).json()["events"]
    assert len(public) == len(payloads)
    for event in public:
        assert "draw_pile" not in event
        assert "reshuffle" not in event
        if event["type"] == "game_created":
            assert event["hands"] == [None] * 4
        if "drew" in event:
            assert event["drew"] is None

    mine = client_for(alice).get(url).json()["events"]
    for event, payload in zip(mine, payloads, strict=True):
        assert "draw_pile" not in event
        assert "reshuffle" not in event
        if "drew" in event:
            assert event["drew"] == (payload["drew"] if payload["player"] == 0 else None)


def test_action_responses_show_only_the_actors_secrets(auth, alice, bob, started_game):
    play_to_first_placement({0: auth(alice), 1: auth(bob)}, started_game)
    # Bob places now; his response must show his draw and his hand, nothing of alice's.
    client = auth(bob)
    response = client.post(
        f"{API}/games/{started_game.public_id}/actions", legal_body(client, started_game), format="json"
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["game"]["my_seat"] == 1
    state = store.state_of(started_game)
    assert sorted(body["game"]["state"]["hand"]) == sorted(c + 1 for c in state.hands[1])
    for event in body["events"]:
        assert "reshuffle" not in event
        if "drew" in event and event["player"] != 1:
            assert event["drew"] is None


def test_states_are_public_for_everyone(auth, alice, bob, stranger, started_game):
    watched(started_game)
    url = f"{API}/games/{started_game.public_id}/states/1"
    for user in (alice, bob, stranger):
        response = auth(user).get(url)
        assert response.status_code == 200, response.content
        state = response.json()["state"]
        assert state["hand"] is None
        assert state["seat"] is None
        assert "draw_pile" not in state


def test_record_of_a_finished_game_is_public(client_for, alice, stranger, bot_game):
    watched(bot_game)
    url = f"{API}/games/{bot_game.public_id}/record"
    for user in (alice, stranger):
        assert_problem(client_for(user).get(url), 409, "game_not_finished")
    play_to_end(bot_game, alice)
    records = [client_for(user).get(url) for user in (alice, stranger)]
    assert [r.status_code for r in records] == [200, 200]
    assert records[0].json() == records[1].json()
