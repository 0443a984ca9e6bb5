"""Deliveries: written in the caller's transaction, sent after it, retried with back-off.

As emails are (``notifications.outbox``), rows are written with the event
that causes them, handed to a task on commit, and sent again by a periodic
sweep (``sweep``) if the broker was down or an attempt failed. A worker claims a row with a conditional UPDATE (a lease)
before it speaks to the receiver, and records the outcome with an UPDATE
conditional on that claim, so two workers never send the same row at once and
a row is marked delivered only by the worker that sent it. That machine is
``manhattan_site.outbox`` (shared with the emails); this module adds what is
the webhooks' own: signing and POSTing one, skipping disabled endpoints, and
switching off an endpoint that keeps failing.
"""

from __future__ import annotations

import json
import logging
import time
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import F
from django.utils import timezone
from standardwebhooks import Webhook

from manhattan_site.metrics import WEBHOOKS
from manhattan_site.outbox import Attempt, Outbox, RetryPolicy, Skip

from . import emails, ssrf, transport
from .models import TEST_EVENT, Delivery, Endpoint

logger = logging.getLogger(__name__)
DELIVER_TASK = "webhooks.tasks.deliver_webhooks"
# Deliveries per task: each may wait up to WEBHOOK_TIMEOUT on its receiver, and a
# batch must end well within the task's soft time limit.
DELIVERY_BATCH = 4


# --- writing --------------------------------------------------------------------------


def queue(rows: list[Delivery]) -> None:
    """Write deliveries (once per endpoint and event id) and send them after commit.

    As in the email outbox, a conflict updates a column to its own value so
    that the ids of rows already there come back too; delivery sends only
    what is still pending, so nothing is sent twice either way.
    """
    if not rows:
        return
    written = Delivery.objects.bulk_create(
        rows, update_conflicts=True, unique_fields=["endpoint", "event_id"], update_fields=["event_type"]
    )
    publish_on_commit([row.pk for row in written if row.pk is not None])


def publish_on_commit(pks: list[int]) -> None:
    WEBHOOK_OUTBOX.publish_on_commit(pks)


def publish(pks: list[int]) -> None:
    """One task per ``DELIVERY_BATCH`` deliveries."""
    WEBHOOK_OUTBOX.publish(pks)


# --- sending ----------------------------------------------------------------------------


def body_of(delivery: Delivery) -> str:
    """The exact text that is signed and sent (the same on every attempt)."""
    return json.dumps(delivery.payload, separators=(",", ":"), ensure_ascii=False, sort_keys=True)


def signed_headers(endpoint: Endpoint, delivery: Delivery, body: str, now: datetime) -> dict[str, str]:
    """The Standard Webhooks headers: the id, the time of this attempt, and its
    signature (two, space-separated, while a rotated-out secret still signs)."""
    keys = [endpoint.secret]
    if endpoint.previous_secret and endpoint.previous_secret_until and endpoint.previous_secret_until > now:
        keys.append(endpoint.previous_secret)
    return {
        "webhook-id": delivery.event_id,
        "webhook-timestamp": str(int(now.timestamp())),
        "webhook-signature": " ".join(Webhook(secret).sign(delivery.event_id, now, body) for secret in keys),
    }


