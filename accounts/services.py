"""Use cases for accounts: API tokens."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import timedelta
from functools import cache

from django.db import connections
from django.utils import timezone

from manhattan_site.sql import Columns, connection_for_read, joined_select

from .models import ApiToken, User, hash_token

TOKEN_PREFIX = "mbm_"
LAST_USED_RESOLUTION = timedelta(minutes=1)


@dataclass(frozen=True)
class NewToken:
    token: ApiToken
    raw: str
    """The token itself: shown to its owner once and never stored."""


def create_api_token(*, user: User, name: str) -> NewToken:
    raw = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        user=user, name=name.strip() or "token", prefix=raw[:12], token_hash=hash_token(raw)
    )
    return NewToken(token=token, raw=raw)


def revoke_api_token(*, token: ApiToken) -> None:
    if token.revoked is None:
        token.revoked = timezone.now()
        token.save(update_fields=["revoked"])


_TOKEN = Columns(ApiToken, "t")
_USER = Columns(User, "u")


@cache
def _active_token_sql(alias: str) -> str:
    """The active token with this hash, and its user, in one row: what
    ``ApiToken.objects.select_related("user").get(token_hash=…, revoked=None)``
    asks, written out once (see ``manhattan_site.sql`` for why)."""
    c = connections[alias]
    return (
        joined_select(c, _TOKEN, _USER, ("user", "pk"), outer=False)
        + f" WHERE {_TOKEN.column(c, 'token_hash')} = %s AND {_TOKEN.column(c, 'revoked')} IS NULL"
    )


def find_active_token(token_hash: str) -> ApiToken | None:
    """The unrevoked token with this hash, its user loaded; every API request
    with a token asks this, so it is one hand-written query."""
    connection = connection_for_read(ApiToken)
    with connection.cursor() as cursor:
        cursor.execute(_active_token_sql(connection.alias), [token_hash])
        row = cursor.fetchone()
    if row is None:
        return None
    token = _TOKEN.build(connection, row[: len(_TOKEN)])
    token.user = _USER.build(connection, row[len(_TOKEN) :])
    return token


def authenticate_token(raw: str) -> ApiToken | None:
    """The active token for ``raw``, its last-used time refreshed (at most once a minute)."""
    token = find_active_token(hash_token(raw))
    if token is None or not token.user.is_active:
        return None
    now = timezone.now()
    if token.last_used is None or now - token.last_used > LAST_USED_RESOLUTION:
        # A conditional UPDATE: no write on most requests, and no lost update.
        ApiToken.objects.filter(pk=token.pk).update(last_used=now)
        token.last_used = now
    return token
