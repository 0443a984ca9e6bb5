"""Moves by email reply.

A "your turn" email's Reply-To carries a signed token naming the
notification (and so the game and seat): ``play+<id>x<signature>@<domain>``.
A reply whose first line is a move in the engine's notation plays it; a
refused move is answered by email with the reason and the legal options.
The token alone is not enough: the reply must also come from the seat's
player's address, so a leaked token cannot be used by someone else.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import re
from dataclasses import dataclass
from email.message import Message
from email.utils import getaddresses, parseaddr
from typing import Any

from django.conf import settings

logger = logging.getLogger(__name__)
TOKEN = re.compile(r"\+(\d+)x([0-9a-f]{20})@", re.IGNORECASE)
SUBJECT_TOKEN = re.compile(r"\[#(\d+)x([0-9a-f]{20})\]", re.IGNORECASE)
REPLYABLE = ("your_turn", "reminder", "game_started", "move_refused", "timeout")


def _signature(notification_id: int) -> str:
    key = f"{settings.SECRET_KEY}:reply-to".encode()
    return hmac.new(key, str(notification_id).encode(), hashlib.sha256).hexdigest()[:20]


def reply_token(notification: Any) -> str:
    return f"{notification.pk}x{_signature(notification.pk)}"


def reply_address(notification: Any) -> str:
    local, _, domain = settings.INBOUND_EMAIL_ADDRESS.partition("@")
    return f"{local}+{reply_token(notification)}@{domain}"


@dataclass(frozen=True)
class ReplyOutcome:
    accepted: bool
    reason: str


def _token_in(message: Message) -> int | None:
    """The notification id of a correctly signed token in the recipients or subject."""
    headers = [message.get(h, "") for h in ("To", "Cc", "Delivered-To", "X-Original-To")]
    for _, address in getaddresses([h for h in headers if h]):
        match = TOKEN.search(address + "@") if "@" not in address else TOKEN.search(address)
        if match and hmac.compare_digest(match.group(2).lower(), _signature(int(match.group(1)))):
            return int(match.group(1))
    match = SUBJECT_TOKEN.search(message.get("Subject", ""))
    if match and hmac.compare_digest(match.group(2).lower(), _signature(int(match.group(1)))):
        return int(match.group(1))
    return None


def first_line(message: Message) -> str:
    """The first line of the reply that is not blank and not quoted."""
    text = _text_part(message)
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith(">"):
            continue
        return stripped[:500]
    return ""


def _text_part(message: Message) -> str:
    if message.is_multipart():
        for part in message.walk():
            if part.get_content_type() == "text/plain" and not part.get_filename():
                return _decode(part)
        for part in message.walk():
            if part.get_content_type() == "text/html":
                return re.sub(r"<[^>]+>", "\n", _decode(part))
        return ""
    return _decode(message)


def _decode(part: Message) -> str:
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return str(part.get_payload() or "")
    try:
        return payload.decode(part.get_content_charset() or "utf-8", errors="replace")
    except LookupError:  # a charset Python does not know, e.g. "unknown-8bit"
        return payload.decode("utf-8", errors="replace")


def handle_inbound(message: Message) -> ReplyOutcome:
    """Play the move in a reply, or answer why it was refused."""
    from django.db import transaction

    from games import engine, services
    from games.errors import GameError

    from .models import Kind, Notification
    from .services import enqueue

    notification_id = _token_in(message)
    if notification_id is None:
        logger.info("inbound mail without a valid reply token ignored")
        return ReplyOutcome(False, "no valid reply token")
    notification = (
        Notification.objects.select_related("user", "game").filter(pk=notification_id, kind__in=REPLYABLE).first()
    )
    if notification is None or notification.user is None or notification.game is None:
        return ReplyOutcome(False, "the token names no game email")
    sender = parseaddr(message.get("From", ""))[1].lower()
    if sender != notification.user.email.lower():
        logger.warning("reply token %s used from %s, not its player's address", notification_id, sender)
        return ReplyOutcome(False, "the reply does not come from the player's address")
    user, game = notification.user, notification.game
    text = first_line(message)
    message_id = (message.get("Message-ID") or "").strip()[:200]
    try:
        action = engine.parse_action(text)
        game.refresh_from_db()
        services.submit_action(
            game_id=game.public_id,
            user=user,
            action=action,
            expected_version=game.version,
            respond=lambda result: (200, {"version": result.game.version}),
            idempotency_key=f"email:{message_id}" if message_id else None,
            # The fingerprint column holds 64 characters: store a hash, as the API does.
            fingerprint=hashlib.sha256(text.encode()).hexdigest(),
        )
    except (engine.NotationError, engine.RuleError, GameError) as error:
        reason = getattr(error, "message", str(error))
        pointer = error.pointer() if isinstance(error, engine.NotationError) else ""
        with transaction.atomic():
            game.refresh_from_db()
            enqueue(
                kind=Kind.MOVE_REFUSED,
                key=f"{game.pk}:{notification.seat}:{game.version}:{Kind.MOVE_REFUSED}:{message_id or text}"[:200],
                email=user.email,
                user=user,
                game=game,
                seat=notification.seat,
                context={"seq": game.version, "move": text, "reason": reason, "pointer": pointer},
            )
        return ReplyOutcome(False, reason)
    return ReplyOutcome(True, "played")
