"""Operators read table talk and hide what should not be there; hiding keeps
the message and records who hid it and when."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from . import services
from .models import Mute, TableMessage


@admin.register(TableMessage)
class TableMessageAdmin(admin.ModelAdmin[TableMessage]):
    list_display = ("created", "game", "seat", "author", "via", "short_text", "hidden_at", "hidden_by")
    list_filter = ("via", ("hidden_at", admin.EmptyFieldListFilter))
    search_fields = ("text", "author__email", "game__public_id")
    readonly_fields = ("game", "seat", "author", "text", "via", "created", "hidden_at", "hidden_by")
    list_select_related = ("game", "author", "hidden_by")  # hidden_by may be empty: named, or one query a row
    actions = ("hide_messages",)

    @admin.display(description="text")
    def short_text(self, message: TableMessage) -> str:
        return message.text if len(message.text) <= 80 else message.text[:79] + "…"

    @admin.action(description="Hide the selected messages from the players", permissions=["change"])
    def hide_messages(self, request: HttpRequest, queryset: QuerySet[TableMessage]) -> None:
        hidden = 0
        for message in queryset.filter(hidden_at__isnull=True):
            services.hide(message, request.user)  # type: ignore[arg-type]
            hidden += 1
        self.message_user(request, f"{hidden} message(s) hidden.", messages.SUCCESS)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # the record keeps every message; hide instead


@admin.register(Mute)
class MuteAdmin(admin.ModelAdmin[Mute]):
    list_display = ("user", "muted", "created")
    search_fields = ("user__email", "muted__email")
    raw_id_fields = ("user", "muted")
