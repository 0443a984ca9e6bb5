"""Stepping through the review's marked moves: each is the public position before the
move, drawn by the server with the bot's lot and the lot played marked, for the script
of the finished game's page; only for those who may see the game."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import User
from games.engine.rotation import CARD_TO_LOT
from games.models import Game, GameReview
from games.services.review import run_review
from tests.factories import play_to_end, two_player_bot_game

pytestmark = pytest.mark.django_db


@pytest.fixture
def reviewed_game(settings: Any, alice: User) -> Game:
    settings.GAME_REVIEW_ITERATIONS = 2
    settings.GAME_REVIEW = "all"
    game = two_player_bot_game(alice)
    play_to_end(game, alice)
    run_review(str(game.public_id))
    review = GameReview.objects.get(game=game)
    moves = [dict(row, mark=None) for row in review.moves]
    placements = [row for row in moves if row["kind"] == "placement" and row["seat"] == 0]
    # Two known marks: a placement whose better lot is certain, and a selection.
    placements[1].update(mark="blunder", best={"type": "place", "card": 5, "city": 3, "size": 2})
    next(row for row in moves if row["kind"] == "selection").update(mark="mistake")
    review.moves = moves
    review.save()
    return game


def client_of(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def step(client: Client, game: Game, move: int | str) -> Any:
    return client.get(reverse("games:review_step", args=[game.public_id]), {"move": move})


def test_a_placement_shows_the_position_before_it_with_both_lots_marked(reviewed_game: Game, alice: User) -> None:
    client = client_of(alice)
    review = GameReview.objects.get(game=reviewed_game)
    marked = [row for row in review.moves if row["mark"]]
    number = next(i for i, row in enumerate(marked, 1) if row["mark"] == "blunder")
    html = step(client, reviewed_game, number).content.decode()
    assert f"Marked move {number} of 2" in html
    row = marked[number - 1]
    assert f'data-at="{row["event_index"]}"' in html
    side = 0  # alice's seat sits south in a two-player game drawn from her side
    lot = CARD_TO_LOT[side][4] + 1
    pattern = r'<g class="lot[^"]*" data-city="3" data-lot="LOT"[^>]*aria-label="([^"]*)"'.replace("LOT", str(lot))
    best = re.search(pattern, html)
    assert best is not None
    assert "the bot&#x27;s move: a 2-storey building" in best.group(1)
    assert html.count('data-testid="review-best"') == 1
    assert html.count('data-testid="review-played"') == 1
    assert "card-radio" not in html  # a position, never a hand


def test_a_selection_marks_nothing_on_the_board(reviewed_game: Game, alice: User) -> None:
    review = GameReview.objects.get(game=reviewed_game)
    marked = [row for row in review.moves if row["mark"]]
    number = next(i for i, row in enumerate(marked, 1) if row["kind"] == "selection")
    html = step(client_of(alice), reviewed_game, number).content.decode()
    assert "a choice of pieces, so nothing is marked" in html
    assert "review-best" not in html


@pytest.mark.parametrize("move", ["0", "3", "x", "-1", "99999"])
def test_a_move_the_review_did_not_mark_sends_the_game_s_page(reviewed_game: Game, alice: User, move: str) -> None:
    """The game is there, only the step is not: a viewer is not told "not found"."""
    response = step(client_of(alice), reviewed_game, move)
    assert response.status_code == 302
    assert response["Location"] == reverse("games:detail", args=[reviewed_game.public_id])


def test_a_game_without_a_review_sends_the_game_s_page(reviewed_game: Game, alice: User) -> None:
    GameReview.objects.filter(game=reviewed_game).delete()
    response = step(client_of(alice), reviewed_game, 1)
    assert response.status_code == 302
    assert response["Location"] == reverse("games:detail", args=[reviewed_game.public_id])


def test_someone_who_may_not_see_the_game_gets_the_unknown_games_answer(reviewed_game: Game, stranger: User) -> None:
    assert step(client_of(stranger), reviewed_game, 1).status_code == 404


def test_the_page_offers_the_steps_to_its_script_and_links_without_it(reviewed_game: Game, alice: User) -> None:
    html = client_of(alice).get(reverse("games:detail", args=[reviewed_game.public_id])).content.decode()
    stepper = re.search(r'<div class="review-stepper"[^>]*>', html)
    assert stepper is not None
    assert " hidden" in stepper.group(0)  # shown by the script; the links work without it
    assert 'data-count="2"' in stepper.group(0)
    assert len(re.findall(r'<li data-testid="review-move">\s*<a href="\?at=\d+"', html)) == 2
