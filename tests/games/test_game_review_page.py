"""The finished game's page shows the bot's review: a chart drawn on the server that reads
without colour, its text alternative, and the marked moves with what the bot would have played."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import User
from games.models import Game, GameReview
from games.services.review import run_review
from tests.factories import play_to_end, two_player_bot_game

pytestmark = pytest.mark.django_db


@pytest.fixture
def reviewed_game(settings: Any, alice: User) -> Game:
    settings.GAME_REVIEW_ITERATIONS = 2
    game = two_player_bot_game(alice)
    play_to_end(game, alice)
    run_review(str(game.public_id))
    review = GameReview.objects.get(game=game)
    moves = review.moves
    # A known mark, so that the sentence is certain whatever the small budget estimated.
    moves[0].update(
        mark="blunder",
        chance_before=0.48,
        chance_after=0.41,
        best={"type": "place", "card": 5, "city": 3, "size": 2},
    )
    review.moves = moves
    review.save()
    return game


def page(user: User, game: Game, language: str = "en") -> str:
    client = Client()
    client.force_login(user)
    response = client.get(reverse("games:detail", args=[game.public_id]), HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    return response.content.decode()


def test_the_page_draws_each_seats_win_chance_and_lists_the_marked_moves(reviewed_game: Game, alice: User) -> None:
    html = page(alice, reviewed_game)
    assert 'data-testid="review-chart"' in html
    series = re.findall(r'data-testid="review-series" data-seat="(\d)"', html)
    assert series == ["0", "1"]
    # Without colour: the second seat's line is dashed and its markers are squares, not circles.
    assert 'stroke-dasharray="6 3"' in html
    assert re.search(r'<path d="M[\d.]+,[\d.]+h7.0v7.0', html)
    assert 'data-testid="review-chart-text"' in html
    assert html.count("(lowest ") == 2
    assert "the bot would have played card 5 city 3 size 2 (win chance 41% → 48%)" in html
    assert "blunder" in html
    assert '<a href="?at=' in html


def test_the_review_is_translated(reviewed_game: Game, alice: User) -> None:
    html = page(alice, reviewed_game, "de")
    assert "Karte 5" in html or "karte 5" in html.lower()
    assert "the bot would have played" not in html


def test_a_queued_review_shows_its_progress_and_a_game_in_play_none(alice: User, settings: Any) -> None:
    settings.GAME_REVIEW_ITERATIONS = 2
    game = two_player_bot_game(alice)
    assert 'data-testid="review"' not in page(alice, game)
    play_to_end(game, alice)
    assert 'data-testid="review-pending"' in page(alice, game)
