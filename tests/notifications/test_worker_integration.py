"""A real Celery worker process, on the local Redis, delivers a turn email to
a local SMTP server (aiosmtpd). No eager mode, no mocks: the task message
crosses Redis and the mail crosses SMTP."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator

import pytest

from games import services as games
from games.engine import SelectPieces
from manhattan_site.celery import app
from notifications import outbox
from notifications.models import Kind, Notification
from notifications.tasks import deliver_notification
from tests.factories import two_player_game
from tests.support import redis as test_redis
from tests.support.celery_worker import celery_worker, own_queue, wait_for_worker
from tests.support.mail import Inbox
from tests.support.waiting import wait_until

# slow: a real Celery worker process on Redis (left out by `dev.py test --fast`)
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

REDIS_URL = os.environ.get("TEST_REDIS_URL", test_redis.url(test_redis.MAIL_WORKER))
QUEUE = own_queue("integration")


@pytest.fixture
def worker(smtp: tuple[Inbox, int]) -> Iterator[subprocess.Popen[bytes]]:
    _, port = smtp
    with celery_worker(QUEUE, REDIS_URL, {"EMAIL_HOST": "127.0.0.1", "EMAIL_PORT": str(port)}) as process:
        yield process


def test_a_real_worker_delivers_the_turn_email_over_smtp(alice, bob, smtp, worker):
    inbox, _ = smtp
    game = two_player_game(alice, bob)
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

    wait_for_worker(lambda: inbox.messages, worker, message="the worker delivered nothing")
    assert len(inbox.messages) == 1
    message = inbox.messages[0]
    assert message["To"] == bob.email
    assert message["Message-ID"] == started.message_id
    assert message.is_multipart()
    # The row is marked sent in the transaction that commits right after the server took the mail.
    wait_until(
        lambda: Notification.objects.get(pk=started.pk).status == Notification.Status.SENT,
        message="the email was never marked sent",
    )

    # A redelivered task message changes nothing. The worker (one at a time, in order)
    # takes it before a second email's task: once that one arrives, the first was done.
    after = outbox.enqueue(kind=Kind.YOUR_TURN, key="after-the-redelivery", email=alice.email, user=alice)
    assert after is not None
    with app.connection_for_write(REDIS_URL) as conn:
        deliver_notification.apply_async(args=[started.pk], connection=conn, queue=QUEUE)
        deliver_notification.apply_async(args=[after.pk], connection=conn, queue=QUEUE)
    wait_for_worker(lambda: len(inbox.messages) >= 2, worker, message="the second email never came")
    assert [m["To"] for m in inbox.messages] == [bob.email, alice.email]
