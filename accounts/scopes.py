"""What a token may do: the scopes of OAuth apps and personal API tokens alike.

A scope is granted to a token (a personal token's ``scope`` field, an OAuth
access token's ``scope``); a view says which scope each of its methods needs
(``required_scopes``), and ``ScopeRequired`` compares the two. A browser
session (the site's own pages and the Swagger UI) holds every scope: the
person is there themselves.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _
from oauth2_provider.scopes import BaseScopes
from rest_framework.exceptions import PermissionDenied
from rest_framework.permissions import BasePermission

GAMES_READ = "games:read"
GAMES_PLAY = "games:play"
WEBHOOKS_MANAGE = "webhooks:manage"

SCOPES = {
    GAMES_READ: _("See your games, their boards and their logs"),
    GAMES_PLAY: _("Create and join games and play your moves"),
    WEBHOOKS_MANAGE: _("Register and remove webhooks that receive your games' events"),
}
ALL_SCOPES = " ".join(SCOPES)

# A view's ``required_scopes`` value for what only the account holder may do
# (personal tokens): an OAuth app never manages its user's tokens.
ACCOUNT_HOLDER = "account"


def granted_scopes(auth: Any) -> set[str]:
    """The scopes of a request's credentials; a session (no token) has them all."""
    if auth is None:
        return set(SCOPES)
    return set(str(getattr(auth, "scope", "") or "").split())


def is_oauth_app(auth: Any) -> bool:
    """Whether an OAuth app's access token (not a personal token) authenticated the request."""
    return auth is not None and hasattr(auth, "application_id")


class ScopeRequired(BasePermission):
    """Refuses a request whose token lacks the scope the view asks for its method
    (``required_scopes = {"GET": GAMES_READ, "POST": GAMES_PLAY}``; "*" for any method)."""

    def has_permission(self, request: Any, view: Any) -> bool:
        wanted: dict[str, str] = getattr(view, "required_scopes", {})
        needed = wanted.get(request.method, wanted.get("*"))
        if request.method in ("HEAD", "OPTIONS") and needed is None:
            needed = wanted.get("GET")
        if needed is None:
            return True
        if needed == ACCOUNT_HOLDER:
            if is_oauth_app(request.auth):
                raise PermissionDenied(
                    "An OAuth app's token cannot manage API tokens; use a personal token or the site.",
                    code="insufficient_scope",
                )
            return True
        if needed not in granted_scopes(request.auth):
            raise PermissionDenied(f"This needs a token with the scope '{needed}'.", code="insufficient_scope")
        return True


class ScopesBackend(BaseScopes):  # type: ignore[misc]
    """django-oauth-toolkit's view of the scopes: the same list, described in the reader's language."""

    def get_all_scopes(self) -> dict[str, Any]:
        return dict(SCOPES)

    def get_available_scopes(
        self, application: Any = None, request: Any = None, *args: Any, **kwargs: Any
    ) -> list[str]:
        return list(SCOPES)

    def get_default_scopes(self, application: Any = None, request: Any = None, *args: Any, **kwargs: Any) -> list[str]:
        # An app that names no scope may read and play (webhooks must be asked for).
        return [GAMES_READ, GAMES_PLAY]
