"""The reply address of a game email: ``play+<id>v<version>x<signature>@<domain>``.

The token names the notification (and so the game and seat) and the game's
version the email showed, and is signed, so a reply can be matched to the
email and the position it answers, and nobody can make one up. A reply to an
earlier position is not played on the board as it is now (``replies``).
Addresses of emails sent before versions were named (``play+<id>x<sig>``)
still work: they answer the position their email showed.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import dataclass
from typing import Any

from django.conf import settings

TOKEN = re.compile(r"\+(\d{1,18})(?:v(\d{1,9}))?x([0-9a-f]{20})@", re.IGNORECASE)
SUBJECT_TOKEN = re.compile(r"\[#(\d{1,18})(?:v(\d{1,9}))?x([0-9a-f]{20})\]", re.IGNORECASE)


@dataclass(frozen=True)
class ReplyToken:
    notification_id: int
    version: int | None  # None for an address made before versions were named


def _signature(notification_id: int | str, version: int | None = None) -> str:
    key = f"{settings.SECRET_KEY}:reply-to".encode()
    signed = str(notification_id) if version is None else f"{notification_id}v{version}"
    return hmac.new(key, signed.encode(), hashlib.sha256).hexdigest()[:20]


def version_of(notification: Any) -> int:
    """The game's version the email showed (its event), else the game's now."""
    seq = (notification.context or {}).get("seq")
    if isinstance(seq, int):
        return seq
    return int(notification.game.version) if notification.game is not None else 0


def reply_address(notification: Any) -> str:
    return address_for(notification.pk, version_of(notification))


def address_for(notification_id: int, version: int) -> str:
    """The reply address for game email ``notification_id`` answering the game at ``version``
    (the digest's address of each game: the game's latest email, at the position now)."""
    local, _, domain = settings.INBOUND_EMAIL_ADDRESS.partition("@")
    return f"{local}+{notification_id}v{version}x{_signature(notification_id, version)}@{domain}"


def read(match: re.Match[str]) -> ReplyToken | None:
    """The token of a ``TOKEN`` or ``SUBJECT_TOKEN`` match, if its signature is right."""
    notification_id, version, signature = match.group(1), match.group(2), match.group(3)
    number = int(version) if version is not None else None
    if hmac.compare_digest(signature.lower(), _signature(notification_id, number)):
        return ReplyToken(int(notification_id), number)
    return None
