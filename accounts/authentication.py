"""DRF authentication by personal API token: ``Authorization: Bearer mbm_…``."""

from __future__ import annotations

from typing import Any

from rest_framework import authentication, exceptions
from rest_framework.request import Request

from .models import ApiToken
from .services import authenticate_token


class ApiTokenAuthentication(authentication.BaseAuthentication):
    keyword = "Bearer"

    def authenticate(self, request: Request) -> tuple[Any, ApiToken] | None:
        header = authentication.get_authorization_header(request).decode("latin-1", errors="replace").split()
        if not header or header[0].lower() not in ("bearer", "token"):
            return None
        if len(header) != 2:
            raise exceptions.AuthenticationFailed("Malformed Authorization header: use 'Bearer <token>'.")
        token = authenticate_token(header[1])
        if token is None:
            raise exceptions.AuthenticationFailed("Unknown or revoked API token.")
        return token.user, token

    def authenticate_header(self, request: Request) -> str:
        return self.keyword
