"""Operators see every endpoint with its state, and the delivery log (read-only)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from . import services
from .models import Delivery, Endpoint


class RecentDeliveryInline(admin.TabularInline[Delivery, Endpoint]):
    model = Delivery
    fields = ("created", "event_type", "status", "attempts", "http_status", "latency_ms", "last_error")
    readonly_fields = fields
    extra = 0
    max_num = 0
    can_delete = False
    show_change_link = True

    def get_queryset(self, request: HttpRequest) -> QuerySet[Delivery]:
        return super().get_queryset(request).order_by("-created")

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Endpoint)
class EndpointAdmin(admin.ModelAdmin[Endpoint]):
    list_display = ("url", "owner", "enabled", "consecutive_failures", "disabled_reason", "created")
    list_filter = ("enabled",)
    search_fields = ("url", "owner__email")
    raw_id_fields = ("owner",)
    # The secret is never shown: only its owner saw it, once.
    readonly_fields = ("url", "consecutive_failures", "disabled_at", "created", "updated")
    fields = ("owner", "description", "event_types", "enabled", "disabled_reason", *readonly_fields)
    inlines = [RecentDeliveryInline]
    actions = ["send_test_event"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # owners register endpoints through the API, where the URL is checked

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
    readonly_fields = [f.name for f in Delivery._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
