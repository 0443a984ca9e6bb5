"""Sending: signed per Standard Webhooks and verified by a real receiver;
retries with back-off; switched off after failures in a row, with an email to
the owner; no redirects followed; the answer's size capped; one sender per row."""

from __future__ import annotations

import json
import threading
from datetime import timedelta

import pytest
from django.core import mail
from django.utils import timezone
from standardwebhooks import Webhook, WebhookVerificationError

from tests.factories import webhook_delivery
from webhooks import delivery, services
from webhooks.models import Delivery, Endpoint

pytestmark = pytest.mark.django_db


def test_the_receiver_verifies_the_signature_with_the_secret_it_was_shown(alice, receiver, endpoint_for):
    new = endpoint_for(alice)
    test = services.send_test_event(endpoint=new.endpoint)

    assert delivery.deliver(test.pk) is True

    [request] = receiver.requests
    assert request.path == "/hook"
    assert request.headers["content-type"] == "application/json"
    assert request.headers["webhook-id"] == test.event_id
    assert request.headers["webhook-signature"].startswith("v1,")
    payload = Webhook(new.secret).verify(request.body, request.headers)
    assert payload["type"] == "webhook.test"
    assert payload["data"]["endpoint"] == new.endpoint.pk
    # Signed with this endpoint's secret and no other; a changed body fails.
    with pytest.raises(WebhookVerificationError):
        Webhook(services.new_secret()).verify(request.body, request.headers)
    with pytest.raises(WebhookVerificationError):
        Webhook(new.secret).verify(request.body.replace(b"test", b"tost"), request.headers)


def test_a_failed_attempt_is_retried_later_with_the_same_id_and_a_fresh_signature(
    alice, receiver, endpoint_for, settings
):
    settings.WEBHOOK_RETRY_BASE_SECONDS = 30
    new = endpoint_for(alice)
    row = webhook_delivery(new.endpoint)
    receiver.status = 503

    before = timezone.now()
    assert delivery.deliver(row.pk) is False
    row.refresh_from_db()
    assert row.status == Delivery.Status.PENDING
    assert row.attempts == 1
    assert row.http_status == 503
    assert row.last_error == "HTTP 503."
    assert before + timedelta(seconds=29) < row.next_attempt < timezone.now() + timedelta(seconds=31)
    # Not due yet: a second task for it (a redelivered message) sends nothing.
    assert delivery.deliver(row.pk) is False
    assert len(receiver.requests) == 1
    assert delivery.pending_due() == []

    # Due: the sweep hands it out again, and this time the receiver takes it.
    receiver.status = 200
    later = row.next_attempt + timedelta(seconds=1)
    assert delivery.pending_due(later) == [row.pk]
    Delivery.objects.filter(pk=row.pk).update(next_attempt=timezone.now())
    assert delivery.deliver(row.pk) is True
    first, second = receiver.requests
    assert first.headers["webhook-id"] == second.headers["webhook-id"] == row.event_id
    for request in receiver.requests:
        Webhook(new.secret).verify(request.body, request.headers)
    row.refresh_from_db()
    assert row.status == Delivery.Status.DELIVERED
    assert row.attempts == 2
    assert row.last_error == ""


def test_back_off_doubles_up_to_its_cap(settings):
    settings.WEBHOOK_RETRY_BASE_SECONDS = 30
    settings.WEBHOOK_RETRY_MAX_SECONDS = 3600
    waits = [delivery.backoff(n).total_seconds() for n in range(1, 10)]
    assert waits == [30, 60, 120, 240, 480, 960, 1920, 3600, 3600]


def test_a_delivery_fails_for_good_after_the_last_attempt(alice, receiver, endpoint_for, settings):
    settings.WEBHOOK_MAX_ATTEMPTS = 3
    row = webhook_delivery(endpoint_for(alice).endpoint)
    receiver.status = 500
    for _ in range(3):
        Delivery.objects.filter(pk=row.pk).update(next_attempt=timezone.now())
        delivery.deliver(row.pk)
    row.refresh_from_db()
    assert row.status == Delivery.Status.FAILED
    assert row.attempts == 3
    assert row.finished is not None
    Delivery.objects.filter(pk=row.pk).update(next_attempt=timezone.now())
    assert delivery.deliver(row.pk) is False
    assert len(receiver.requests) == 3


