"""Message-IDs, and the one conversation each game is in.

A Message-ID is ``<digest@domain>`` on the site's own domain (``MAIL_DOMAIN``,
by default the host of ``SITE_URL``). The digest is an HMAC, keyed by the
installation (``MAIL_INSTALLATION_ID``, by default derived from
``SECRET_KEY``), of the email's outbox key and the moment its row was written:
a retry of one email has the same id, while a second installation (a staging
copy, a restored database) makes different ids for its own emails, so mail
services never drop one as a duplicate of another.

Every email about a game answers the game's root id (``In-Reply-To`` and
``References``), an id no email carries itself, so mail clients show a game's
emails as one conversation.
"""

from __future__ import annotations

from datetime import datetime
from urllib.parse import urlsplit

from django.conf import settings
from django.utils.crypto import salted_hmac


def domain() -> str:
    """The right-hand side of the site's Message-IDs."""
    configured = getattr(settings, "MAIL_DOMAIN", "")
    return configured or urlsplit(settings.SITE_URL).hostname or "localhost"


def _digest(purpose: str, value: str, length: int = 32) -> str:
    installation = getattr(settings, "MAIL_INSTALLATION_ID", "")
    return salted_hmac(f"notifications.mail_ids.{purpose}", f"{installation}\n{value}", algorithm="sha256").hexdigest()[
        :length
    ]


def message_id(key: str, created: datetime) -> str:
    """The Message-ID of the email with outbox ``key``, written at ``created``."""
    return f"<{_digest('message', f'{key}@{created.isoformat()}')}@{domain()}>"


def game_thread(game_public_id: str) -> str:
    """The root Message-ID of a game's conversation (never sent: every game email refers to it)."""
    return f"<game.{_digest('game', game_public_id, 24)}@{domain()}>"
