"""Use cases for accounts: API tokens, and asking for a sign-in link.

What it owns: making, finding, checking and revoking personal API tokens, making an
account when a new address asks for a sign-in link, and flagging bot accounts. Views,
the admin and the API's authentication call these rather than writing the rows.

Why it is safe:
- A token is 32 random bytes from ``secrets`` after the ``mbm_`` prefix; only its hash
  is stored (``accounts.models.hash_token``) and the token itself is returned once, in
  ``NewToken``, to be shown to its owner then.
- A token authenticates only while it is unrevoked and its user is active (a closed
  account is inactive); its last use is written at most once a minute, by a
  conditional UPDATE, so API requests do not write on every call nor lose an update.
- Asking for a sign-in link tells nobody whether the address had an account: the
  account is made if it is new, and the link goes to that address only (the emails
  app writes it on ``sign_in_link_requested``).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.utils import timezone

from .models import ApiToken, User, hash_token
from .scopes import ALL_SCOPES
from .signals import sign_in_link_requested

TOKEN_PREFIX = "mbm_"
LAST_USED_RESOLUTION = timedelta(minutes=1)


@dataclass(frozen=True)
class NewToken:
    token: ApiToken
    raw: str
    """The token itself: shown to its owner once and never stored."""


def create_api_token(*, user: User, name: str, scope: str = ALL_SCOPES) -> NewToken:
    raw = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        user=user, name=name.strip() or "token", prefix=raw[:12], token_hash=hash_token(raw), scope=scope
    )
    return NewToken(token=token, raw=raw)


def request_sign_in_link(email: str, *, next_path: str = "") -> User:
    """Make the account for ``email`` if it is new, and announce that a
    sign-in link was asked for (the emails app writes it). The account is
    made first so that the link carries its login stamp and works once."""
    user, _ = User.objects.get_or_create(email=email.lower())
    sign_in_link_requested.send(sender=User, user=user, next_path=next_path)
    return user


def revoke_api_token(*, token: ApiToken) -> None:
    if token.revoked is None:
        token.revoked = timezone.now()
        token.save(update_fields=["revoked"])


def find_active_token(token_hash: str) -> ApiToken | None:
    """The unrevoked token with this hash, its user loaded."""
    try:  # get(), not first(): the hash is unique, and first() would sort
        return ApiToken.objects.select_related("user").get(token_hash=token_hash, revoked=None)
    except ApiToken.DoesNotExist:
        return None


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


def make_bot_account(*, user: User) -> None:
    """Flag ``user`` as a bot account: API only, shown as a bot, never sent email."""
    if not user.is_bot:
        user.is_bot = True
        user.save(update_fields=["is_bot"])
