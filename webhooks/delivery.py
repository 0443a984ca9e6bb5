"""Deliveries: written in the caller's transaction, sent after it, retried with back-off.

This is the outbox of ``notifications.outbox`` applied to HTTP: rows are
written with the event that causes them, handed to a task on commit, and
handed out again by a periodic sweep (``sweep``) if the broker was down or an
attempt failed. A worker claims a row with a conditional UPDATE (a lease)
before it speaks to the receiver, and records the outcome with an UPDATE
conditional on that claim, so two workers never send the same row at once and
a row is marked delivered only by the worker that sent it.
"""

from __future__ import annotations

import json
import logging
import time
from datetime import datetime, timedelta

from celery import current_app
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone
from standardwebhooks import Webhook

from manhattan_site.metrics import WEBHOOKS

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
    if pks:
        transaction.on_commit(lambda: publish(pks))


def publish(pks: list[int]) -> None:
    """One task per ``DELIVERY_BATCH`` deliveries, by name (the tasks module calls this one)."""
    for start in range(0, len(pks), DELIVERY_BATCH):
        try:
            current_app.send_task(DELIVER_TASK, args=[pks[start : start + DELIVERY_BATCH]])
        except Exception:  # the broker is down: the sweep will send them
            logger.warning("could not enqueue %s webhook deliveries", len(pks) - start, exc_info=True)
            return


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


def deliver(delivery_id: int) -> bool:
    """Send one pending, due delivery; True if the receiver took it (2xx).

    1. claim the row (a lease until ``WEBHOOK_LEASE_SECONDS`` from now), committed at once;
    2. check the URL again (DNS may have changed since registration) and POST
       to the checked address, outside any transaction;
    3. record the outcome, conditional on the claim.
    """
    now = timezone.now()
    lease = now + timedelta(seconds=settings.WEBHOOK_LEASE_SECONDS)
    claimed = (
        Delivery.objects.filter(pk=delivery_id, status=Delivery.Status.PENDING, next_attempt__lte=now)
        .filter(Q(claimed_until__isnull=True) | Q(claimed_until__lt=now))
        .update(claimed_until=lease)
    )
    if not claimed:
        return False
    mine = Delivery.objects.filter(pk=delivery_id, claimed_until=lease)
    delivery = Delivery.objects.select_related("endpoint__owner").filter(pk=delivery_id).first()
    if delivery is None:
        return False  # its endpoint was deleted just now, and its log with it
    endpoint = delivery.endpoint
    is_test = delivery.event_type == TEST_EVENT
    if not endpoint.enabled and not is_test:
        mine.update(
            status=Delivery.Status.SKIPPED, last_error="The endpoint is disabled.", finished=now, claimed_until=None
        )
        return False
    body = body_of(delivery)
    started = time.monotonic()
    status: int | None = None
    try:
        target = ssrf.check_url(endpoint.url)
        answer = transport.post(target, body.encode(), signed_headers(endpoint, delivery, body, timezone.now()))
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
    except SoftTimeLimitExceeded:
        mine.update(claimed_until=None)  # out of time: the sweep tries it again
        raise
    latency_ms = round((time.monotonic() - started) * 1000)
    if not error:
        mine.update(
            status=Delivery.Status.DELIVERED,
            attempts=F("attempts") + 1,
            http_status=status,
            latency_ms=latency_ms,
            last_error="",
            finished=timezone.now(),
            claimed_until=None,
        )
        if not is_test:
            Endpoint.objects.filter(pk=endpoint.pk).exclude(consecutive_failures=0).update(consecutive_failures=0)
        WEBHOOKS.labels("delivered").inc()
        return True
    _record_failure(delivery, mine, status=status, latency_ms=latency_ms, error=error, is_test=is_test)
    WEBHOOKS.labels("failed").inc()
    return False


def backoff(attempts: int) -> timedelta:
    """The wait after the ``attempts``-th failed attempt: doubling from the base, capped."""
    seconds = settings.WEBHOOK_RETRY_BASE_SECONDS * 2 ** min(attempts - 1, 20)
    return timedelta(seconds=min(seconds, settings.WEBHOOK_RETRY_MAX_SECONDS))


def _record_failure(
    delivery: Delivery, mine: QuerySet[Delivery], *, status: int | None, latency_ms: int, error: str, is_test: bool
) -> None:
    now = timezone.now()
    attempts = delivery.attempts + 1
    # A test event is a probe, tried once; it neither retries nor counts against the endpoint.
    final = is_test or attempts >= settings.WEBHOOK_MAX_ATTEMPTS
    mine.update(
        status=Delivery.Status.FAILED if final else Delivery.Status.PENDING,
        attempts=attempts,
        http_status=status,
        latency_ms=latency_ms,
        last_error=error[:2000],
        next_attempt=now + backoff(attempts),
        finished=now if final else None,
        claimed_until=None,
    )
    logger.warning("webhook delivery %s failed (attempt %s): %s", delivery.pk, attempts, error)
    if not is_test:
        _count_failure(delivery.endpoint, now)


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


# --- the sweep ------------------------------------------------------------------------------


def pending_due(now: datetime | None = None, limit: int = 500) -> list[int]:
    now = now or timezone.now()
    return list(
        Delivery.objects.filter(status=Delivery.Status.PENDING, next_attempt__lte=now)
        .order_by("next_attempt")
        .values_list("pk", flat=True)[:limit]
    )


def prune(now: datetime | None = None) -> int:
    """Delete finished deliveries older than ``WEBHOOK_LOG_DAYS``: the log is for looking into recent trouble."""
    cutoff = (now or timezone.now()) - timedelta(days=settings.WEBHOOK_LOG_DAYS)
    deleted, _ = Delivery.objects.exclude(status=Delivery.Status.PENDING).filter(created__lt=cutoff).delete()
    return deleted


def sweep(now: datetime | None = None) -> int:
    """Hand what is pending and due (retries, and what the broker never carried)
    to the delivery tasks; a row already claimed by a worker is skipped there."""
    due = pending_due(now, limit=200)
    publish(due)
    return len(due)