def test_an_endpoint_is_switched_off_after_failures_in_a_row_and_its_owner_told(
    alice, receiver, endpoint_for, settings
):
    settings.WEBHOOK_DISABLE_AFTER_FAILURES = 3
    alice.language = "de"
    alice.save()
    endpoint = endpoint_for(alice).endpoint
    receiver.status = 500
    rows = [webhook_delivery(endpoint, seq=n) for n in range(1, 5)]
    for row in rows[:3]:
        delivery.deliver(row.pk)

    endpoint.refresh_from_db()
    assert endpoint.enabled is False
    assert endpoint.consecutive_failures == 3
    assert "3 failed deliveries in a row" in endpoint.disabled_reason
    [email] = mail.outbox
    assert email.to == [alice.email]
    assert "Webhook" in email.subject
    assert endpoint.url in email.body
    assert "HTTP 500." in email.body
    assert "abgeschaltet" in email.body  # in the owner's language

    # What is still queued is not sent to a switched-off endpoint.
    assert delivery.deliver(rows[3].pk) is False
    rows[3].refresh_from_db()
    assert rows[3].status == Delivery.Status.SKIPPED
    assert len(receiver.requests) == 3
    assert len(mail.outbox) == 1  # told once


def test_a_success_resets_the_count_of_failures(alice, receiver, endpoint_for, settings):
    settings.WEBHOOK_DISABLE_AFTER_FAILURES = 3
    endpoint = endpoint_for(alice).endpoint
    receiver.status = 500
    for seq in (1, 2):
        delivery.deliver(webhook_delivery(endpoint, seq=seq).pk)
    receiver.status = 200
    delivery.deliver(webhook_delivery(endpoint, seq=3).pk)
    receiver.status = 500
    for seq in (4, 5):
        delivery.deliver(webhook_delivery(endpoint, seq=seq).pk)
    endpoint.refresh_from_db()
    assert endpoint.enabled is True
    assert endpoint.consecutive_failures == 2
    assert mail.outbox == []


def test_a_test_event_is_tried_once_and_does_not_count_against_the_endpoint(alice, receiver, endpoint_for, settings):
    settings.WEBHOOK_DISABLE_AFTER_FAILURES = 1
    endpoint = endpoint_for(alice).endpoint
    receiver.status = 500
    test = services.send_test_event(endpoint=endpoint)
    assert delivery.deliver(test.pk) is False
    test.refresh_from_db()
    endpoint.refresh_from_db()
    assert test.status == Delivery.Status.FAILED
    assert test.attempts == 1
    assert endpoint.enabled is True
    assert endpoint.consecutive_failures == 0

    # It is also how an owner checks a switched-off endpoint before switching it back on.
    Endpoint.objects.filter(pk=endpoint.pk).update(enabled=False)
    receiver.status = 204
    assert delivery.deliver(services.send_test_event(endpoint=endpoint).pk) is True


def test_a_redirect_is_not_followed(alice, receiver, endpoint_for):
    endpoint = endpoint_for(alice).endpoint
    receiver.status = 307
    receiver.headers = {"Location": f"http://127.0.0.1:{receiver.port}/elsewhere"}
    row = webhook_delivery(endpoint)

    assert delivery.deliver(row.pk) is False
    assert [r.path for r in receiver.requests] == ["/hook"]
    row.refresh_from_db()
    assert row.http_status == 307
    assert row.status == Delivery.Status.PENDING
    assert "redirects are not followed" in row.last_error
    assert "/elsewhere" in row.last_error


def test_an_answer_larger_than_the_cap_is_cut_off(alice, receiver, endpoint_for, settings):
    settings.WEBHOOK_MAX_RESPONSE_BYTES = 1024
    endpoint = endpoint_for(alice).endpoint
    receiver.status = 200
    receiver.body = b"x" * (4 * 1024 * 1024)
    row = webhook_delivery(endpoint)

    assert delivery.deliver(row.pk) is False
    row.refresh_from_db()
    assert row.last_error.startswith("response_too_large")
    assert row.http_status == 200

    receiver.body = b"x" * 1024  # at the cap is fine
    assert delivery.deliver(services.send_test_event(endpoint=endpoint).pk) is True


def test_a_slow_receiver_times_out(alice, receiver, endpoint_for, settings):
    settings.WEBHOOK_TIMEOUT = 0.5
    receiver.delay = 2.0
    row = webhook_delivery(endpoint_for(alice).endpoint)
    assert delivery.deliver(row.pk) is False
    row.refresh_from_db()
    assert row.last_error.startswith("timeout")
    assert row.latency_ms < 1500


def test_a_receiver_that_is_not_listening_is_a_failed_attempt(alice, receiver, endpoint_for, resolver):
    endpoint = endpoint_for(alice).endpoint
    resolver.answers["receiver.test"] = ["127.0.0.1"]
    Endpoint.objects.filter(pk=endpoint.pk).update(url="http://receiver.test:1/hook")
    row = webhook_delivery(endpoint)
    assert delivery.deliver(row.pk) is False
    row.refresh_from_db()
    assert row.last_error.startswith("connect_failed")
    assert row.http_status is None


