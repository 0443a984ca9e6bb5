"""OAuth 2.0 for third-party apps, on django-oauth-toolkit.

Web apps use the authorization code grant with PKCE (required by the
settings); command-line clients and bots use the device authorization grant
(RFC 8628): the client shows a code, the person enters it at ``/oauth/device/``
and approves. Approving, like creating a personal token, needs a fresh
sign-in: a session from a game or invitation email's link is sent to sign in
again (accounts/permissions.py says why). People see the apps they have
authorized at ``/accounts/apps/`` and revoke them there (operators: the admin).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.db import transaction
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.urls import path, reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods
from oauth2_provider import views as oauth_views
from oauth2_provider.models import (
    get_access_token_model,
    get_application_model,
    get_device_grant_model,
    get_grant_model,
    get_refresh_token_model,
)
from oauth2_provider.views.device import DeviceGrantForm

from .auth_helpers import request_user
from .permissions import is_weak_session
from .scopes import SCOPES


class FreshSignInMixin:
    """Approving an app mints tokens: a session from a long-lived emailed link
    signs in again first (the sign-in link brings the person back here)."""

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if request.user.is_authenticated and is_weak_session(request):
            messages.info(request, _("To authorize an app, sign in with a new sign-in link first."))
            return redirect_to_login(request.get_full_path())
        return super().dispatch(request, *args, **kwargs)  # type: ignore[misc,no-any-return]


class ScopeListMixin:
    """The consent pages list each scope by its description and its name."""

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context: dict[str, Any] = super().get_context_data(**kwargs)  # type: ignore[misc]
        context["scope_pairs"] = [(name, SCOPES.get(name, name)) for name in context.get("scopes") or []]
        return context


class AuthorizationView(FreshSignInMixin, ScopeListMixin, oauth_views.AuthorizationView):  # type: ignore[misc]
    """The consent page of the authorization code grant."""


class UserCodeForm(DeviceGrantForm):  # type: ignore[misc]
    """The code as typed: spaces around it and small letters are forgiven."""

    def clean_user_code(self) -> str:
        self.cleaned_data["user_code"] = self.cleaned_data["user_code"].strip().upper()
        return str(super().clean_user_code())


class DeviceUserCodeView(FreshSignInMixin, oauth_views.DeviceUserCodeView):  # type: ignore[misc]
    """Where a person enters the code a device shows."""

    form_class = UserCodeForm


class DeviceConfirmView(FreshSignInMixin, ScopeListMixin, oauth_views.DeviceConfirmView):  # type: ignore[misc]
    """The consent page of the device grant."""


class DeviceGrantStatusView(oauth_views.DeviceGrantStatusView):  # type: ignore[misc]
    """What became of the device: approved or denied."""


DEVICE_CODE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"


def _oauth_error(error: str, description: str) -> JsonResponse:
    return JsonResponse({"error": error, "error_description": description}, status=400)


class TokenView(oauth_views.TokenView):  # type: ignore[misc]
    """A code, of either grant, gives one token set, once.

    The toolkit checks a code, saves the tokens, then deletes an authorization
    code (and never retires a device code): two exchanges at once could both
    pass the check, and a device code minted a new token at every poll for its
    whole lifetime, even after the person revoked the app. Here the code's row
    is locked for the exchange, which is one transaction: a second exchange
    waits, then finds the code used; a device code is marked expired once
    exchanged (RFC 8628 ``expired_token``: start again)."""

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        grant_type = request.POST.get("grant_type")
        if grant_type == DEVICE_CODE_GRANT and not request.POST.get("device_code"):
            return _oauth_error("invalid_request", "The device_code is missing.")
        if grant_type not in ("authorization_code", DEVICE_CODE_GRANT):
            return super().post(request, *args, **kwargs)  # type: ignore[no-any-return]
        with transaction.atomic():
            device = None
            if grant_type == DEVICE_CODE_GRANT:
                devices = get_device_grant_model().objects.select_for_update()
                device = devices.filter(device_code=request.POST["device_code"]).first()
            else:
                get_grant_model().objects.select_for_update().filter(code=request.POST.get("code", "")).first()
            response: HttpResponse = super().post(request, *args, **kwargs)
            if response.status_code != 200:
                transaction.set_rollback(True)  # no token outlives a refused exchange
            elif device is not None:
                device.status = device.EXPIRED
                device.save(update_fields=["status"])
        return response


class DeviceAuthorizationView(oauth_views.DeviceAuthorizationView):  # type: ignore[misc]
    """A device asks only for scopes that exist: the consent page must never show
    a made-up one (``admin:all``) as if the person could grant it."""

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        unknown = [name for name in request.POST.get("scope", "").split() if name not in SCOPES]
        if unknown:
            return _oauth_error("invalid_scope", f"Unknown scope {unknown[0]!r}; the scopes are: {' '.join(SCOPES)}.")
        return super().post(request, *args, **kwargs)  # type: ignore[no-any-return]


# Mounted at /oauth/ under django-oauth-toolkit's namespace, which its views reverse.
urlpatterns = [
    path("authorize/", AuthorizationView.as_view(), name="authorize"),
    path("token/", TokenView.as_view(), name="token"),
    path("revoke_token/", oauth_views.RevokeTokenView.as_view(), name="revoke-token"),
    path("device-authorization/", DeviceAuthorizationView.as_view(), name="device-authorization"),
    path("device/", DeviceUserCodeView.as_view(), name="device"),
    path("device-confirm/<slug:client_id>/<slug:user_code>", DeviceConfirmView.as_view(), name="device-confirm"),
    path(
        "device-grant-status/<slug:client_id>/<slug:user_code>",
        DeviceGrantStatusView.as_view(),
        name="device-grant-status",
    ),
]


@dataclass
class AuthorizedApp:
    """An app holding tokens for the user: what it may do and since when."""

    id: int
    name: str
    since: Any
    scopes: dict[str, Any] = field(default_factory=dict)


def authorized_apps(user: Any) -> list[AuthorizedApp]:
    apps: dict[int, AuthorizedApp] = {}
    tokens = get_access_token_model().objects.filter(user=user, expires__gt=timezone.now(), application__isnull=False)
    for token in tokens.select_related("application").order_by("created"):
        app = apps.setdefault(
            token.application_id, AuthorizedApp(token.application_id, token.application.name, token.created)
        )
        app.scopes.update({name: SCOPES.get(name, name) for name in token.scope.split()})
    return list(apps.values())


def revoke_app(*, user: Any, application_id: int) -> None:
    """Every token and pending code the app holds for ``user`` stops working now."""
    with transaction.atomic():
        for refresh in get_refresh_token_model().objects.filter(
            user=user, application_id=application_id, revoked__isnull=True
        ):
            refresh.revoke()
        get_access_token_model().objects.filter(user=user, application_id=application_id).delete()
        get_grant_model().objects.filter(user=user, application_id=application_id).delete()
        # A device code approved but not yet exchanged must not be exchanged now.
        client_id = get_application_model().objects.filter(pk=application_id).values_list("client_id", flat=True)
        devices = get_device_grant_model().objects.filter(user=user, client_id__in=list(client_id))
        devices.update(status=get_device_grant_model().DENIED)


@login_required
@require_http_methods(["GET", "POST"])
def authorized_apps_view(request: HttpRequest) -> HttpResponse:
    """The apps I have authorized, each with a button that revokes it."""
    user = request_user(request)
    if request.method == "POST":
        app_id = request.POST.get("application", "")
        if app_id.isdigit():
            revoke_app(user=user, application_id=int(app_id))
            messages.success(request, _("The app's access was revoked."))
        return HttpResponseRedirect(reverse("accounts:apps"))
    return render(request, "accounts/authorized_apps.html", {"apps": authorized_apps(user)})