class WebhookOutbox(Outbox[Delivery]):
    """Webhooks: signed and POSTed to the URL checked again at each attempt
    (DNS may have changed since registration; a refusal is a failed attempt);
    not sent to a switched-off endpoint (except a test event, which is how its
    owner checks it). Each failed attempt counts against the endpoint, which is
    switched off after ``WEBHOOK_DISABLE_AFTER_FAILURES`` in a row; a test event
    is tried once and neither counts nor resets that."""

    model = Delivery
    name = "webhook"
    task = DELIVER_TASK
    batch = DELIVERY_BATCH
    sweep_limit = 200
    sent = Delivery.Status.DELIVERED
    sent_at = "finished"
    finished_at = "finished"

    def policy(self) -> RetryPolicy:
        return RetryPolicy(
            first_delay=timedelta(seconds=settings.WEBHOOK_RETRY_BASE_SECONDS),
            max_delay=timedelta(seconds=settings.WEBHOOK_RETRY_MAX_SECONDS),
            max_attempts=settings.WEBHOOK_MAX_ATTEMPTS,
        )

    def lease(self) -> timedelta:
        return timedelta(seconds=settings.WEBHOOK_LEASE_SECONDS)

    def longest_send(self) -> float:
        return float(settings.WEBHOOK_TIMEOUT)

    def load(self, pk: Any) -> Delivery | None:
        return Delivery.objects.select_related("endpoint__owner").filter(pk=pk).first()

    def suppressed(self, row: Delivery, now: datetime) -> Skip | None:
        if row.endpoint.enabled or row.event_type == TEST_EVENT:
            return None
        return Skip(Delivery.Status.SKIPPED, {"last_error": "The endpoint is disabled."})

    def send(self, row: Delivery) -> Attempt:
        is_test = row.event_type == TEST_EVENT
        body = body_of(row)
        started = time.monotonic()
        status: int | None = None
        try:
            target = ssrf.check_url(row.endpoint.url)
            answer = transport.post(target, body.encode(), signed_headers(row.endpoint, row, body, timezone.now()))
            status = answer.status
            if 200 <= answer.status < 300:
                error = ""
            elif 300 <= answer.status < 400:
                error = f"HTTP {answer.status}: redirects are not followed (Location: {answer.location or '-'})."
            else:
                error = f"HTTP {answer.status}."
        except ssrf.UnsafeURL as refused:
            error = f"The URL was refused ({refused.reason}): {refused.message}"
        except transport.TransportError as failed:
            status, error = failed.status, f"{failed.code}: {failed.message}"
        latency_ms = round((time.monotonic() - started) * 1000)
        # A test event is a probe, tried once.
        return Attempt(error, permanent=is_test, columns={"http_status": status, "latency_ms": latency_ms})

    def on_sent(self, row: Delivery, attempt: Attempt) -> None:
        if row.event_type != TEST_EVENT:
            Endpoint.objects.filter(pk=row.endpoint_id).exclude(consecutive_failures=0).update(consecutive_failures=0)
        WEBHOOKS.labels("delivered").inc()

    def on_failed(self, row: Delivery, attempt: Attempt, *, final: bool) -> None:
        if row.event_type != TEST_EVENT:
            _count_failure(row.endpoint, timezone.now())
        WEBHOOKS.labels("failed").inc()


WEBHOOK_OUTBOX = WebhookOutbox()


def deliver(delivery_id: int, now: datetime | None = None) -> bool:
    """Send one pending, due delivery; True if the receiver took it (2xx)."""
    return WEBHOOK_OUTBOX.deliver(delivery_id, now)


def _count_failure(endpoint: Endpoint, now: datetime) -> None:
    """One more failure in a row; at the limit the endpoint is switched off, once, and its owner told."""
    Endpoint.objects.filter(pk=endpoint.pk).update(consecutive_failures=F("consecutive_failures") + 1)
    limit = settings.WEBHOOK_DISABLE_AFTER_FAILURES
    reason = f"Switched off after {limit} failed deliveries in a row."
    switched_off = Endpoint.objects.filter(pk=endpoint.pk, enabled=True, consecutive_failures__gte=limit).update(
        enabled=False, disabled_reason=reason, disabled_at=now
    )
    if switched_off:
        endpoint.refresh_from_db()
        logger.warning("webhook endpoint %s switched off: %s", endpoint.pk, reason)
        emails.send_endpoint_disabled(endpoint)


def backoff(attempts: int) -> timedelta:
    """The wait after the ``attempts``-th failed attempt: doubling from the base, capped."""
    return WEBHOOK_OUTBOX.policy().delay(attempts)


# --- the sweep ------------------------------------------------------------------------------


def pending_due(now: datetime | None = None, limit: int = 200) -> list[int]:
    return WEBHOOK_OUTBOX.pending_due(now, limit)


def prune(now: datetime | None = None) -> int:
    """Delete finished deliveries older than ``WEBHOOK_LOG_DAYS``: the log is for looking into recent trouble."""
    cutoff = (now or timezone.now()) - timedelta(days=settings.WEBHOOK_LOG_DAYS)
    deleted, _ = Delivery.objects.exclude(status=Delivery.Status.PENDING).filter(created__lt=cutoff).delete()
    return deleted


def sweep(now: datetime | None = None) -> int:
    """Send what is pending and due (retries, and what the broker never carried),
    serially, as the email sweep does; how many the receivers took."""
    return WEBHOOK_OUTBOX.sweep(now)
