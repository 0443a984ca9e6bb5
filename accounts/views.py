"""Signing in by emailed link.

Opening a link never changes game state — mail scanners follow links — it
only signs the player in and redirects, which also takes the token out of
the address bar. Pages that carry a token send ``Referrer-Policy: no-referrer``.
"""

from __future__ import annotations

from django import forms
from django.contrib.auth import login, logout
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST

from . import links
from .models import User
from .ratelimit import client_address, hit
from .services import request_sign_in_link

LOGIN_LINKS_PER_HOUR = 5


class EmailForm(forms.Form):
    email = forms.EmailField(label=gettext_lazy("Your email address"))


def _no_referrer(response: HttpResponse) -> HttpResponse:
    response["Referrer-Policy"] = "no-referrer"
    return response


def _throttled(request: HttpRequest, email: str) -> int | None:
    """Seconds to wait, if this address or client asked for too many links."""
    rate = f"{LOGIN_LINKS_PER_HOUR}/hour"
    waits = [hit(f"login-link:email:{email}", rate), hit(f"login-link:client:{client_address(request)}", rate)]
    return max((w for w in waits if w is not None), default=None)


@require_http_methods(["GET", "POST"])
def login_view(request: HttpRequest) -> HttpResponse:
    form = EmailForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        email = form.cleaned_data["email"].lower()
        wait = _throttled(request, email)
        if wait is not None:
            context = {"form": form, "throttled": True, "next": request.POST.get("next", "")}
            response = render(request, "accounts/login.html", context, status=429)
            response["Retry-After"] = str(wait)
            return response
        next_path = request.POST.get("next", "")
        request_sign_in_link(email, next_path=next_path if _safe(request, next_path) else "")
        return render(request, "accounts/link_sent.html", {"email": email})
    next_path = request.POST.get("next", "") if request.method == "POST" else request.GET.get("next", "")
    return render(request, "accounts/login.html", {"form": form, "next": next_path})


def _safe(request: HttpRequest, path: str) -> bool:
    return bool(path) and url_has_allowed_host_and_scheme(path, allowed_hosts={request.get_host()})


@require_http_methods(["GET"])
def link_view(request: HttpRequest, purpose: str, token: str) -> HttpResponse:
    """Sign in from an emailed link and redirect to where it leads."""
    if purpose not in (links.LOGIN, links.GAME, links.INVITE):
        return _no_referrer(render(request, "accounts/bad_link.html", {"reason": _("Unknown link.")}, status=404))
    try:
        data = links.read_token(purpose, token)
    except links.BadLink as error:
        form = EmailForm()
        context = {"reason": error.reason, "form": form}
        return _no_referrer(render(request, "accounts/bad_link.html", context, status=400))
    user = User.objects.filter(pk=data.user_id).first() if data.user_id else None
    if user is None:
        if purpose == links.GAME:
            return _no_referrer(
                render(request, "accounts/bad_link.html", {"reason": _("This link is not valid.")}, status=400)
            )
        # Invitations and first sign-ins make the account on the first click.
        user, _created = User.objects.get_or_create(email=data.email)
    if user.email.lower() != data.email or not user.is_active:
        return _no_referrer(
            render(request, "accounts/bad_link.html", {"reason": _("This link is not valid.")}, status=400)
        )
    login(request, user, backend="django.contrib.auth.backends.ModelBackend")
    if data.game:
        target = reverse("games:detail", args=[data.game])
    else:
        next_path = request.GET.get("next", "")
        target = next_path if _safe(request, next_path) else reverse("games:list")
    return _no_referrer(HttpResponseRedirect(target))


@require_POST
def logout_view(request: HttpRequest) -> HttpResponse:
    logout(request)
    return HttpResponseRedirect(reverse("accounts:login"))
