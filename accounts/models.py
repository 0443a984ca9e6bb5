"""Who people are: the user (email login, name, language, time zone, bot flag) and
their personal API tokens. Every other app points here; this module imports none of them.

What it owns: ``User`` (the email address is the login and is unique, stored in lower
case by ``UserManager``; a password is optional, since players sign in by emailed link),
``ApiToken`` and ``hash_token``.

Why it is safe:
- A token is never stored: only its SHA-256 hash (unique), and its first characters to
  recognise it; the token itself is shown once, at creation (``accounts.services``). A
  fast hash is enough because tokens are long random strings, not chosen passwords.
- A revoked token stays as a row (``revoked`` set) and is refused like an unknown one
  (``accounts.authentication``); a token carries its scopes, as an OAuth token does.
- What other players see is ``public_name``: the display name or the address's local
  part, never the whole address, "BOT …" for a bot account, and "former player N" once
  the account is closed (``accounts.closing`` then removes the address, the tokens and
  the way to sign in, in one transaction).
"""

from __future__ import annotations

import hashlib
from typing import Any, ClassVar

from django.conf import settings
from django.contrib.auth.base_user import BaseUserManager
from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext

from .scopes import ALL_SCOPES


class UserManager(BaseUserManager["User"]):
    use_in_migrations = True

    def _create_user(self, email: str, password: str | None, **extra: Any) -> User:
        if not email:
            raise ValueError("an email address is required")
        user = self.model(email=self.normalize_email(email).lower(), **extra)
        if password:
            user.set_password(password)
        else:
            user.set_unusable_password()
        user.save(using=self._db)
        return user

    def create_user(self, email: str, password: str | None = None, **extra: Any) -> User:
        extra.setdefault("is_staff", False)
        extra.setdefault("is_superuser", False)
        return self._create_user(email, password, **extra)

    def create_superuser(self, email: str, password: str | None = None, **extra: Any) -> User:
        extra.setdefault("is_staff", True)
        extra.setdefault("is_superuser", True)
        return self._create_user(email, password, **extra)


class User(AbstractUser):
    """A player or operator. The email address is the login; a password is
    optional (players sign in by emailed link, staff may have passwords)."""

    username = None  # type: ignore[assignment]
    email = models.EmailField("email address", unique=True)
    display_name = models.CharField(max_length=60, blank=True)
    # The language of the site and of every email; blank until chosen, when
    # the browser's (pages) or the site's default (emails) is used.
    language = models.CharField(max_length=8, choices=settings.LANGUAGES, blank=True)
    # An IANA time zone name (e.g. "Europe/Berlin"); blank: the site's (UTC). The
    # daily digest goes out at the chosen hour of this zone.
    time_zone = models.CharField(max_length=64, blank=True)
    # A bot account plays only through the API, is shown as a bot, and is never
    # sent email (set by an operator, or by the account itself: POST /api/v1/me/bot).
    is_bot = models.BooleanField(
        "bot account", default=False, help_text="Plays only through the API; never sent email."
    )

    # When the person closed their account: from then on it is "former player N",
    # with no address, no way to sign in and no email (accounts/closing.py).
    closed = models.DateTimeField(null=True, blank=True, help_text="When the person closed this account.")

    USERNAME_FIELD = "email"
    REQUIRED_FIELDS: ClassVar[list[str]] = []

    objects: ClassVar[UserManager] = UserManager()  # type: ignore[assignment]

    def __str__(self) -> str:
        return self.email

    @property
    def public_name(self) -> str:
        """What other players see: the display name or the email's local part,
        after "BOT" for a bot account (as lichess marks its bots, in every language)."""
        if self.closed is not None:
            return gettext("former player %(number)s") % {"number": self.pk}
        name = self.display_name or self.email.split("@", 1)[0]
        return f"BOT {name}" if self.is_bot else name


def hash_token(raw: str) -> str:
    """Tokens are stored as SHA-256 hashes: they are long random strings, so a
    slow password hash would only slow every API request down."""
    return hashlib.sha256(raw.encode()).hexdigest()


class ApiToken(models.Model):
    """A named personal API token. Only its hash is kept; the token itself is
    shown once, when it is created."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=80)
    prefix = models.CharField(max_length=12, help_text="The token's first characters, to recognise it.")
    token_hash = models.CharField(max_length=64, unique=True, editable=False)
    created = models.DateTimeField(default=timezone.now)
    last_used = models.DateTimeField(null=True, blank=True)
    revoked = models.DateTimeField(null=True, blank=True)
    # Space-separated, as an OAuth access token's (accounts/scopes.py).
    scope = models.CharField(max_length=200, default=ALL_SCOPES, help_text="What the token may do.")

    class Meta:
        ordering: ClassVar[list[str]] = ["-created"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_active(self) -> bool:
        return self.revoked is None
