"""Ratings: OpenSkill per player count, moved in the transaction that finishes
a game; people by people, bots against people; recomputing gives the same."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.management import call_command

from accounts.models import User
from games import services, store
from games.models import Game
from ratings.models import PROVISIONAL_GAMES, Rating, RatingChange
from ratings.services import MODEL, ranks
from tests.factories import play_until, resign, two_player_game

pytestmark = pytest.mark.django_db


def rating_of(user: User, players: int = 2) -> Rating:
    return Rating.objects.get(user=user, players=players)


def snapshot() -> dict[Any, tuple[float, float, int]]:
    return {(r.user_id, r.bot, r.players): (r.mu, r.sigma, r.games) for r in Rating.objects.all()}


def test_a_finished_game_of_people_moves_both_ratings(alice, bob):
    game = two_player_game(alice, bob)
    play_until(game, lambda g: g.status == Game.Status.FINISHED)
    state = store.state_of(game)
    assert state is not None
    winner, loser = (alice, bob) if 0 in state.winners else (bob, alice)
    start = MODEL.rating()
    assert rating_of(winner).mu > start.mu > rating_of(loser).mu
    assert rating_of(winner).games == rating_of(loser).games == 1
    assert RatingChange.objects.get(rating__user=winner).rank == 1
    assert RatingChange.objects.get(rating__user=loser).rank == 2


def test_resigning_counts_as_last_place(alice, bob):
    game = two_player_game(alice, bob)
    resign(game, alice)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert RatingChange.objects.get(rating__user=alice).rank == 2
    assert rating_of(bob).mu > rating_of(alice).mu


def test_ranks_put_winners_first_equal_totals_together_and_resigned_last():
    class Finished:
        winners = (2,)
        resigned = [False, True, False, False]

        @staticmethod
        def player_totals() -> list[int]:
            return [30, 45, 40, 30]

    assert ranks(Finished()) == [2, 4, 1, 2]


def test_a_game_with_bots_moves_only_the_bots_ratings(alice, bot_game):
    before = MODEL.rating()
    Rating.objects.create(user=alice, players=4, mu=30.0, sigma=4.0)
    resign(bot_game, alice)
    services.play_bot_turns(game_id=bot_game.public_id)
    bot_game.refresh_from_db()
    assert bot_game.status == Game.Status.FINISHED
    assert (rating_of(alice, 4).mu, rating_of(alice, 4).games) == (30.0, 0), "people are rated by people only"
    greedy, random_bot = Rating.objects.get(bot="greedy", players=4), Rating.objects.get(bot="random", players=4)
    assert greedy.games == random_bot.games == 1
    assert greedy.mu > before.mu, "they beat a player rated 30 who resigned"
    assert RatingChange.objects.filter(game=bot_game).count() == 2  # one per kind of bot


def test_abandoned_and_bot_only_games_are_not_rated(alice, bob):
    game = two_player_game(alice, bob)
    services.abandon_game(game=game, operator=alice)
    bots_only = services.create_game(
        creator=alice,
        options={"players": 2},
        seats=[services.SeatSpec("bot", bot="random"), services.SeatSpec("bot", bot="greedy")],
    )
    services.play_bot_turns(game_id=bots_only.public_id)
    bots_only.refresh_from_db()
    assert bots_only.status == Game.Status.FINISHED
    assert not Rating.objects.exists()


def test_a_rating_is_provisional_until_ten_games(alice, bob):
    for _ in range(PROVISIONAL_GAMES - 1):
        resign(two_player_game(alice, bob), alice)
    assert rating_of(bob).provisional
    resign(two_player_game(alice, bob), bob)
    assert not rating_of(bob).provisional
    assert rating_of(bob).games == PROVISIONAL_GAMES


def test_recomputing_gives_the_live_numbers(alice, bob, make_user, bot_game):
    carol = make_user("carol@example.com")
    resign(two_player_game(alice, bob), alice)
    resign(two_player_game(carol, bob), bob)
    game = two_player_game(alice, carol)
    play_until(game, lambda g: g.status == Game.Status.FINISHED)
    resign(bot_game, alice)
    services.play_bot_turns(game_id=bot_game.public_id)
    live = snapshot()
    assert len(live) >= 5
    call_command("recompute_ratings", stdout=None)
    assert snapshot() == live
    assert RatingChange.objects.count() == 3 * 2 + 2
