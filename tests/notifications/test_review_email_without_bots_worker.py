"""A deployment that reviews games but runs no worker of the bots queue: nobody makes the
review, so the game-over email does not wait for it. It goes at once, without the link,
and ``/readyz`` warns of it. Whether a bots worker is alive is its heartbeat in the shared
cache, fresh for ``HEARTBEAT_STALE_SECONDS``: the clock is moved, not waited for. The email
is read as the recipient's mail program would, from the real MIME message."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from django.core import mail
from django.test import Client

from accounts.models import User
from games.models import GameReview
from games.services.review import run_review
from manhattan_site import heartbeats
from notifications import outbox
from notifications.models import Kind, Notification
from notifications.tasks import deliver_notifications
from tests.factories import resigned_game
from tests.support.mail import bodies, game_over_email

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)
BOTS = "bots@test-host [bots]"


@pytest.fixture(autouse=True)
def _reviewed(settings: Any) -> None:
    settings.GAME_REVIEW = "all"
    settings.GAME_REVIEW_ITERATIONS = 2
    settings.GAME_REVIEW_EMAIL_WAIT_SECONDS = 600
    settings.HEARTBEAT_STALE_SECONDS = 60


def published(broker: Any) -> set[int]:
    return {pk for batch in broker.published for pk in batch}


def test_with_the_bots_worker_gone_the_game_over_email_goes_at_once_without_the_link(
    alice: User, bob: User, broker: Any, django_capture_on_commit_callbacks: Any
) -> None:
    with time_machine.travel(T0, tick=False) as clock:
        heartbeats.beat(BOTS, "worker", queues=["bots"])
        clock.shift(timedelta(seconds=61))  # its last heartbeat is stale: the worker is gone
        game = resigned_game(alice, bob, django_capture_on_commit_callbacks)
        over = list(Notification.objects.filter(kind=Kind.GAME_OVER))
        assert len(over) == 2
        assert {n.pk for n in over} <= published(broker), "handed to the workers at once, not held"
        assert deliver_notifications(sorted(n.pk for n in over)) == 2  # the task's body, as a worker runs it
        text = "".join(bodies(game_over_email(alice)))
        assert "Your game of Manhattan is over." in text
        assert "show=review" not in text
        assert GameReview.objects.get(game=game).status == GameReview.Status.QUEUED  # made when a worker comes

        # A bots worker comes back and makes the review: the email went; nothing more is sent.
        clock.shift(timedelta(minutes=5))
        heartbeats.beat(BOTS, "worker", queues=["bots"])
        outbox.sweep_outbox()  # the game's other emails
        sent = len(mail.outbox)
        with django_capture_on_commit_callbacks(execute=True):
            run_review(str(game.public_id))
        assert outbox.sweep_outbox() == 0
        assert len(mail.outbox) == sent


def test_with_a_bots_worker_seen_within_the_minute_the_email_waits_for_the_review(
    alice: User, bob: User, broker: Any, django_capture_on_commit_callbacks: Any
) -> None:
    with time_machine.travel(T0, tick=False) as clock:
        heartbeats.beat(BOTS, "worker", queues=["bots"])
        clock.shift(timedelta(seconds=59))
        resigned_game(alice, bob, django_capture_on_commit_callbacks)
        over = list(Notification.objects.filter(kind=Kind.GAME_OVER))
        assert len(over) == 2
        assert not {n.pk for n in over} & published(broker), "held for the review"


def test_a_worker_of_other_queues_only_makes_no_review(
    alice: User, bob: User, broker: Any, django_capture_on_commit_callbacks: Any
) -> None:
    heartbeats.beat("worker@test-host [celery]", "worker", queues=["celery"])
    resigned_game(alice, bob, django_capture_on_commit_callbacks)
    assert {n.pk for n in Notification.objects.filter(kind=Kind.GAME_OVER)} <= published(broker)


NO_BOTS_WORKER = "no worker of the bots queue is alive"


def test_readyz_and_the_operations_page_warn_while_reviews_are_on_and_no_bots_worker_is_alive(
    client: Client, admin_client: Client, settings: Any
) -> None:
    with time_machine.travel(T0, tick=False) as clock:
        heartbeats.beat("worker@test-host [celery]", "worker", queues=["celery"])
        heartbeats.beat(BOTS, "worker", queues=["bots"])
        body = client.get("/readyz").json()
        assert body["warnings"] == []
        assert body["operations"]["reviews"] == {"ok": True, "policy": "all", "bots_workers": [BOTS]}
        assert NO_BOTS_WORKER not in admin_client.get("/admin/operations/").content.decode()

        clock.shift(timedelta(seconds=61))
        heartbeats.beat("worker@test-host [celery]", "worker", queues=["celery"])  # the email worker lives on
        response = client.get("/readyz")
        assert response.status_code == 200, "the web tier still serves"
        body = response.json()
        assert body["status"] == "ok"
        assert body["warnings"] == ["reviews_without_bots_worker"]
        assert body["operations"]["reviews"] == {"ok": False, "policy": "all", "bots_workers": []}
        assert body["operations"]["workers"]["ok"] is True
        assert NO_BOTS_WORKER in admin_client.get("/admin/operations/").content.decode()

        settings.GAME_REVIEW = "off"  # nothing to make: nothing to warn of
        body = client.get("/readyz").json()
        assert body["warnings"] == []
        assert "reviews" not in body["operations"]
