"""Developers register their own OAuth apps at ``/accounts/developer/apps/``.

Three kinds cover what clients of this API are: a web app with a server (a
confidential client with a secret), an app that runs in the browser or on a
phone (a public client; PKCE stands in for the secret), both with the
authorization code grant, and a command-line client or bot (a public client
with the device grant). The secret is shown once, when the app is registered:
only its hash is stored. Registering mints credentials, so, like creating a
personal token, it needs a fresh sign-in. Operators still manage every app in
the admin.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST
from oauth2_provider.generators import generate_client_secret
from oauth2_provider.models import get_application_model
from oauth2_provider.settings import oauth2_settings

from .auth_helpers import request_user
from .models import User
from .permissions import is_weak_session

Application = get_application_model()
MAX_APPS = 10

KINDS: dict[str, tuple[str, str]] = {
    "server": (Application.CLIENT_CONFIDENTIAL, Application.GRANT_AUTHORIZATION_CODE),
    "browser": (Application.CLIENT_PUBLIC, Application.GRANT_AUTHORIZATION_CODE),
    "device": (Application.CLIENT_PUBLIC, Application.GRANT_DEVICE_CODE),
}
KIND_CHOICES = [
    ("server", gettext_lazy("A web app with its own server (it keeps a client secret)")),
    ("browser", gettext_lazy("An app in the browser or on a phone (no secret; PKCE)")),
    ("device", gettext_lazy("A command-line client or a bot (device code)")),
]


def kind_label(app: Any) -> str:
    """The app's kind as the form names it."""
    kind = next((k for k, pair in KINDS.items() if pair == (app.client_type, app.authorization_grant_type)), "")
    return str(dict(KIND_CHOICES).get(kind, app.authorization_grant_type))


class AppForm(forms.Form):
    name = forms.CharField(
        label=gettext_lazy("Name"),
        max_length=100,
        help_text=gettext_lazy("People see it when they authorize the app."),
    )
    kind = forms.ChoiceField(label=gettext_lazy("Kind of app"), choices=KIND_CHOICES, widget=forms.RadioSelect)
    redirect_uris = forms.CharField(
        label=gettext_lazy("Redirect URIs"),
        required=False,
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=gettext_lazy("Web and browser apps: where people come back after authorizing, one a line."),
    )

    def clean_redirect_uris(self) -> str:
        uris = self.cleaned_data["redirect_uris"].split()
        schemes: list[str] = list(oauth2_settings.ALLOWED_REDIRECT_URI_SCHEMES)
        for uri in uris:
            parts = urlsplit(uri)
            if parts.scheme not in schemes or not parts.hostname or parts.fragment:
                raise ValidationError(
                    _("%(uri)s is not a redirect URI: use %(schemes)s, a host, and no #fragment.")
                    % {"uri": uri, "schemes": ", ".join(f"{s}://" for s in schemes)}
                )
        return "\n".join(uris)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("kind") in ("server", "browser") and not data.get("redirect_uris"):
            self.add_error("redirect_uris", _("A web or browser app needs at least one redirect URI."))
        if data.get("kind") == "device":
            data["redirect_uris"] = ""  # the device grant sends nobody anywhere
        return data


def register_app(*, user: User, name: str, kind: str, redirect_uris: str) -> tuple[Any, str]:
    """A new app of ``user``'s, and its client secret in clear ("" for a public client)."""
    client_type, grant = KINDS[kind]
    secret = generate_client_secret() if client_type == Application.CLIENT_CONFIDENTIAL else ""
    app = Application(
        user=user,
        name=name,
        client_type=client_type,
        authorization_grant_type=grant,
        redirect_uris=redirect_uris,
        client_secret=secret,
        hash_client_secret=True,
    )
    app.full_clean()
    with transaction.atomic():
        User.objects.select_for_update().get(pk=user.pk)  # one registration at a time counts the apps
        if Application.objects.filter(user=user).count() >= MAX_APPS:
            raise ValidationError(_("You have %(count)s apps already; delete one first.") % {"count": MAX_APPS})
        app.save()
    return app, secret


def _fresh_sign_in(request: HttpRequest) -> HttpResponse | None:
    if is_weak_session(request):
        messages.info(request, _("To register an app, sign in with a new sign-in link first."))
        return redirect_to_login(request.get_full_path())
    return None


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def developer_apps_view(request: HttpRequest) -> HttpResponse:
    """My registered apps, and the form that registers one (the secret shown once)."""
    if refusal := _fresh_sign_in(request):
        return refusal
    user = request_user(request)
    form = AppForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            app, secret = register_app(
                user=user, name=data["name"], kind=data["kind"], redirect_uris=data["redirect_uris"]
            )
        except ValidationError as error:
            form.add_error(None, error.messages[0])
        else:
            return render(request, "accounts/developer_app_registered.html", {"app": app, "secret": secret})
    apps = [(app, kind_label(app)) for app in Application.objects.filter(user=user).order_by("created")]
    status = 400 if request.method == "POST" else 200
    return render(request, "accounts/developer_apps.html", {"apps": apps, "form": form}, status=status)


@login_required
@require_POST
def delete_app_view(request: HttpRequest, app_id: int) -> HttpResponse:
    """Delete one of my apps: its tokens go with it, so it stops working at once."""
    if refusal := _fresh_sign_in(request):
        return refusal
    deleted, _rows = Application.objects.filter(pk=app_id, user=request_user(request)).delete()
    if not deleted:
        raise Http404(_("There is no such app of yours."))
    messages.success(request, _("The app was deleted; its tokens no longer work."))
    return HttpResponseRedirect(reverse("accounts:developer_apps"))
