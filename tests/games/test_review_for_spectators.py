"""Spectators of a public finished game see the bot's review on the spectators' page: the
chart, the marked moves and the steps on the board, without signing in; never of a private
game to someone without its watch link, never while the game is played, and nothing on it
that a spectator may not know (the secret crawler's truth checks every page and step)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import User
from games.models import Game, GameReview
from games.services.review import run_review
from games.services.visibility import watch_key
from tests.factories import play_until, resign, two_player_bot_game
from tests.support.secrets.truth import Truth, find_leaks

pytestmark = pytest.mark.django_db


def reviewed(game: Game) -> GameReview:
    """The review made, with two certain marks (a tiny budget marks moves by chance)."""
    run_review(str(game.public_id))
    review = GameReview.objects.get(game=game)
    moves = [dict(row, mark=None) for row in review.moves]
    placements = [row for row in moves if row["kind"] == "placement" and row["seat"] == 0]
    placements[0].update(mark="mistake")
    placements[-1].update(mark="blunder", best={"type": "place", "card": 5, "city": 3, "size": 2})
    review.moves = moves
    review.save(update_fields=["moves"])
    return review


def finished(alice: User) -> Game:
    """Against the greedy bot: a round played, then alice resigns (a short game to review)."""
    game = two_player_bot_game(alice)
    play_until(game, lambda g: g.round >= 2)
    resign(game, alice)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    return game


@pytest.fixture
def finished_game(settings: Any, alice: User) -> Game:
    settings.GAME_REVIEW = "all"
    settings.GAME_REVIEW_ITERATIONS = 2
    game = finished(alice)
    reviewed(game)
    return game


def make_public(game: Game) -> Game:
    Game.objects.filter(pk=game.pk).update(public=True)
    return Game.objects.get(pk=game.pk)


def signed_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def watch(client: Client, game: Game, **query: Any) -> Any:
    return client.get(reverse("games:watch", args=[game.public_id]), query)


def step(client: Client, game: Game, move: int, **query: Any) -> Any:
    return client.get(reverse("games:review_step", args=[game.public_id]), {"move": move, "watch": 1, **query})


def test_an_anonymous_spectator_of_a_public_finished_game_sees_the_review(finished_game: Game) -> None:
    game = make_public(finished_game)
    response = watch(Client(), game)
    assert response.status_code == 200
    html = response.content.decode()
    assert 'data-testid="review-chart"' in html
    assert re.findall(r'data-testid="review-series" data-seat="(\d)"', html) == ["0", "1"]
    assert html.count('data-testid="review-move"') == 2
    assert "the bot would have played card 5 city 3 size 2" in html
    # Without a script, each marked move links to its position on this page.
    assert len(re.findall(r'<li data-testid="review-move">\s*<a href="\?at=\d+"', html)) == 2
    stepper = re.search(r'<div class="review-stepper"[^>]*>', html)
    assert stepper is not None
    assert f'data-url="/games/{game.public_id}/review/?watch=1"' in stepper.group(0)
    assert 'document.getElementById("review-stepper")' in html  # the stepping script is on the page
    assert "(you)" not in html


def test_an_anonymous_spectator_steps_through_the_marked_moves(finished_game: Game) -> None:
    game = make_public(finished_game)
    review = GameReview.objects.get(game=game)
    marked = [row for row in review.moves if row["mark"]]
    response = step(Client(), game, 2)
    assert response.status_code == 200
    html = response.content.decode()
    assert "Marked move 2 of 2" in html
    assert f'data-at="{marked[1]["event_index"]}"' in html
    assert html.count('data-testid="review-best"') == 1
    # "Open this position" leads back to the spectators' page, not to the players' (sign-in).
    assert f'href="/games/{game.public_id}/watch/?at={marked[1]["event_index"]}"' in html
    # A step it does not have: back to the spectators' page.
    missing = step(Client(), game, 3)
    assert missing.status_code == 302
    assert missing["Location"] == f"/games/{game.public_id}/watch/"


def test_nothing_on_the_spectators_review_is_secret(finished_game: Game) -> None:
    """Every hand of a finished game is in its public record; still, the page and each step
    are read by the secret crawler's truth as a spectator (no seat)."""
    game = make_public(finished_game)
    truth = Truth(game)
    truth.refresh()
    spectator = Client()
    problems, checked = find_leaks(truth, None, watch(spectator, game).content.decode(), [])
    for number, row in enumerate([row for row in GameReview.objects.get(game=game).moves if row["mark"]], 1):
        found, more = find_leaks(truth, None, step(spectator, game, number).content.decode(), [row["event_index"]])
        problems, checked = problems + found, checked + more
    assert not problems, problems
    assert checked > 0


def test_a_private_game_s_review_is_not_shown_to_a_stranger(finished_game: Game, stranger: User) -> None:
    assert watch(signed_in(stranger), finished_game).status_code == 404
    assert step(signed_in(stranger), finished_game, 1).status_code == 404
    anonymous = step(Client(), finished_game, 1)
    assert anonymous.status_code == 302
    assert anonymous["Location"].startswith("/accounts/login/")  # as for an unknown game


def test_the_watch_link_holder_of_a_private_game_sees_it_and_its_links_keep_the_key(finished_game: Game) -> None:
    key = watch_key(finished_game)
    html = watch(Client(), finished_game, key=key).content.decode()
    assert html.count('data-testid="review-move"') == 2
    assert f"&amp;key={key}" in html
    assert f"?watch=1&amp;key={key}" in html
    fragment = step(Client(), finished_game, 1, key=key)
    assert fragment.status_code == 200
    assert f"key={key}" in fragment.content.decode()


def test_no_review_while_the_game_is_played_even_one_stored(settings: Any, alice: User) -> None:
    settings.GAME_REVIEW = "all"
    game = make_public(two_player_bot_game(alice))
    # A review row planted for a game in play (none is ever made): still nothing shows.
    GameReview.objects.create(
        game=game, seed="0" * 32, status=GameReview.Status.DONE, moves=[], moves_total=0, moves_done=0
    )
    html = watch(Client(), game).content.decode()
    assert 'data-testid="review"' not in html
    response = step(Client(), game, 1)
    assert response.status_code == 302
    assert response["Location"] == f"/games/{game.public_id}/watch/"


def test_a_finished_game_s_history_shows_no_review_and_a_queued_one_says_so(settings: Any, alice: User) -> None:
    settings.GAME_REVIEW = "all"
    settings.GAME_REVIEW_ITERATIONS = 2
    game = make_public(finished(alice))
    html = watch(Client(), game).content.decode()
    assert 'data-testid="review-pending"' in html
    # Not signed in, the stream is not theirs: the page cannot promise to show it by itself.
    assert "Reload the page later" in html
    reviewed(game)
    assert 'data-testid="review"' not in watch(Client(), game, at=3).content.decode()
