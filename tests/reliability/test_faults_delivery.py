"""Faults under attack: the worker SIGKILLed mid-delivery, the SMTP server down
and then refusing.

Each test counts what matters: actions accepted, events stored, emails sent
(by Message-ID at a real SMTP server, aiosmtpd on 127.0.0.1) — nothing lost,
nothing duplicated. Each runs in well under 30 s, on SQLite and on PostgreSQL
(docs/reliability.md).
The one exception is the documented at-least-once window of a worker killed
between the SMTP server's acceptance and the database commit, whose
duplicates carry the same Message-ID."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from notifications import outbox
from notifications.models import Kind, Notification
from notifications.tasks import sweep_outbox as sweep_outbox_task
from tests.support.fault_table import DELIVERY_TIMEOUT_S, Table, assert_each_email_once, wait_for_delivery
from tests.support.faults import (
    Inbox,
    PrivateRedis,
    Worker,
    broker_at,
    database_url,
    free_port,
    site_env,
    smtp_server,
    wait_until,
)

pytestmark = pytest.mark.django_db(transaction=True)


LINGER_S = 1.0  # after the last expected email, keep listening for late duplicates
LEASE_S = 2  # OUTBOX_LEASE_SECONDS of the workers killed mid-delivery


# --- the worker killed mid-delivery ---------------------------------------------------------------


@pytest.mark.slow  # worker processes killed and restarted
def test_worker_sigkilled_mid_delivery_every_email_is_sent_duplicates_share_the_message_id(alice, bob) -> None:
    """A real worker delivers to a slow SMTP server and is SIGKILLed while the
    server holds a message it has accepted but not yet answered. A new worker
    and the sweep deliver the rest. Nothing is lost; the one message in the
    at-least-once window (SMTP accepted, database not yet committed) is sent
    again, with the same Message-ID, so mail clients show it once."""
    count = 10
    inbox = Inbox(delay=0.3)
    with PrivateRedis() as redis, smtp_server(inbox) as smtp_port, broker_at(redis.url):
        table = Table(alice, bob)
        for i in range(count):  # each is written in its own transaction and enqueued on commit
            outbox.enqueue(
                kind=Kind.YOUR_TURN,
                key=f"kill-test-{i}",
                email=bob.email,
                user=bob,
                game=table.game,
                seat=1,
                context={"seq": table.game.version},
            )
        rows = Notification.objects.count()
        queued = redis.queued_notifications()  # every email's delivery is waiting in Redis, once
        assert sorted(queued) == sorted(Notification.objects.values_list("pk", flat=True))

        # A short claim, so that the killed worker's email is free again soon.
        env = site_env(
            database=database_url(), redis_url=redis.url, smtp_port=smtp_port, OUTBOX_LEASE_SECONDS=str(LEASE_S)
        )
        first = Worker(env, name="rel-killed")
        second = Worker(env, name="rel-second")
        try:
            first.start()
            first.wait_ready()

            def mid_delivery() -> bool:
                failure = first.failed_task()
                assert not failure, f"a task failed in the worker:\n{failure}"
                return inbox.accepted >= 3 and inbox.in_flight > 0

            mid_message = wait_until(mid_delivery, DELIVERY_TIMEOUT_S, 0.01)
            assert mid_message, f"no delivery in progress to interrupt:\n{first.log()[-3000:]}"
            first.kill()
            accepted_at_kill = inbox.accepted
            sent_at_kill = Notification.objects.filter(status=Notification.Status.SENT).count()
            assert accepted_at_kill < rows, "the worker was killed before it had delivered everything"

            second.start()
            second.wait_ready()
            # The killed task's message stays unacknowledged in Redis, and the email it
            # was sending stays claimed until the claim expires: then the sweep's turn.
            # Time passing in the worker processes (the claim's lease), which time-machine cannot move.
            time.sleep(LEASE_S + 0.5)
            sweep_outbox_task.delay()
            wait_for_delivery(second)
            time.sleep(LINGER_S)  # waiting out what must not come: a late duplicate
        finally:
            first.cleanup()
            second.cleanup()

    duplicates = inbox.duplicates()
    print(
        f"\nworker SIGKILL: {rows} emails, killed after {accepted_at_kill} accepted by SMTP "
        f"({sent_at_kill} committed as sent), {inbox.accepted} accepted in all, {duplicates} duplicate(s)"
    )
    notifications = list(Notification.objects.all())
    assert all(n.status == Notification.Status.SENT for n in notifications)
    with inbox.lock:
        received = dict(inbox.ids)
    assert set(received) == {n.message_id for n in notifications}, "every email reached the SMTP server"
    # One worker with one process holds at most one message in the window when it dies.
    assert duplicates <= 1, received
    assert sum(received.values()) == rows + duplicates


# --- the SMTP server refusing, then accepting ------------------------------------------------------------


def test_smtp_server_down_then_refusing_451_then_accepting_sends_each_email_once(alice, bob) -> None:
    """Deliveries fail while the SMTP port is closed, then while the server
    answers 451, and back off; once it accepts, every email arrives exactly once."""
    count, refusals = 6, 3
    inbox = Inbox(refuse=refusals)
    port = free_port()  # nothing listens on it yet
    table = Table(alice, bob)
    for i in range(count):
        outbox.enqueue(kind=Kind.YOUR_TURN, key=f"smtp-{i}", email=bob.email, user=bob, game=table.game, seat=1)
    rows = list(Notification.objects.order_by("pk"))
    now = timezone.now()
    with override_settings(
        EMAIL_BACKEND="django.core.mail.backends.smtp.EmailBackend", EMAIL_HOST="127.0.0.1", EMAIL_PORT=port
    ):
        # 1. Nothing listens: every delivery fails, backs off, stays pending.
        assert outbox.sweep_outbox(now=now) == 0
        assert set(Notification.objects.values_list("status", "attempts")) == {(Notification.Status.PENDING, 1)}
        assert outbox.sweep_outbox(now=now) == 0, "nothing is retried before its back-off has passed"

        with smtp_server(inbox, port=port):
            # 2. The server is up but answers 451 to the first three messages.
            later = now + timedelta(hours=1)
            sent = outbox.sweep_outbox(now=later)
            assert sent == len(rows) - refusals
            refused = Notification.objects.filter(status=Notification.Status.PENDING)
            assert refused.count() == refusals
            assert all("451" in n.last_error and n.attempts == 2 for n in refused)
            # 3. It accepts: the refused ones go out on the next sweep, and a further sweep sends nothing.
            assert outbox.sweep_outbox(now=later + timedelta(hours=1)) == refusals
            assert outbox.sweep_outbox(now=later + timedelta(hours=2)) == 0
            assert wait_until(lambda: inbox.in_flight == 0, 10), "the server is still taking a message"

    assert sum(inbox.refused.values()) == refusals
    assert_each_email_once(inbox, list(Notification.objects.all()))
