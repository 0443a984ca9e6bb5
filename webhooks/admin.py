"""Operators see every endpoint with its state, and the delivery log (read-only)."""

from __future__ import annotations

import json
from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html

from . import services
from .delivery import WEBHOOK_OUTBOX
from .models import Delivery, Endpoint


def _as_operators_see(event: dict[str, Any]) -> dict[str, Any]:
    """A game event of a delivery without the owner's hand or drawn cards: the deck's
    order is secret from operators too (RULES.md R4), as on the game's admin page."""
    out = dict(event)
    if isinstance(out.get("hands"), list):
        out["hands"] = [None for _ in out["hands"]]
    drew = out.get("drew")
    if drew is not None:
        out["drew"] = None
        out["drew_count"] = len(drew) if isinstance(drew, list) else 1
    return out


def public_payload(payload: Any) -> Any:
    if not isinstance(payload, dict) or not isinstance(payload.get("data"), dict):
        return payload
    data = dict(payload["data"])
    if isinstance(data.get("event"), dict):
        data["event"] = _as_operators_see(data["event"])
    if isinstance(data.get("events"), list):
        data["events"] = [_as_operators_see(e) if isinstance(e, dict) else e for e in data["events"]]
    return {**payload, "data": data}


RECENT_DELIVERIES = 20


class RecentDeliveryInline(admin.TabularInline[Delivery, Endpoint]):
    model = Delivery
    fields = ("created", "event_type", "status", "attempts", "http_status", "latency_ms", "last_error")
    readonly_fields = fields
    extra = 0
    max_num = 0
    can_delete = False
    show_change_link = True

    def get_queryset(self, request: HttpRequest) -> QuerySet[Delivery]:
        return super().get_queryset(request).order_by("-created", "-pk")

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Endpoint)
class EndpointAdmin(admin.ModelAdmin[Endpoint]):
    list_display = ("url", "owner", "enabled", "consecutive_failures", "disabled_reason", "created")
    list_filter = ("enabled",)
    search_fields = ("url", "owner__email")
    raw_id_fields = ("owner",)
    # The secret is never shown: only its owner saw it, once.
    readonly_fields = ("url", "consecutive_failures", "disabled_at", "created", "updated", "delivery_log")
    fields = ("owner", "description", "event_types", "enabled", "disabled_reason", *readonly_fields)
    inlines = [RecentDeliveryInline]
    actions = ["send_test_event"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # owners register endpoints through the API, where the URL is checked

    def get_formset_kwargs(self, request: HttpRequest, obj: Any, inline: Any, prefix: str) -> dict[str, Any]:
        """The latest deliveries only: an endpoint may have had thousands (the log has them all)."""
        kwargs = super().get_formset_kwargs(request, obj, inline, prefix)
        if isinstance(inline, RecentDeliveryInline) and obj is not None and obj.pk is not None:
            latest = kwargs["queryset"].filter(endpoint=obj).values_list("pk", flat=True)[:RECENT_DELIVERIES]
            kwargs["queryset"] = kwargs["queryset"].filter(pk__in=list(latest))
        return kwargs

    @admin.display(description="deliveries")
    def delivery_log(self, endpoint: Endpoint) -> str:
        if endpoint.pk is None:
            return ""
        url = reverse("admin:webhooks_delivery_changelist") + f"?endpoint__id__exact={endpoint.pk}"
        return format_html('<a href="{}">Every delivery to this endpoint</a> (below: the latest {})', url,
                           RECENT_DELIVERIES)  # fmt: skip

    def save_model(self, request: HttpRequest, obj: Endpoint, form: Any, change: bool) -> None:
        if "enabled" in form.changed_data:
            # As through the API: switching on forgets the failures, switching off says who did it.
            enabled = obj.enabled
            obj.enabled = not enabled
            services.update_endpoint(endpoint=obj, enabled=enabled)
            if not enabled:
                obj.disabled_reason = form.cleaned_data.get("disabled_reason") or "Switched off by an operator."
        super().save_model(request, obj, form, change)

    @admin.action(description="Send a test event", permissions=["change"])
    def send_test_event(self, request: HttpRequest, queryset: QuerySet[Endpoint]) -> None:
        for endpoint in queryset:
            services.send_test_event(endpoint=endpoint)
        self.message_user(request, f"Test events queued for {len(queryset)} endpoint(s).", messages.SUCCESS)


@admin.register(Delivery)
class DeliveryAdmin(admin.ModelAdmin[Delivery]):
    list_display = (
        "created",
        "endpoint",
        "event_type",
        "status",
        "attempts",
        "http_status",
        "latency_ms",
        "last_error",
    )
    list_filter = ("status", "event_type")
    search_fields = ("event_id", "endpoint__url", "endpoint__owner__email")
    list_select_related = ("endpoint",)
    # The payload as sent, but without the owner's hand or drawn cards.
    readonly_fields = [f.name if f.name != "payload" else "payload_shown" for f in Delivery._meta.fields]
    actions = ("send_again",)
    fields = tuple(readonly_fields)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_retry_permission(self, request: HttpRequest) -> bool:
        """The log is read-only; sending a failed delivery again needs the change permission."""
        return request.user.has_perm("webhooks.change_delivery")

    @admin.action(description="Send the selected failed deliveries again", permissions=["retry"])
    def send_again(self, request: HttpRequest, queryset: QuerySet[Delivery]) -> None:
        """One more try each, now (a switched-off endpoint's stay skipped)."""
        pks = list(queryset.filter(status=Delivery.Status.FAILED).values_list("pk", flat=True))
        count = WEBHOOK_OUTBOX.send_again(pks)
        for row in Delivery.objects.filter(pk__in=pks, status=Delivery.Status.PENDING):
            self.log_change(request, row, "Sent again.")
        self.message_user(request, f"{count} failed delivery(ies) will be sent again.", messages.SUCCESS)

    @admin.display(description="payload (no hand, no drawn card)")
    def payload_shown(self, delivery: Delivery) -> str:
        return json.dumps(public_payload(delivery.payload), separators=(", ", ": "))
