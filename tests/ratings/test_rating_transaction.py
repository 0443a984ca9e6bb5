"""The rating moves in the transaction that finishes the game: if that
transaction fails, neither the last move nor the ratings are stored."""

from __future__ import annotations

from typing import Any

import pytest

from games import engine, services
from games.models import Game
from games.signals import events_appended
from ratings.models import Rating, RatingChange, SeatResult
from tests.factories import two_player_game

pytestmark = pytest.mark.django_db


class Boom(Exception):
    pass


def test_a_failure_after_rating_rolls_the_rating_back_with_the_move(alice, bob):
    game = two_player_game(alice, bob)

    def fail_after_ratings(sender: Any, **kwargs: Any) -> None:
        assert RatingChange.objects.filter(game=game).count() == 2, "rated in the same transaction, before this"
        raise Boom

    events_appended.connect(fail_after_ratings, dispatch_uid="test.fail_after_ratings")
    try:
        game.refresh_from_db()
        with pytest.raises(Boom):
            services.submit_action(
                game_id=game.public_id, user=alice, action=engine.Resign(), expected_version=game.version
            )
    finally:
        events_appended.disconnect(dispatch_uid="test.fail_after_ratings")
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    assert not RatingChange.objects.exists()
    assert not SeatResult.objects.exists()
    assert not Rating.objects.filter(games__gt=0).exists()


def test_an_abandoned_game_is_not_rated_and_not_counted(alice, bob):
    game = two_player_game(alice, bob)
    services.abandon_game(game=game, operator=alice)
    assert not RatingChange.objects.exists()
    assert not SeatResult.objects.exists()
