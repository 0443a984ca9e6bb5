"""The page that closes an account (linked from the preferences page)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from .auth_helpers import request_user
from .closing import close_account
from .permissions import is_weak_session


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def close_account_view(request: HttpRequest) -> HttpResponse:
    """GET explains what closing does and asks to confirm; the button's POST
    closes the account and signs out. Like making a token, it needs a fresh
    sign-in: a session from a game, invitation or page link is sent to sign in."""
    if is_weak_session(request):
        messages.info(request, _("To close your account, sign in with a new sign-in link first."))
        return redirect_to_login(request.get_full_path())
    if request.method == "POST":
        if request.POST.get("confirm") != "yes":
            return render(request, "accounts/close.html", {"unconfirmed": True}, status=400)
        close_account(user=request_user(request))
        logout(request)
        return render(request, "accounts/closed.html")
    return render(request, "accounts/close.html", {})
