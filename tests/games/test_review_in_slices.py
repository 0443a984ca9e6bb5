"""A review is made a slice of moves per task: each task stores its slice and queues the
rest at the back of the bots queue, so the bots' turns queued meanwhile go first. The
slices add up to the review made at once, a duplicated or redelivered task changes
nothing, and a review whose next slice was never queued is found by the sweep."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import User
from games import store
from games.engine.review import review_game
from games.models import Game, GameReview
from games.services import review
from games.services.review import move_row, review_slice, run_review
from games.tasks import review_finished_game, sweep_reviews

pytestmark = pytest.mark.django_db(transaction=False)


@pytest.fixture(autouse=True)
def _one_move_a_slice(monkeypatch: pytest.MonkeyPatch) -> None:
    """A slice ends after its first move (the tests' tiny budget would review a whole game
    in one slice's time)."""
    monkeypatch.setattr(review, "SLICE_SECONDS", 0.0)


@pytest.fixture
def finished_game(finished_bot_game: Game) -> Game:
    return finished_bot_game


@pytest.fixture
def queued(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, dict[str, Any]]]:
    """The review tasks queued, as (game id, options), instead of published."""
    calls: list[tuple[str, dict[str, Any]]] = []
    monkeypatch.setattr(review_finished_game, "apply_async", lambda args, **options: calls.append((args[0], options)))
    return calls


def test_a_task_reviews_one_slice_and_queues_the_rest_until_done(
    finished_game: Game,
    alice: User,
    client_for: Callable[[User | None], APIClient],
    queued: list[tuple[str, dict[str, Any]]],
) -> None:
    game_id = str(finished_game.public_id)
    assert review_finished_game(game_id) == 1
    stored = GameReview.objects.get(game=finished_game)
    assert stored.status == GameReview.Status.RUNNING
    assert stored.moves_total > 3
    assert queued == [(game_id, {})]  # by the routes: the bots queue
    progress = client_for(alice).get(f"/api/v1/games/{game_id}/review")
    assert progress.status_code == 202
    assert progress.json()["moves_done"] == 1

    tasks = 1
    while queued:
        queued.pop()
        review_finished_game(game_id)
        tasks += 1
    stored.refresh_from_db()
    assert stored.status == GameReview.Status.DONE
    assert tasks == stored.moves_total
    assert stored.moves_done == stored.moves_total == len(stored.moves)
    # The slices add up to the review made at once, at the same seed.
    whole = review_game(store.event_payloads(finished_game), stored.seed, iterations=stored.iterations)
    assert stored.moves == [move_row(move) for move in whole]


def test_a_slice_another_task_stored_first_is_dropped(
    finished_game: Game, monkeypatch: pytest.MonkeyPatch, queued: list[tuple[str, dict[str, Any]]]
) -> None:
    game_id = str(finished_game.public_id)
    review_slice(game_id)
    racing = iter([True])

    def searched_while_another_task_stored(*args: Any, **kwargs: Any) -> Any:
        if next(racing, False):  # a duplicate of this task stores the same slice meanwhile
            review_slice(game_id)
        return review_game(*args, **kwargs)

    monkeypatch.setattr(review, "review_game", searched_while_another_task_stored)
    assert review_finished_game(game_id) == 0
    assert queued == []  # the task that stored the slice goes on; this one stops
    stored = GameReview.objects.get(game=finished_game)
    assert stored.moves_done == len(stored.moves) == 2
    assert len({row["event_index"] for row in stored.moves}) == 2


def test_a_review_left_half_made_goes_on_where_it_stopped(finished_game: Game, monkeypatch: pytest.MonkeyPatch) -> None:
    game_id = str(finished_game.public_id)
    review_slice(game_id)
    review_slice(game_id)  # then the worker died: the task is given back
    searched: list[int] = []

    def counted(*args: Any, only: set[int], **kwargs: Any) -> Any:
        searched.extend(only)
        return review_game(*args, only=only, **kwargs)

    monkeypatch.setattr(review, "review_game", counted)
    done = run_review(game_id)
    assert done is not None
    assert done.status == GameReview.Status.DONE
    indexes = [row["event_index"] for row in done.moves]
    assert indexes == sorted(set(indexes))
    assert len(indexes) == done.moves_total
    assert sorted(searched) == indexes[2:]  # only the moves not yet reviewed
    assert run_review(game_id) is None  # done: never made again


def test_a_review_whose_next_slice_was_never_queued_is_queued_again(
    finished_game: Game, settings: Any, queued: list[tuple[str, dict[str, Any]]]
) -> None:
    settings.GAME_REVIEW_LOST_SECONDS = 3600
    game_id = str(finished_game.public_id)
    review_slice(game_id)  # a slice stored, and the broker down when it queued the next
    assert sweep_reviews() == 0
    GameReview.objects.filter(game=finished_game).update(progressed=timezone.now() - timedelta(hours=2))
    assert sweep_reviews() == 1
    assert queued == [(game_id, {})]
