"""Signing in by emailed link.

Opening a link (GET) changes nothing — mail scanners and link previews follow
links — it shows a page with one button; the button (POST) signs the player
in and redirects, which also takes the token out of the address bar. Pages
that carry a token send ``Referrer-Policy: no-referrer`` (the confirmation page, whose
button posts back, ``same-origin``).
"""

from __future__ import annotations

from typing import Any

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
from .middleware import speak_language_of
from .models import User
from .permissions import mark_signed_in_by_link
from .ratelimit import client_address, hit
from .services import request_sign_in_link
from .signals import address_confirmed

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


def _bad_link(request: HttpRequest, reason: Any, status: int = 400) -> HttpResponse:
    context = {"reason": reason, "form": EmailForm()}
    return _no_referrer(render(request, "accounts/bad_link.html", context, status=status))


@require_http_methods(["GET", "POST"])
def link_view(request: HttpRequest, purpose: str, token: str) -> HttpResponse:
    """An emailed link: GET shows one button and changes nothing (mail
    scanners and link previews open every link, and must neither sign anyone
    in nor use a sign-in link up); the button's POST signs in and redirects."""
    if purpose not in links.SIGN_IN_PURPOSES:
        return _bad_link(request, _("Unknown link."), status=404)
    try:
        data = links.read_token(purpose, token)
    except links.BadLink as error:
        return _bad_link(request, error.reason)
    user = User.objects.filter(pk=data.user_id).first() if data.user_id else None
    if user is None and purpose != links.INVITE:
        return _bad_link(request, links.NOT_VALID)
    if user is not None and (user.email.lower() != data.email or not user.is_active):
        return _bad_link(request, links.NOT_VALID)
    next_path = request.GET.get("next", "")
    target = links.target_of(data) or (next_path if _safe(request, next_path) else reverse("games:list"))
    if data.game and request.GET.get("show") == "review":
        # The game-over email's review link: the server's redirect carries the fragment,
        # since the button's POST (to this address, which has none) would lose the link's.
        target += "#review"
    current = request.user if request.user.is_authenticated else None
    if request.method == "GET":
        if current is None:  # the page speaks the language of the emails the link came in
            speak_language_of(request, user)
        same = current is not None and user is not None and current.pk == user.pk
        if same and purpose != links.LOGIN:
            return _no_referrer(HttpResponseRedirect(target))  # already signed in as the link's player
        context = {
            "purpose": purpose,
            "email": data.email,
            "current": current if not same else None,
            "action": request.get_full_path(),
        }
        page = render(request, "accounts/link_confirm.html", context)
        # Not no-referrer: with it, a browser sends "Origin: null" with the button's
        # POST, which CSRF protection refuses. The page loads nothing from other
        # origins (CSP), so the token in its address reaches no one else either way.
        page["Referrer-Policy"] = "same-origin"
        return page
    if user is None:
        # An invitation to an address without an account: made on the button's click.
        user, _created = User.objects.get_or_create(email=data.email)
    login(request, user, backend="django.contrib.auth.backends.ModelBackend")
    mark_signed_in_by_link(request, purpose)
    if purpose == links.LOGIN:  # a link just asked for reached them: their address works
        address_confirmed.send(sender=User, user=user)
    return _no_referrer(HttpResponseRedirect(target))


@require_POST
def logout_view(request: HttpRequest) -> HttpResponse:
    logout(request)
    return HttpResponseRedirect(reverse("accounts:login"))
