"""The post-game review: queued when a game finishes, made once on the bots queue, and
answered by ``GET /api/v1/games/{id}/review`` only for a finished game."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import User
from games import services
from games.models import Game, GameReview
from games.services.review import run_review
from games.signals import review_ready
from games.tasks import review_finished_game, sweep_reviews
from tests.factories import play_to_end, two_player_bot_game

API = "/api/v1"
pytestmark = [pytest.mark.django_db(transaction=False), pytest.mark.usefixtures("_small_budget")]


@pytest.fixture
def _small_budget(settings: Any) -> None:
    settings.GAME_REVIEW_ITERATIONS = 2
    settings.GAME_REVIEW = "all"


@pytest.fixture
def finished_game(finished_bot_game: Game) -> Game:
    return finished_bot_game


def test_a_finished_game_is_queued_for_review_and_reviewed_once(finished_game: Game) -> None:
    review = GameReview.objects.get(game=finished_game)
    assert review.status == GameReview.Status.QUEUED
    assert review.seed
    assert review.iterations == 2

    assert run_review(str(finished_game.public_id)) is not None
    review.refresh_from_db()
    assert review.status == GameReview.Status.DONE
    assert review.moves_done == review.moves_total == len(review.moves) > 0
    assert {row["seat"] for row in review.moves} == {0, 1}
    row = review.moves[0]
    assert row["kind"] in ("placement", "selection")
    assert 0 <= row["chance_after"] <= 1
    assert row["played"]["type"] in ("place", "select")

    stored = review.moves
    assert run_review(str(finished_game.public_id)) is None  # done: never made again
    review.refresh_from_db()
    assert review.moves == stored


def test_a_game_in_play_has_no_review(alice: User) -> None:
    game = two_player_bot_game(alice)
    assert not GameReview.objects.filter(game=game).exists()


@pytest.mark.parametrize(("policy", "reviewed"), [("off", False), ("rated", True), ("all", True)])
def test_the_deployment_chooses_which_games_are_reviewed(
    settings: Any, alice: User, policy: str, reviewed: bool
) -> None:
    settings.GAME_REVIEW = policy
    game = two_player_bot_game(alice)
    play_to_end(game, alice)
    assert GameReview.objects.filter(game=game).exists() is reviewed


def test_rated_leaves_out_games_without_a_person(settings: Any, alice: User) -> None:
    settings.GAME_REVIEW = "rated"
    game = services.create_game(
        creator=alice,
        options={"players": 2, "start_player": 0},
        seats=[services.SeatSpec("bot", bot="greedy"), services.SeatSpec("bot", bot="random")],
    )
    services.play_bot_turns(game_id=game.public_id)
    for _ in range(50):
        game.refresh_from_db()
        if game.status == Game.Status.FINISHED:
            break
        services.play_bot_turns(game_id=game.public_id)
    assert game.status == Game.Status.FINISHED
    assert not GameReview.objects.filter(game=game).exists()


def review_url(game: Game) -> str:
    return f"{API}/games/{game.public_id}/review"


def test_the_api_answers_202_while_queued_then_200_with_the_typed_review(
    finished_game: Game, alice: User, client_for: Callable[[User | None], APIClient]
) -> None:
    client = client_for(alice)
    waiting = client.get(review_url(finished_game))
    assert waiting.status_code == 202, waiting.content
    assert waiting.json() == {"status": "queued", "progress": 0.0, "moves_done": 0, "moves_total": 0}

    run_review(str(finished_game.public_id))
    done = client.get(review_url(finished_game))
    assert done.status_code == 200, done.content
    body = done.json()
    assert body["status"] == "done"
    assert body["iterations"] == 2
    assert "seed" not in body
    assert len(body["moves"]) == GameReview.objects.get(game=finished_game).moves_total
    move = body["moves"][0]
    assert set(move) == {
        "event_index",
        "seat",
        "round",
        "kind",
        "played",
        "best",
        "chance_before",
        "chance_after",
        "mark",
    }
    assert move["played"]["type"] in ("place", "select")


def test_the_review_is_not_available_while_the_game_is_played(
    alice: User, client_for: Callable[[User | None], APIClient]
) -> None:
    game = two_player_bot_game(alice)
    response = client_for(alice).get(review_url(game))
    assert response.status_code == 409
    assert response["Content-Type"].startswith("application/problem+json")
    assert response.json()["code"] == "review_not_available"


def test_a_stranger_is_told_a_private_game_does_not_exist(
    finished_game: Game, stranger: User, client_for: Callable[[User | None], APIClient]
) -> None:
    run_review(str(finished_game.public_id))
    for client in (client_for(stranger), client_for(None)):
        response = client.get(review_url(finished_game))
        assert response.status_code in (401, 404)
        if response.status_code == 404:
            assert response.json()["code"] == "game_not_found"
    assert client_for(stranger).get(review_url(finished_game)).status_code == 404


def test_an_unknown_game_is_not_found(alice: User, client_for: Callable[[User | None], APIClient]) -> None:
    response = client_for(alice).get(f"{API}/games/00000000-0000-0000-0000-000000000000/review")
    assert response.status_code == 404
    assert response.json()["code"] == "game_not_found"


def test_the_review_is_in_the_openapi_schema(alice: User, client_for: Callable[[User | None], APIClient]) -> None:
    schema = client_for(alice).get(f"{API}/schema/", {"format": "json"}).json()
    operation = schema["paths"]["/api/v1/games/{game_id}/review"]["get"]
    assert {"200", "202", "404", "409"} <= set(operation["responses"])
    assert "ReviewedMove" in schema["components"]["schemas"]


def test_a_review_whose_task_was_lost_is_queued_again(
    finished_game: Game, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    queued: list[str] = []
    monkeypatch.setattr(review_finished_game, "apply_async", lambda args, **options: queued.append(args[0]))
    settings.GAME_REVIEW_LOST_SECONDS = 3600
    assert sweep_reviews() == 0
    GameReview.objects.filter(game=finished_game).update(created=timezone.now() - timedelta(hours=2))
    assert sweep_reviews() == 1
    assert queued == [str(finished_game.public_id)]


def test_a_failed_review_is_not_available(
    finished_game: Game, alice: User, client_for: Callable[[User | None], APIClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any, **kwargs: Any) -> list[Any]:
        raise RuntimeError("the search broke")

    monkeypatch.setattr("games.services.review.review_game", broken)
    with pytest.raises(RuntimeError):
        run_review(str(finished_game.public_id))
    assert GameReview.objects.get(game=finished_game).status == GameReview.Status.FAILED
    response = client_for(alice).get(review_url(finished_game))
    assert response.status_code == 409
    assert response.json()["code"] == "review_not_available"


def test_other_apps_are_told_when_a_review_is_ready(finished_game: Game) -> None:
    heard: list[tuple[Game, GameReview]] = []

    def listen(sender: Any, *, game: Game, review: GameReview, **kwargs: Any) -> None:
        heard.append((game, review))

    review_ready.connect(listen)
    try:
        run_review(str(finished_game.public_id))
    finally:
        review_ready.disconnect(listen)
    assert [(game.pk, review.status) for game, review in heard] == [(finished_game.pk, GameReview.Status.DONE)]


def test_operators_see_the_review_but_not_its_seed(finished_game: Game, make_user: Callable[..., User]) -> None:
    from django.test import Client

    run_review(str(finished_game.public_id))
    review = GameReview.objects.get(game=finished_game)
    operator = make_user("ops@example.com", is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(operator)
    assert client.get("/admin/games/gamereview/").status_code == 200
    page = client.get(f"/admin/games/gamereview/{review.pk}/change/")
    assert page.status_code == 200
    assert review.seed not in page.content.decode()


def test_operators_find_a_review_by_the_game_or_a_player(admin: Any, alice: User, bob: User, stranger: User) -> None:
    """From a complaint ("the review of my game is stuck"): by the game's id or name, or the player's address."""
    from tests.factories import two_player_game

    theirs = GameReview.objects.create(game=two_player_game(alice, bob))
    other = GameReview.objects.create(game=two_player_game(stranger, bob))
    for query in (str(theirs.game.public_id), theirs.game.title, alice.email):
        page = admin.get("/admin/games/gamereview/", {"q": query}).content.decode()
        assert f"/admin/games/gamereview/{theirs.pk}/change/" in page, query
        assert f"/admin/games/gamereview/{other.pk}/change/" not in page, query
