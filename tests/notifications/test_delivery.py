"""Delivering one email: the mail server is spoken to outside any database
transaction, a claim keeps two workers from sending one email, permanent
refusals (5xx) bounce the address, temporary ones back off (at most an hour
apart, given up after three days), and a soft time limit is a temporary failure."""

from __future__ import annotations

import smtplib
import threading
from datetime import timedelta
from urllib.parse import urlsplit

import pytest
from celery.exceptions import SoftTimeLimitExceeded
from django.db import connection
from django.test import Client
from django.utils import timezone

from accounts import links
from notifications import outbox
from notifications.models import Kind, Notification, Suppression

pytestmark = pytest.mark.django_db


def write(user, kind=Kind.YOUR_TURN, key="k") -> Notification:
    notification = outbox.enqueue(kind=kind, key=key, email=user.email, user=user)
    assert notification is not None
    return notification


def failing_with(error):
    def send(message):
        raise error

    return send


@pytest.mark.django_db(transaction=True)
def test_the_mail_server_is_spoken_to_outside_any_transaction(alice, monkeypatch):
    notification = write(alice)
    seen = {}

    def send(message):
        seen["in_transaction"] = connection.in_atomic_block

        # Another connection can write the row meanwhile: nothing holds it locked.
        def write_meanwhile() -> None:
            Notification.objects.filter(pk=notification.pk).update(last_error="touched")
            connection.close()

        thread = threading.Thread(target=write_meanwhile)
        thread.start()
        thread.join(timeout=5)
        seen["other_writer_done"] = not thread.is_alive()

    monkeypatch.setattr(outbox, "send", send)
    assert outbox.deliver(notification.pk) is True
    assert seen == {"in_transaction": False, "other_writer_done": True}
    assert Notification.objects.get(pk=notification.pk).status == Notification.Status.SENT


def test_a_claimed_email_is_not_sent_by_a_second_worker(alice, monkeypatch):
    notification = write(alice)
    sends = []

    def send(message):
        sends.append(message)
        assert outbox.deliver(notification.pk) is False  # a redelivered task meanwhile

    monkeypatch.setattr(outbox, "send", send)
    assert outbox.deliver(notification.pk) is True
    assert outbox.deliver(notification.pk) is False  # and after the success
    assert len(sends) == 1


def test_an_expired_claim_is_taken_over(alice, monkeypatch):
    """A worker that died mid-send leaves its claim to expire: the sweep sends again."""
    notification = write(alice)
    Notification.objects.filter(pk=notification.pk).update(claimed_until=timezone.now() - timedelta(seconds=1))
    monkeypatch.setattr(outbox, "send", lambda message: None)
    assert outbox.sweep_outbox() == 1


def test_a_permanent_refusal_fails_at_once_and_marks_the_address_bouncing(alice, monkeypatch):
    refused = smtplib.SMTPRecipientsRefused({alice.email: (550, b"5.1.1 no such user")})
    monkeypatch.setattr(outbox, "send", failing_with(refused))
    first = write(alice, key="one")

    assert outbox.deliver(first.pk) is False

    first.refresh_from_db()
    assert first.status == Notification.Status.FAILED
    assert first.attempts == 1
    assert "550" in first.last_error
    bounce = Suppression.objects.get(email=alice.email)
    assert bounce.reason == Suppression.Reason.BOUNCING

    # No more mail to it ...
    sent: list[object] = []
    monkeypatch.setattr(outbox, "send", sent.append)
    second = write(alice, key="two")
    assert outbox.deliver(second.pk) is False
    assert Notification.objects.get(pk=second.pk).status == Notification.Status.SKIPPED
    # ... but a sign-in link, which is how the player confirms the address again.
    login = write(alice, kind=Kind.LOGIN, key="login")
    assert outbox.deliver(login.pk) is True
    alice.refresh_from_db()
    path = urlsplit(links.login_url(alice)).path
    assert Client().post(path).status_code == 302
    assert not Suppression.objects.filter(email=alice.email).exists()
    assert outbox.deliver(write(alice, key="three").pk) is True


@pytest.mark.parametrize(
    "error",
    [
        smtplib.SMTPRecipientsRefused({"alice@example.com": (450, b"4.2.1 mailbox busy")}),
        smtplib.SMTPSenderRefused(550, b"5.7.1 sender not allowed", "play@localhost"),
        smtplib.SMTPServerDisconnected("Connection unexpectedly closed"),
        ConnectionRefusedError(111, "Connection refused"),
    ],
    ids=["4xx", "our-sender-refused", "disconnected", "refused"],
)
def test_temporary_failures_back_off_and_do_not_bounce(alice, monkeypatch, error):
    monkeypatch.setattr(outbox, "send", failing_with(error))
    notification = write(alice)
    assert outbox.deliver(notification.pk) is False
    notification.refresh_from_db()
    assert notification.status == Notification.Status.PENDING
    assert notification.next_attempt > timezone.now()
    assert not Suppression.objects.exists()


def test_backoff_is_capped_at_an_hour_and_gives_up_only_after_three_days(alice, monkeypatch):
    monkeypatch.setattr(outbox, "send", failing_with(smtplib.SMTPServerDisconnected("down")))
    notification = write(alice)
    gaps = []
    due = Notification.objects.filter(pk=notification.pk)
    for _ in range(14):
        before = timezone.now()
        due.update(next_attempt=before)  # its back-off has passed
        assert outbox.deliver(notification.pk) is False
        notification.refresh_from_db()
        gaps.append(notification.next_attempt - before)
        assert notification.status == Notification.Status.PENDING
    assert gaps[0] < timedelta(minutes=2)
    assert max(gaps) <= outbox.MAX_BACKOFF + timedelta(seconds=5)
    assert gaps[-1] >= outbox.MAX_BACKOFF - timedelta(seconds=5)
    # Two days and 23 hours old: still tried; older than three days: given up.
    due.update(created=timezone.now() - timedelta(days=2, hours=23), next_attempt=timezone.now())
    outbox.deliver(notification.pk)
    assert Notification.objects.get(pk=notification.pk).status == Notification.Status.PENDING
    due.update(created=timezone.now() - timedelta(days=3, minutes=1), next_attempt=timezone.now())
    outbox.deliver(notification.pk)
    assert Notification.objects.get(pk=notification.pk).status == Notification.Status.FAILED


def test_a_soft_time_limit_during_a_send_is_a_temporary_failure(alice, monkeypatch):
    monkeypatch.setattr(outbox, "send", failing_with(SoftTimeLimitExceeded()))
    notification = write(alice)
    with pytest.raises(SoftTimeLimitExceeded):  # the task stops; the sweep delivers the rest
        outbox.deliver(notification.pk)
    notification.refresh_from_db()
    assert notification.status == Notification.Status.PENDING
    assert notification.claimed_until is None
    assert "SoftTimeLimitExceeded" in notification.last_error


def test_the_admin_shows_bouncing_addresses(alice, make_user, monkeypatch):
    monkeypatch.setattr(
        outbox, "send", failing_with(smtplib.SMTPRecipientsRefused({alice.email: (550, b"no such user")}))
    )
    outbox.deliver(write(alice).pk)
    root = make_user("root@example.com", is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(root)
    page = client.get("/admin/notifications/suppression/?reason=bouncing").content.decode()
    assert alice.email in page
    assert "no such user" in page
