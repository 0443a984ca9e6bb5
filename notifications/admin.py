"""What operators see of the mail: the outbox, bouncing addresses and
addresses that want no invitations, and the inbound mail that was refused
(counted by reason in the filter)."""

from __future__ import annotations

import json

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from .models import InboundRefusal, Notification, Suppression
from .outbox import EMAIL_OUTBOX


@admin.register(Notification)
class NotificationAdmin(admin.ModelAdmin[Notification]):
    list_display = ("kind", "email", "status", "attempts", "created", "sent", "last_error")
    list_filter = ("status", "kind")
    search_fields = ("email", "key")
    # The context as kept, but a link in it (a data export's) opens the person's data to
    # whoever holds it: the page says there is one, never what it is.
    readonly_fields = [f.name if f.name != "context" else "context_shown" for f in Notification._meta.fields]
    fields = tuple(readonly_fields)
    actions = ("send_again",)

    @admin.display(description="context")
    def context_shown(self, notification: Notification) -> str:
        context = notification.context if isinstance(notification.context, dict) else {}
        shown = {key: "(a link, not shown)" if key == "link" else value for key, value in context.items()}
        return json.dumps(shown, separators=(", ", ": "), ensure_ascii=False)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.action(description="Send the selected failed emails again", permissions=["change"])
    def send_again(self, request: HttpRequest, queryset: QuerySet[Notification]) -> None:
        """One more try each, now (a bouncing address stays skipped until its suppression is removed)."""
        pks = list(queryset.filter(status=Notification.Status.FAILED).values_list("pk", flat=True))
        count = EMAIL_OUTBOX.send_again(pks)
        for notification in Notification.objects.filter(pk__in=pks, status=Notification.Status.PENDING):
            self.log_change(request, notification, "Sent again.")
        self.message_user(request, f"{count} failed email(s) will be sent again.", messages.SUCCESS)


@admin.register(Suppression)
class SuppressionAdmin(admin.ModelAdmin[Suppression]):
    list_display = ("email", "reason", "created", "detail")
    list_filter = ("reason",)
    search_fields = ("email",)
    show_facets = admin.ShowFacets.ALWAYS


@admin.register(InboundRefusal)
class InboundRefusalAdmin(admin.ModelAdmin[InboundRefusal]):
    """Each refused or dropped inbound message; the filter counts them by reason."""

    list_display = ("received", "reason", "sender", "message_id", "detail")
    list_filter = ("reason", "received")
    show_facets = admin.ShowFacets.ALWAYS  # the count of each reason beside it
    search_fields = ("sender", "message_id")
    readonly_fields = ("received", "reason", "sender", "message_id", "notification", "detail")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False
