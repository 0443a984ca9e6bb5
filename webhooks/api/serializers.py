"""The bodies of the webhooks API: what is accepted (strictly) and what is answered."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from manhattan_site.strict_input import StrictBooleanField, StrictCharField, StrictSerializer

from ..models import Delivery, EventType

EVENT_TYPES = [value for value, _label in EventType.choices]


class EventTypesField(serializers.ListField):
    child = serializers.ChoiceField(choices=EVENT_TYPES)


class WebhookEndpointCreateSerializer(StrictSerializer):
    # Not trimmed here: DRF would trim "  " to "" and refuse it as a blank field (400) before
    # the URL check could say why it is not a URL, though the schema allows it (minLength 1).
    # The URL check trims and refuses every URL it may not call alike (422 webhook_url_refused).
    url = serializers.CharField(max_length=2000, trim_whitespace=False, help_text="An https URL on a public host.")
    event_types = EventTypesField(
        min_length=1, max_length=len(EVENT_TYPES), help_text="The event types to send to this endpoint."
    )
    description = StrictCharField(max_length=200, required=False, allow_blank=True, default="")


class WebhookEndpointUpdateSerializer(StrictSerializer):
    url = serializers.CharField(max_length=2000, trim_whitespace=False, required=False)  # see the create body
    event_types = EventTypesField(min_length=1, max_length=len(EVENT_TYPES), required=False)
    description = StrictCharField(max_length=200, required=False, allow_blank=True)
    enabled = StrictBooleanField(
        required=False, help_text="true switches a disabled endpoint back on and forgets its failures."
    )


class WebhookEndpointSerializer(serializers.Serializer[Any]):
    """An endpoint as its owner sees it (never its secret)."""

    id = serializers.IntegerField()
    url = serializers.CharField()
    description = serializers.CharField()
    event_types = serializers.ListField(child=serializers.ChoiceField(choices=EVENT_TYPES))
    enabled = serializers.BooleanField()
    disabled_reason = serializers.CharField(help_text="Why the endpoint is off (empty while it is on).")
    disabled_at = serializers.DateTimeField(allow_null=True)
    consecutive_failures = serializers.IntegerField(help_text="Failed attempts since the last success.")
    created = serializers.DateTimeField()
    updated = serializers.DateTimeField()


class NewWebhookEndpointSerializer(WebhookEndpointSerializer):
    """A new endpoint, with its signing secret: shown this once, keep it."""

    secret = serializers.SerializerMethodField(help_text="The signing secret (whsec_…), shown only now.")

    def get_secret(self, endpoint: Any) -> str:
        secret: str = self.context["secret"]
        return secret


class WebhookDeliverySerializer(serializers.Serializer[Any]):
    """One event sent (or to be sent) to an endpoint, with the outcome of its last attempt."""

    id = serializers.IntegerField()
    event_id = serializers.CharField(help_text="The webhook-id header, the same on every attempt.")
    event_type = serializers.CharField()
    status = serializers.ChoiceField(choices=Delivery.Status.choices)
    attempts = serializers.IntegerField()
    http_status = serializers.IntegerField(allow_null=True, help_text="The receiver's answer to the last attempt.")
    latency_ms = serializers.IntegerField(allow_null=True, help_text="How long the last attempt took.")
    last_error = serializers.CharField()
    created = serializers.DateTimeField()
    next_attempt = serializers.DateTimeField(help_text="When a pending delivery is tried next.")
    finished = serializers.DateTimeField(allow_null=True)
    payload = serializers.JSONField(help_text="The body sent: {type, timestamp, data}.")