@pytest.mark.django_db(transaction=True)
def test_two_workers_never_send_the_same_row(alice, receiver, endpoint_for):
    """Both claim at once (a redelivered task and the sweep); the lease lets one send."""
    receiver.delay = 0.3
    rows = [webhook_delivery(endpoint_for(alice).endpoint, seq=n) for n in range(1, 4)]
    results: list[bool] = []

    def worker() -> None:
        from django.db import connection

        try:
            results.extend(delivery.deliver(row.pk) for row in rows)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results).count(True) == 3
    assert sorted(r.headers["webhook-id"] for r in receiver.requests) == sorted(r.event_id for r in rows)


def test_the_body_is_the_stored_payload(alice, receiver, endpoint_for):
    endpoint = endpoint_for(alice).endpoint
    row = webhook_delivery(endpoint)
    delivery.deliver(row.pk)
    assert json.loads(receiver.requests[0].body) == row.payload


def test_the_sweep_sends_what_is_due_and_nothing_else(alice, receiver, endpoint_for, broker):
    """Serially, in the sweep's own task (as the email sweep): nothing is handed to the broker."""
    endpoint = endpoint_for(alice).endpoint
    due, later, done, claimed = (webhook_delivery(endpoint, seq=n) for n in (1, 2, 3, 4))
    Delivery.objects.filter(pk=later.pk).update(next_attempt=timezone.now() + timedelta(minutes=5))
    Delivery.objects.filter(pk=done.pk).update(status=Delivery.Status.DELIVERED)
    Delivery.objects.filter(pk=claimed.pk).update(claimed_until=timezone.now() + timedelta(hours=1))
    assert delivery.pending_due() == [due.pk]
    assert delivery.sweep() == 1
    assert [r.headers["webhook-id"] for r in receiver.requests] == [due.event_id]
    assert broker.ids == []
    # Once the back-off has passed, the next sweep sends the later one too.
    assert delivery.sweep(now=timezone.now() + timedelta(minutes=6)) == 1
    assert [r.headers["webhook-id"] for r in receiver.requests] == [due.event_id, later.event_id]


def test_a_task_out_of_time_leaves_the_delivery_to_the_sweep(alice, receiver, endpoint_for, monkeypatch):
    from celery.exceptions import SoftTimeLimitExceeded

    from webhooks import transport

    def out_of_time(*args, **kwargs):
        raise SoftTimeLimitExceeded()

    monkeypatch.setattr(transport, "post", out_of_time)
    row = webhook_delivery(endpoint_for(alice).endpoint)
    with pytest.raises(SoftTimeLimitExceeded):
        delivery.deliver(row.pk)
    row.refresh_from_db()
    assert row.status == Delivery.Status.PENDING
    assert row.claimed_until is None
    assert row.attempts == 0
    assert delivery.pending_due() == [row.pk]


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("en", "switched off"),
        ("de", "abgeschaltet"),
        ("nl", "uitgeschakeld"),
        ("fr", "désactivé"),
        ("ko", "꺼졌습니다"),
    ],
)
def test_the_switched_off_email_is_in_the_owners_language(alice, endpoint_for, language, words):
    from webhooks import emails

    alice.language = language
    alice.save()
    endpoint = endpoint_for(alice).endpoint
    assert emails.send_endpoint_disabled(endpoint) is True
    [email] = mail.outbox
    assert words in email.subject
    assert words in email.body
    assert endpoint.url in email.body
    assert f"/api/v1/webhooks/{endpoint.pk}/test" in email.body


def test_an_answer_that_drips_in_is_cut_off_at_the_deadline(alice, endpoint_for, resolver, settings):
    """Each byte comes within any socket timeout; the whole exchange still ends on time."""
    import socket
    import time

    settings.WEBHOOK_TIMEOUT = 1.0
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    stop = threading.Event()

    def drip() -> None:
        connection, _ = listener.accept()
        with connection:
            connection.recv(65536)
            for byte in b"HTTP/1.1 200 OK\r\nX-Slow: " + b"a" * 200:
                if stop.is_set():
                    return
                try:
                    connection.sendall(bytes([byte]))
                except OSError:
                    return
                stop.wait(0.1)  # a byte every 100 ms: the slow server under test

    thread = threading.Thread(target=drip, daemon=True)
    thread.start()
    new = endpoint_for(alice)
    Endpoint.objects.filter(pk=new.endpoint.pk).update(url=f"http://receiver.test:{port}/hook")
    row = webhook_delivery(new.endpoint)
    started = time.monotonic()
    try:
        assert delivery.deliver(row.pk) is False
    finally:
        stop.set()
        listener.close()
    assert time.monotonic() - started < 3
    row.refresh_from_db()
    assert row.last_error.startswith("timeout")
