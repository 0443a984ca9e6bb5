"""A real Celery worker process, on the local Redis, delivers a move's webhook
to a real local receiver, signed. No eager mode, no mocks: the task message
crosses Redis and the delivery crosses HTTP from another process."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator

import pytest
from standardwebhooks import Webhook

from games import services as games
from games.engine import SelectPieces
from manhattan_site.celery import app
from tests.factories import two_player_game, webhook_delivery
from tests.support import redis as test_redis
from tests.support.celery_worker import celery_worker, own_queue, wait_for_worker
from tests.support.waiting import wait_until
from webhooks import services
from webhooks.models import Delivery
from webhooks.tasks import deliver_webhooks

# slow: a real Celery worker process on Redis (left out by `dev.py test --fast`)
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

REDIS_URL = os.environ.get("TEST_WEBHOOKS_REDIS_URL", test_redis.url(test_redis.WEBHOOK_WORKER))
QUEUE = own_queue("webhooks-integration")


@pytest.fixture
def worker() -> Iterator[subprocess.Popen[bytes]]:
    # The receiver is on this machine: let plain http and loopback through, as the tests do.
    allow_local = {"WEBHOOK_ALLOW_HTTP": "1", "WEBHOOK_ALLOWED_NETWORKS": "127.0.0.0/8"}
    with celery_worker(QUEUE, REDIS_URL, allow_local) as process:
        yield process


def test_a_real_worker_delivers_a_moves_webhook_signed(alice, bob, receiver, worker):
    new = services.create_endpoint(
        owner=bob, url=receiver.url(host="127.0.0.1"), event_types=["game.move", "game.your_turn"]
    )
    game = two_player_game(alice, bob)
    for _ in range(2):  # alice selects for both her colours; then it is bob's turn
        game.refresh_from_db()
        games.submit_action(
            game_id=game.public_id, user=alice, action=SelectPieces(pieces=(1, 1, 1, 1)), expected_version=game.version
        )
    rows = list(Delivery.objects.filter(endpoint=new.endpoint).order_by("pk"))
    assert [row.event_type for row in rows] == ["game.move", "game.move", "game.your_turn"]

    # Publish the real task message to Redis, as the web process does on commit.
    with app.connection_for_write(REDIS_URL) as conn:
        deliver_webhooks.apply_async(args=[[row.pk for row in rows]], connection=conn, queue=QUEUE)

    wait_for_worker(lambda: len(receiver.requests) >= 3, worker, message="the worker delivered too little")
    assert len(receiver.requests) == 3
    bodies = [Webhook(new.secret).verify(r.body, r.headers) for r in receiver.requests]
    assert [b["type"] for b in bodies] == ["game.move", "game.move", "game.your_turn"]
    wait_until(lambda: not Delivery.objects.filter(status=Delivery.Status.PENDING).exists())
    assert set(Delivery.objects.filter(endpoint=new.endpoint).values_list("status", flat=True)) == {"delivered"}

    # A redelivered task message sends nothing again. The worker (one at a time, in
    # order) takes it before a fresh delivery's task: once that one arrives, the first was done.
    fresh = webhook_delivery(new.endpoint, seq=99)
    with app.connection_for_write(REDIS_URL) as conn:
        deliver_webhooks.apply_async(args=[[rows[0].pk]], connection=conn, queue=QUEUE)
        deliver_webhooks.apply_async(args=[[fresh.pk]], connection=conn, queue=QUEUE)
    wait_for_worker(lambda: len(receiver.requests) >= 4, worker, message="the fresh delivery never came")
    assert len(receiver.requests) == 4
    assert Webhook(new.secret).verify(receiver.requests[3].body, receiver.requests[3].headers)["data"] == {"seq": 99}
