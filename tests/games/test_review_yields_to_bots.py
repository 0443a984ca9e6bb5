"""A real Celery worker, alone on the bots queue as in production: a game that finishes
while another waits for its bot does not make that bot wait for the whole review. The
review's first slice runs, queues the rest at the back of the queue, and the bot's turn
(queued behind it) is played before the review goes on; then the review ends on the
queue it came from. No eager mode: the task messages cross Redis."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

from accounts.models import User
from games import services, store
from games.engine import enumerate_actions, player_view
from games.models import Game, GameReview
from games.tasks import play_bot_turns, review_finished_game
from manhattan_site.celery import app
from tests.factories import play_to_end, two_player_bot_game
from tests.support import redis as test_redis
from tests.support.celery_worker import celery_worker, own_queue, wait_for_worker

# slow: a real Celery worker process on Redis (left out by `dev.py test --fast`)
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

REDIS_URL = os.environ.get("TEST_REDIS_URL", test_redis.url(test_redis.REVIEW_WORKER))
QUEUE = own_queue("bots")


@pytest.fixture
def worker() -> Iterator[subprocess.Popen[bytes]]:
    if not test_redis.reachable(REDIS_URL):
        pytest.skip(f"needs Redis at {REDIS_URL}")
    with celery_worker(QUEUE, REDIS_URL, {"GAME_REVIEW": "all"}) as process:
        yield process


def test_a_bot_turn_queued_behind_a_review_is_played_before_the_review_ends(
    settings: Any, alice: User, worker: subprocess.Popen[bytes]
) -> None:
    settings.GAME_REVIEW = "all"
    settings.GAME_REVIEW_ITERATIONS = 50  # stored with the review: a slice takes a few tenths of a second
    finished = two_player_bot_game(alice)
    play_to_end(finished, alice)
    review = GameReview.objects.get(game=finished)
    assert review.status == GameReview.Status.QUEUED

    waiting = two_player_bot_game(alice)  # alice moves until it is the bot's turn
    while waiting.to_act_seat == 0:
        state = store.state_of(waiting)
        assert state is not None
        action = enumerate_actions(player_view(state, 0))[0]
        services.submit_action(game_id=waiting.public_id, user=alice, action=action, expected_version=waiting.version)
        waiting.refresh_from_db()
    bot_turn_at = waiting.version

    with app.connection_for_write(REDIS_URL) as conn:
        review_finished_game.apply_async(args=[str(finished.public_id)], connection=conn, queue=QUEUE)
        play_bot_turns.apply_async(args=[str(waiting.public_id)], connection=conn, queue=QUEUE)

    wait_for_worker(
        lambda: Game.objects.get(pk=waiting.pk).version > bot_turn_at, worker, message="the bot never played"
    )
    review.refresh_from_db()
    assert review.status == GameReview.Status.RUNNING, "the bot waited for the whole review"
    assert 0 < review.moves_done < review.moves_total

    wait_for_worker(
        lambda: GameReview.objects.get(pk=review.pk).status == GameReview.Status.DONE,
        worker,
        timeout=120,
        message="the review never ended on the queue it came from",
    )
    review.refresh_from_db()
    assert review.moves_done == review.moves_total == len(review.moves)
