"""Signed links that sign a player in: by purpose, with an expiry.

A link carries a token made with Django's signing, salted per purpose so a
token for one purpose (say, unsubscribing) can never be used for another
(signing in). Login links are single use: they embed the user's last login
time, which signing in changes. Game links stay valid for their lifetime so
that every "your turn" email keeps working.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core import signing
from django.urls import reverse
from django.utils.functional import Promise
from django.utils.http import urlencode
from django.utils.translation import gettext_lazy as _

from .models import User

LOGIN = "login"
GAME = "game"
INVITE = "invite"
PAGE = "page"  # a page of the site (the games list, the email preferences), for the digest and the footer
UNSUBSCRIBE = "unsubscribe"
NO_INVITATIONS = "noinvite"  # "do not invite me again", for an address without an account
REPLY = "reply"

MAX_AGE = {
    LOGIN: timedelta(hours=2),
    GAME: timedelta(days=30),
    INVITE: timedelta(days=30),
    PAGE: timedelta(days=30),
    UNSUBSCRIBE: timedelta(days=365),
    NO_INVITATIONS: timedelta(days=365),
    REPLY: timedelta(days=30),
}
# The links that sign someone in (accounts:link); the others act on their own page.
SIGN_IN_PURPOSES = (LOGIN, GAME, INVITE, PAGE)
# The pages a PAGE link may lead to: a name in the link, never a path, so a
# link can only ever open these.
PAGES = {"games": "games:list", "preferences": "notifications:preferences"}


class BadLink(Exception):
    """An expired, tampered or misused link; ``reason`` is safe to show (and
    translated when it is shown: it is a lazy translation)."""

    def __init__(self, reason: str | Promise) -> None:
        super().__init__(str(reason))
        self.reason = reason


@dataclass(frozen=True)
class LinkData:
    purpose: str
    email: str
    user_id: int | None
    game: str | None = None
    seat: int | None = None
    kind: str | None = None
    page: str | None = None


NOT_VALID = _("This link is not valid.")


def _salt(purpose: str) -> str:
    return f"manhattan.link.{purpose}"


def _login_stamp(user: User | None) -> str:
    return user.last_login.isoformat() if user is not None and user.last_login else ""


def make_token(
    purpose: str,
    *,
    email: str,
    user: User | None = None,
    game: str | None = None,
    seat: int | None = None,
    kind: str | None = None,
    page: str | None = None,
) -> str:
    payload: dict[str, Any] = {"e": email.lower()}
    if user is not None:
        payload["u"] = user.pk
    if game is not None:
        payload["g"] = str(game)
    if seat is not None:
        payload["s"] = seat
    if kind is not None:
        payload["k"] = kind
    if page is not None:
        payload["p"] = page
    if purpose == LOGIN:
        payload["l"] = _login_stamp(user)
    return signing.dumps(payload, salt=_salt(purpose), compress=True)


def read_token(purpose: str, token: str) -> LinkData:
    try:
        payload = signing.loads(token, salt=_salt(purpose), max_age=MAX_AGE[purpose])
    except signing.SignatureExpired as error:
        raise BadLink(_("This link has expired. Ask for a new one.")) from error
    except signing.BadSignature as error:
        raise BadLink(_("This link is not valid. It may have been copied incompletely.")) from error
    if not isinstance(payload, dict) or not isinstance(payload.get("e"), str):
        raise BadLink(NOT_VALID)
    data = LinkData(
        purpose=purpose,
        email=payload["e"],
        user_id=payload.get("u"),
        game=payload.get("g"),
        seat=payload.get("s"),
        kind=payload.get("k"),
        page=payload.get("p"),
    )
    if purpose == PAGE and data.page not in PAGES:
        raise BadLink(NOT_VALID)
    if purpose == LOGIN:
        user = User.objects.filter(pk=data.user_id).first() if data.user_id else None
        # A sign-in link always names its account: that is what makes it single use.
        if user is None or payload.get("l", "") != _login_stamp(user):
            raise BadLink(_("This sign-in link has already been used. Ask for a new one."))
    return data


def absolute(path: str) -> str:
    return f"{settings.SITE_URL}{path}"


def login_url(user: User, next_path: str = "") -> str:
    token = make_token(LOGIN, email=user.email, user=user)
    url = absolute(reverse("accounts:link", args=[LOGIN, token]))
    return f"{url}?{urlencode({'next': next_path})}" if next_path else url


def game_url(user: User, game: str) -> str:
    """A link that signs ``user`` in and lands on the game (for game emails)."""
    token = make_token(GAME, email=user.email, user=user, game=game)
    return absolute(reverse("accounts:link", args=[GAME, token]))


def invite_url(email: str, game: str, seat: int) -> str:
    token = make_token(INVITE, email=email, game=game, seat=seat)
    return absolute(reverse("accounts:link", args=[INVITE, token]))


def page_url(user: User, page: str) -> str:
    """A link that signs ``user`` in and lands on one of ``PAGES`` (digest, footer)."""
    token = make_token(PAGE, email=user.email, user=user, page=page)
    return absolute(reverse("accounts:link", args=[PAGE, token]))


def no_invitations_url(email: str) -> str:
    """One click: no more invitations to ``email`` (for someone without an account)."""
    token = make_token(NO_INVITATIONS, email=email)
    return absolute(reverse("notifications:no_invitations", args=[token]))


def target_of(data: LinkData) -> str:
    """Where a sign-in link leads once it is used."""
    if data.game:
        return reverse("games:detail", args=[data.game])
    if data.purpose == PAGE and data.page in PAGES:
        return reverse(PAGES[data.page])
    return ""


def unsubscribe_url(user: User, kind: str) -> str:
    token = make_token(UNSUBSCRIBE, email=user.email, user=user, kind=kind)
    return absolute(reverse("notifications:unsubscribe", args=[token]))
