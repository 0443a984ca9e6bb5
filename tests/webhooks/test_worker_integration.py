"""A real Celery worker process, on the local Redis, delivers a move's webhook
to a real local receiver, signed. No eager mode, no mocks: the task message
crosses Redis and the delivery crosses HTTP from another process."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator

import pytest
from standardwebhooks import Webhook

from games import services as games
from games.engine import SelectPieces
from manhattan_site.celery import app
from tests.celery_worker import celery_worker, own_queue
from webhooks import services
from webhooks.models import Delivery
from webhooks.tasks import deliver_webhooks

pytestmark = pytest.mark.django_db(transaction=True)

REDIS_URL = os.environ.get("TEST_WEBHOOKS_REDIS_URL", "redis://127.0.0.1:6379/13")
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
    game = games.create_game(
        creator=alice,
        options={"players": 2, "start_player": 0},
        seats=[games.SeatSpec("me"), games.SeatSpec("invite", email=bob.email)],
    )
    games.join_game(game=game, user=bob)
    game.refresh_from_db()  # every seat is taken: the game has dealt itself
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

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(receiver.requests) < 3:
        assert worker.poll() is None, worker.stdout.read().decode() if worker.stdout else "worker died"
        time.sleep(0.2)
    assert len(receiver.requests) == 3, "the worker delivered too little within 60 s"
    bodies = [Webhook(new.secret).verify(r.body, r.headers) for r in receiver.requests]
    assert [b["type"] for b in bodies] == ["game.move", "game.move", "game.your_turn"]
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and Delivery.objects.filter(status=Delivery.Status.PENDING).exists():
        time.sleep(0.05)
    assert set(Delivery.objects.filter(endpoint=new.endpoint).values_list("status", flat=True)) == {"delivered"}

    # A redelivered task message sends nothing again.
    with app.connection_for_write(REDIS_URL) as conn:
        deliver_webhooks.apply_async(args=[[rows[0].pk]], connection=conn, queue=QUEUE)
    time.sleep(2)
    assert len(receiver.requests) == 3
