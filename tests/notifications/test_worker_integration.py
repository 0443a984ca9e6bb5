"""A real Celery worker process, on the local Redis, delivers a turn email to
a local SMTP server (aiosmtpd). No eager mode, no mocks: the task message
crosses Redis and the mail crosses SMTP."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Iterator
from email import message_from_bytes
from typing import Any

import pytest
from aiosmtpd.controller import Controller

from games import services as games
from games.engine import SelectPieces
from manhattan_site.celery import app
from notifications.models import Kind, Notification
from notifications.tasks import deliver_notification
from tests.celery_worker import celery_worker, own_queue

pytestmark = pytest.mark.django_db(transaction=True)

REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15")
QUEUE = own_queue("integration")


class Inbox:
    def __init__(self) -> None:
        self.messages: list[Any] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.messages.append(message_from_bytes(envelope.content))
        return "250 OK"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def smtp() -> Iterator[tuple[Inbox, int]]:
    inbox, port = Inbox(), free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield inbox, port
    finally:
        controller.stop()


@pytest.fixture
def worker(smtp: tuple[Inbox, int]) -> Iterator[subprocess.Popen[bytes]]:
    _, port = smtp
    with celery_worker(QUEUE, REDIS_URL, {"EMAIL_HOST": "127.0.0.1", "EMAIL_PORT": str(port)}) as process:
        yield process


def test_a_real_worker_delivers_the_turn_email_over_smtp(alice, bob, smtp, worker):
    inbox, _ = smtp
    game = games.create_game(
        creator=alice,
        options={"players": 2, "start_player": 0},
        seats=[games.SeatSpec("me"), games.SeatSpec("invite", email=bob.email)],
    )
    games.join_game(game=game, user=bob)
    game.refresh_from_db()  # the last seat taken: it started by itself
    for _ in range(2):  # alice selects for both her colours; then it is bob's turn
        game.refresh_from_db()
        games.submit_action(
            game_id=game.public_id,
            user=alice,
            action=SelectPieces(pieces=(1, 1, 1, 1)),
            expected_version=game.version,
        )
    started = Notification.objects.get(kind=Kind.YOUR_TURN, user=bob)

    # Publish the real task message to Redis, as the web process does on commit.
    with app.connection_for_write(REDIS_URL) as conn:
        deliver_notification.apply_async(args=[started.pk], connection=conn, queue=QUEUE)

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not inbox.messages:
        assert worker.poll() is None, worker.stdout.read().decode() if worker.stdout else "worker died"
        time.sleep(0.2)
    assert len(inbox.messages) == 1, "the worker delivered nothing within 60 s"
    message = inbox.messages[0]
    assert message["To"] == bob.email
    assert message["Message-ID"] == started.message_id
    assert message.is_multipart()
    # The row is marked sent in the transaction that commits right after the server took the mail.
    deadline = time.monotonic() + 10
    started.refresh_from_db()
    while started.status != Notification.Status.SENT and time.monotonic() < deadline:
        time.sleep(0.05)
        started.refresh_from_db()
    assert started.status == Notification.Status.SENT

    # A redelivered task message changes nothing.
    with app.connection_for_write(REDIS_URL) as conn:
        deliver_notification.apply_async(args=[started.pk], connection=conn, queue=QUEUE)
    time.sleep(2)
    assert len(inbox.messages) == 1
