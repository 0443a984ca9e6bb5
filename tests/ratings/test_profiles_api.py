"""GET /api/v1/players/{id}: games, wins by player count, average score, the
rating with its history, recent games, head-to-head; a hidden profile is not
there for anyone else."""

from __future__ import annotations

import pytest

from games import store
from games.models import Game
from ratings.models import PROVISIONAL_GAMES, SeatResult
from tests.factories import play_until, resign, two_player_game

pytestmark = pytest.mark.django_db


def get_profile(client, user_id, **params):
    return client.get(f"/api/v1/players/{user_id}", params)


def test_a_profile_counts_games_wins_scores_and_the_rating_history(alice, bob, client_for):
    resign(two_player_game(alice, bob), alice)  # bob wins
    game = two_player_game(alice, bob)
    play_until(game, lambda g: g.status == Game.Status.FINISHED)
    state = store.state_of(game)
    bob_won_second = 1 in state.winners

    response = get_profile(client_for(alice), bob.pk)
    assert response.status_code == 200
    body = response.json()
    assert body["id"] == bob.pk
    assert body["name"] == "bob"
    assert "email" not in str(body), "addresses never leave the server"
    assert body["games"] == 2
    assert body["wins"] == 1 + bob_won_second
    assert body["by_players"] == [
        {"players": 2, "games": 2, "wins": 1 + bob_won_second},
        {"players": 3, "games": 0, "wins": 0},
        {"players": 4, "games": 0, "wins": 0},
    ]
    scores = list(SeatResult.objects.filter(user=bob).values_list("score", flat=True))
    assert body["average_score"] == pytest.approx(sum(scores) / 2)
    [rating] = body["ratings"]
    assert rating["players"] == 2
    assert rating["games"] == 2
    assert rating["provisional"] is True
    assert [point["game"] for point in rating["history"]][-1] == str(game.public_id)
    assert rating["history"][-1]["rating"] == rating["rating"]
    assert rating["rating"] == pytest.approx(rating["mu"] - 3 * rating["sigma"], abs=0.01)
    newest = body["recent"][0]
    assert newest["game"] == str(game.public_id)
    assert newest["opponents"] == [{"player_id": alice.pk, "name": "alice", "bot": ""}]
    assert body["recent"][1]["won"] is True
    assert body["recent"][1]["rank"] == 1
    assert body["head_to_head"] is None


def test_resigning_is_last_place_in_the_profile(alice, bob, client_for):
    resign(two_player_game(alice, bob), alice)
    [game] = get_profile(client_for(bob), alice.pk).json()["recent"]
    assert (game["rank"], game["resigned"], game["won"], game["rated"]) == (2, True, False, True)


def test_head_to_head_against_a_chosen_opponent(alice, bob, make_user, client_for):
    carol = make_user("carol@example.com")
    resign(two_player_game(alice, bob), alice)
    resign(two_player_game(alice, bob), alice)
    resign(two_player_game(bob, alice), bob)
    resign(two_player_game(alice, carol), carol)
    # carol sees none of their private games; alice, who played them all, sees them.
    assert get_profile(client_for(carol), alice.pk, opponent=bob.pk).json()["head_to_head"]["games"] == 0
    body = get_profile(client_for(alice), alice.pk, opponent=bob.pk).json()
    assert body["head_to_head"] == {
        "opponent_id": bob.pk,
        "opponent": "bob",
        "games": 3,
        "ahead": 1,
        "behind": 2,
        "level": 0,
    }


@pytest.mark.parametrize("opponent", ["x", "-1", "99999"])
def test_a_bad_opponent_is_a_problem(alice, client_for, opponent):
    response = get_profile(client_for(alice), alice.pk, opponent=opponent)
    assert response.status_code in (400, 404)
    assert response["Content-Type"] == "application/problem+json"


def test_an_unknown_player_is_a_404_problem(alice, client_for):
    for player in ("424242", "abc", "9" * 30, "-1", "１"):
        response = client_for(alice).get(f"/api/v1/players/{player}")
        assert response.status_code == 404
        assert response.json()["code"] == "player_not_found"


def test_a_hidden_profile_is_there_only_for_its_player(alice, bob, client_for):
    resign(two_player_game(alice, bob), alice)
    response = client_for(bob).patch(f"/api/v1/players/{bob.pk}", {"hidden": True}, format="json")
    assert response.status_code == 200
    assert response.json() == {"hidden": True}
    assert get_profile(client_for(alice), bob.pk).status_code == 404
    own = get_profile(client_for(bob), bob.pk)
    assert own.status_code == 200
    assert own.json()["hidden"] is True
    # In alice's recent games bob is nobody in particular.
    assert get_profile(client_for(alice), alice.pk).json()["recent"][0]["opponents"] == [
        {"player_id": None, "name": "", "bot": ""}
    ]
    assert get_profile(client_for(alice), alice.pk, opponent=bob.pk).status_code == 404
    client_for(bob).patch(f"/api/v1/players/{bob.pk}", {"hidden": False}, format="json")
    assert get_profile(client_for(alice), bob.pk).status_code == 200


def test_only_the_player_changes_their_profile(alice, bob, client_for):
    response = client_for(alice).patch(f"/api/v1/players/{bob.pk}", {"hidden": True}, format="json")
    assert response.status_code == 403
    assert response.json()["code"] == "not_your_profile"
    bad = client_for(bob).patch(f"/api/v1/players/{bob.pk}", {"hidden": "perhaps"}, format="json")
    assert bad.status_code == 400
    assert bad["Content-Type"] == "application/problem+json"


def test_profiles_need_credentials(alice, client_for):
    assert client_for(None).get(f"/api/v1/players/{alice.pk}").status_code == 401


def test_provisional_until_ten_rated_games(alice, bob, client_for):
    for _ in range(PROVISIONAL_GAMES):
        resign(two_player_game(alice, bob), alice)
    [rating] = get_profile(client_for(alice), bob.pk).json()["ratings"]
    assert rating["games"] == PROVISIONAL_GAMES
    assert rating["provisional"] is False
    assert len(rating["history"]) == PROVISIONAL_GAMES


def test_a_bot_game_counts_for_the_profile_but_not_the_rating(alice, bot_game, client_for):
    from games import services

    resign(bot_game, alice)
    services.play_bot_turns(game_id=bot_game.public_id)
    body = get_profile(client_for(alice), alice.pk).json()
    assert body["games"] == 1
    assert body["by_players"][2] == {"players": 4, "games": 1, "wins": 0}
    assert body["ratings"] == []
    [game] = body["recent"]
    assert game["rated"] is False
    assert game["rank"] == 4
    assert sorted(o["bot"] for o in game["opponents"]) == ["greedy", "random", "random"]


def test_recomputing_rebuilds_the_same_profiles(alice, bob, bot_game, client_for):
    from django.core.management import call_command

    from games import services

    resign(two_player_game(alice, bob), alice)
    resign(two_player_game(bob, alice), alice)
    resign(bot_game, alice)
    services.play_bot_turns(game_id=bot_game.public_id)
    before = [get_profile(client_for(alice), user.pk).json() for user in (alice, bob)]
    rows = sorted(SeatResult.objects.values_list("game_id", "seat", "score", "rank", "won", "rated"))
    call_command("recompute_ratings", stdout=None)
    assert sorted(SeatResult.objects.values_list("game_id", "seat", "score", "rank", "won", "rated")) == rows
    assert [get_profile(client_for(alice), user.pk).json() for user in (alice, bob)] == before
