"""Webhook endpoints that users register, and the log of what was sent to them.

An ``Endpoint`` belongs to a user. An OAuth application may later register
endpoints for a user (issue 14, "webhooks:manage"): the app that did so is
then to be recorded beside ``owner`` as a nullable foreign key to the OAuth
application model; until OAuth exists every endpoint is registered by its
owner with a personal token or a session.

A ``Delivery`` is written in the transaction of the event that causes it (as
an email is in ``notifications``), so an event and its deliveries are stored
together or not at all, and sent after commit by a task, then by a periodic
sweep for whatever is still pending. Its ``event_id`` (the ``webhook-id``
header) is unique per endpoint, so the same event is never queued twice and a
receiver can recognise a retry.
"""

from __future__ import annotations

from typing import ClassVar

from django.conf import settings
from django.db import models
from django.utils import timezone


class EventType(models.TextChoices):
    GAME_INVITED = "game.invited", "You were invited to a game"
    GAME_STARTED = "game.started", "A game of yours started"
    GAME_MOVE = "game.move", "Someone moved in a game of yours"
    YOUR_TURN = "game.your_turn", "It is your turn"
    ROUND_SCORED = "game.round_scored", "A round was scored"
    GAME_OVER = "game.over", "A game of yours ended"
    REVIEW_READY = "game.review_ready", "The bot's review of a game of yours is ready"


# Sent only on request (``POST /api/v1/webhooks/{id}/test``); no endpoint subscribes to it.
TEST_EVENT = "webhook.test"


class Endpoint(models.Model):
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="webhook_endpoints")
    url = models.CharField(max_length=2000, help_text="Where events are POSTed (https).")
    description = models.CharField(max_length=200, blank=True)
    event_types = models.JSONField(default=list, help_text="The event types sent here (EventType values).")
    # The signing key in the Standard Webhooks form ("whsec_" + base64). It must be
    # kept readable to sign with; the API shows it once, when the endpoint is created.
    secret = models.CharField(max_length=100, editable=False)
    # After a rotation the old secret signs too (a second signature) until then,
    # so that a receiver can switch to the new one without losing a delivery.
    previous_secret = models.CharField(max_length=100, blank=True, editable=False)
    previous_secret_until = models.DateTimeField(null=True, blank=True, editable=False)
    enabled = models.BooleanField(default=True)
    disabled_reason = models.CharField(max_length=300, blank=True)
    disabled_at = models.DateTimeField(null=True, blank=True)
    # Failed attempts since the last success; at WEBHOOK_DISABLE_AFTER_FAILURES the endpoint is switched off.
    consecutive_failures = models.PositiveIntegerField(default=0)
    created = models.DateTimeField(default=timezone.now)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering: ClassVar[list[str]] = ["created"]

    def __str__(self) -> str:
        return f"{self.url} ({self.owner_id})"


class Delivery(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        DELIVERED = "delivered", "Delivered"
        FAILED = "failed", "Failed for good"
        SKIPPED = "skipped", "Skipped (endpoint disabled)"

    endpoint = models.ForeignKey(Endpoint, on_delete=models.CASCADE, related_name="deliveries")
    event_id = models.CharField(max_length=64, help_text="The webhook-id header: the same on every attempt.")
    event_type = models.CharField(max_length=40)
    payload = models.JSONField(help_text="The body sent, as JSON.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    http_status = models.PositiveSmallIntegerField(null=True, blank=True, help_text="Of the last attempt.")
    latency_ms = models.PositiveIntegerField(null=True, blank=True, help_text="Of the last attempt.")
    last_error = models.TextField(blank=True)
    created = models.DateTimeField(default=timezone.now)
    next_attempt = models.DateTimeField(default=timezone.now)
    finished = models.DateTimeField(null=True, blank=True)
    # A worker that is sending this delivery holds it until then (webhooks.delivery.deliver).
    claimed_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering: ClassVar[list[str]] = ["-created", "-pk"]
        verbose_name_plural = "deliveries"
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["endpoint", "event_id"], name="webhook_delivery_once_per_endpoint"),
        ]
        indexes: ClassVar[list[models.Index]] = [
            models.Index(fields=["status", "next_attempt"], name="webhook_delivery_due"),
        ]

    def __str__(self) -> str:
        return f"{self.event_type} {self.event_id} to endpoint {self.endpoint_id} ({self.status})"
