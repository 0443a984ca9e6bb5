"""How much a session may do, by how it was signed in.

An emailed game, invitation or page link is a weak credential: emails are
forwarded, kept for weeks and read by scanners. A session that came from one
may play, read games and change mail preferences, but not make API tokens or
change the account: those need a fresh sign-in (a sign-in link just asked
for, or a password). The admin needs a password sign-in whoever the user is:
an emailed link alone, even a sign-in link, never reaches it. A request
authenticated by an API token cannot make tokens either, so a leaked token
cannot mint others that outlive its revocation.

The link view records the link's purpose in the session after signing in
(``mark_signed_in_by_link``); every other sign-in (a password, the admin's
login form) clears it through ``user_logged_in``.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver
from django.http import HttpRequest
from rest_framework.permissions import BasePermission

from . import links

SESSION_KEY = "accounts.signed_in_by_link"
# Links that stay valid for weeks and may have been forwarded: their sessions are limited.
WEAK_LINKS = (links.GAME, links.INVITE, links.PAGE)


@receiver(user_logged_in, dispatch_uid="accounts.permissions.forget_link")
def forget_link(sender: Any, request: HttpRequest | None, **kwargs: Any) -> None:
    """Any new sign-in starts without the mark of a link (the link view sets it again)."""
    session = getattr(request, "session", None)
    if session is not None:
        session.pop(SESSION_KEY, None)


def mark_signed_in_by_link(request: HttpRequest, purpose: str) -> None:
    request.session[SESSION_KEY] = purpose


def signed_in_by(request: Any) -> str:
    """The purpose of the link this session was signed in with, or "" (a password)."""
    session = getattr(request, "session", None)
    return str(session.get(SESSION_KEY, "")) if session is not None else ""


def is_weak_session(request: Any) -> bool:
    """Whether this session came from a long-lived emailed link."""
    return signed_in_by(request) in WEAK_LINKS


class MayCreateTokens(BasePermission):
    """Making an API token needs a fresh sign-in in a browser: not a token,
    not a session from a game, invitation or page link."""

    message = (
        "Creating an API token needs a fresh sign-in: ask for a sign-in link on the site"
        " (a session from a game email's link, or an API token, cannot create tokens)."
    )

    def has_permission(self, request: Any, view: Any) -> bool:
        if request.method != "POST":
            return True
        if request.auth is not None:  # an API token (or any other token) authenticated this request
            return False
        return not is_weak_session(request)


class AdminSite(admin.AdminSite):
    """The admin, for staff signed in with a password only."""

    def has_permission(self, request: HttpRequest) -> bool:
        return super().has_permission(request) and signed_in_by(request) == ""


class FreshSignInToClose(BasePermission):
    """Closing the account (``DELETE /api/v1/me``) needs a fresh sign-in in a
    browser, as making a token does: not a token, not a session from a game,
    invitation or page link."""

    code = "fresh_sign_in_required"
    message = (
        "Closing your account needs a fresh sign-in: ask for a sign-in link on the site and close it"
        " from your preferences (an API token, or a session from a game email's link, cannot close it)."
    )

    def has_permission(self, request: Any, view: Any) -> bool:
        if request.method != "DELETE":
            return True
        return request.auth is None and not is_weak_session(request)
