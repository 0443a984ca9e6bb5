"""DRF authentication: personal API tokens (``Authorization: Bearer mbm_…``)
and OAuth apps' access tokens (``Authorization: Bearer <access token>``).

Both come in the same header; a personal token is known by its prefix, so
each request is looked up in one table only.
"""

from __future__ import annotations

from typing import Any

from oauth2_provider.contrib.rest_framework import OAuth2Authentication
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from .models import ApiToken
from .services import TOKEN_PREFIX, authenticate_token


def _bearer(request: Request) -> str | None:
    """The token of a ``Bearer``/``Token`` Authorization header, or None without one."""
    header = authentication.get_authorization_header(request).decode("latin-1", errors="replace").split()
    if not header or header[0].lower() not in ("bearer", "token"):
        return None
    if len(header) != 2:
        raise exceptions.AuthenticationFailed("Malformed Authorization header: use 'Bearer <token>'.")
    return header[1]


class ApiTokenAuthentication(authentication.BaseAuthentication):
    keyword = "Bearer"

    def authenticate(self, request: Request) -> tuple[Any, ApiToken] | None:
        raw = _bearer(request)
        if raw is None or not raw.startswith(TOKEN_PREFIX):
            return None  # none, or an OAuth access token (OAuthAppAuthentication)
        token = authenticate_token(raw)
        if token is None:
            raise exceptions.AuthenticationFailed("Unknown or revoked API token.")
        return token.user, token

    def authenticate_header(self, request: Request) -> str:
        return self.keyword


class OAuthAppAuthentication(OAuth2Authentication):  # type: ignore[misc]
    """An OAuth app's access token; one that is unknown, expired or revoked is
    refused here (django-oauth-toolkit's class would pass the request on as anonymous)."""

    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        raw = _bearer(request)
        if raw is None or raw.startswith(TOKEN_PREFIX):
            return None
        found = super().authenticate(request)
        if found is None:
            raise exceptions.AuthenticationFailed("Unknown, expired or revoked access token.")
        user, token = found
        if not user.is_active:
            raise exceptions.AuthenticationFailed("This account is disabled.")
        return user, token

    def authenticate_header(self, request: Request) -> str:
        return "Bearer"
