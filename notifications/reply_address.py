"""The reply address of a game email: ``play+<id>x<signature>@<domain>``.

The token names the notification (and so the game and seat) and is signed,
so a reply can be matched to the email it answers and nobody can make up one.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from typing import Any

from django.conf import settings

TOKEN = re.compile(r"\+(\d+)x([0-9a-f]{20})@", re.IGNORECASE)
SUBJECT_TOKEN = re.compile(r"\[#(\d+)x([0-9a-f]{20})\]", re.IGNORECASE)


def _signature(notification_id: int) -> str:
    key = f"{settings.SECRET_KEY}:reply-to".encode()
    return hmac.new(key, str(notification_id).encode(), hashlib.sha256).hexdigest()[:20]


def reply_token(notification: Any) -> str:
    return f"{notification.pk}x{_signature(notification.pk)}"


def reply_address(notification: Any) -> str:
    local, _, domain = settings.INBOUND_EMAIL_ADDRESS.partition("@")
    return f"{local}+{reply_token(notification)}@{domain}"


def is_signed(notification_id: str, signature: str) -> bool:
    return hmac.compare_digest(signature.lower(), _signature(int(notification_id)))
