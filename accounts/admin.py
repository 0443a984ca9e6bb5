from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse

from manhattan_site.admin_confirm import confirmation_page, confirmed

from .closing import close_account
from .models import ApiToken, User
from .services import create_api_token, revoke_api_token


@admin.register(User)
class UserAdmin(BaseUserAdmin[User]):
    ordering = ("email",)
    list_display = ("email", "display_name", "is_bot", "is_staff", "is_active", "closed", "date_joined")
    list_filter = ("is_bot", "is_staff", "is_superuser", "is_active", ("closed", admin.EmptyFieldListFilter))
    search_fields = ("email", "display_name")
    actions = ("make_bot_accounts", "close_accounts")
    fieldsets = (
        (None, {"fields": ("email", "password", "display_name", "is_bot")}),
        ("Permissions", {"fields": ("is_active", "is_staff", "is_superuser", "groups", "user_permissions")}),
        ("Dates", {"fields": ("last_login", "date_joined")}),
    )
    add_fieldsets = ((None, {"classes": ("wide",), "fields": ("email", "password1", "password2")}),)

    @admin.action(description="Close the selected accounts…", permissions=["change"])
    def close_accounts(self, request: HttpRequest, queryset: QuerySet[User]) -> HttpResponse | None:
        """As the person's own "Close my account" does (accounts/closing.py): asks first, as
        it cannot be taken back; operators' accounts are left alone. Written in the history."""
        people = queryset.filter(is_staff=False, is_superuser=False, closed__isnull=True)
        if not confirmed(request):
            return confirmation_page(
                self,
                request,
                title="Close these accounts?",
                template="admin/accounts/user/close.html",
                people=list(people),
            )
        closed = 0
        for user in people:
            if close_account(user=user):
                closed += 1
                self.log_change(request, user, "Closed the account.")
        self.message_user(request, f"{closed} account(s) closed; the bot plays their seats.")
        return None

    @admin.action(description="Make the selected users bot accounts (API only, no email)", permissions=["change"])
    def make_bot_accounts(self, request: HttpRequest, queryset: QuerySet[User]) -> None:
        # Operator accounts are never bots (docs/api.md): they are left as they are.
        changed = queryset.filter(is_bot=False, is_staff=False, is_superuser=False).update(is_bot=True)
        self.message_user(request, f"{changed} account(s) are now bot accounts.")


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin[ApiToken]):
    list_display = ("name", "user", "prefix", "scope", "created", "last_used", "revoked")
    list_filter = ("revoked",)
    search_fields = ("name", "user__email", "prefix")
    readonly_fields = ("prefix", "created", "last_used", "revoked")
    fields = ("user", "name", "scope", "prefix", "created", "last_used", "revoked")
    raw_id_fields = ("user",)  # a drop-down would list every account of the site
    actions = ("revoke",)

    def get_readonly_fields(self, request: HttpRequest, obj: ApiToken | None = None) -> Any:
        # A made token keeps its owner (its bearer would act as someone else) and its scope.
        return (*self.readonly_fields, "user", "scope") if obj is not None else self.readonly_fields

    def save_model(self, request: HttpRequest, obj: ApiToken, form: Any, change: bool) -> None:
        if change:
            super().save_model(request, obj, form, change)
            return
        # A new token is made by the service so that only its hash is stored;
        # the operator sees the token once, here.
        new = create_api_token(user=obj.user, name=obj.name, scope=obj.scope)
        obj.pk = new.token.pk
        obj.prefix, obj.token_hash, obj.created = new.token.prefix, new.token.token_hash, new.token.created
        self.message_user(
            request, f"The new token is {new.raw} — copy it now, it is not shown again.", messages.WARNING
        )

    @admin.action(description="Revoke the selected tokens", permissions=["change"])
    def revoke(self, request: HttpRequest, queryset: QuerySet[ApiToken]) -> None:
        for token in queryset:
            revoke_api_token(token=token)
        self.message_user(request, f"Revoked {queryset.count()} token(s).")
