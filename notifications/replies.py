"""Moves by email reply.

A "your turn" email's Reply-To carries a signed token naming the
notification (and so the game and seat): ``play+<id>x<signature>@<domain>``.
A reply whose first line is a move in the engine's notation plays it; a
refused move is answered by email with the reason and the legal options.
The token alone is not enough: the reply must also come from the seat's
player's address, so a leaked token cannot be used by someone else.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from email.message import Message
from email.utils import getaddresses, parseaddr

from django.db import IntegrityError, transaction

from games import engine, services
from games.errors import GameError

from . import outbox
from .models import Kind, Notification, Reply
from .reply_address import SUBJECT_TOKEN, TOKEN, is_signed

logger = logging.getLogger(__name__)
REPLYABLE = ("your_turn", "reminder", "game_started", "move_refused", "timeout")


@dataclass(frozen=True)
class ReplyOutcome:
    accepted: bool
    reason: str


def _token_in(message: Message) -> int | None:
    """The notification id of a correctly signed token in the recipients or subject."""
    headers = [message.get(h, "") for h in ("To", "Cc", "Delivered-To", "X-Original-To")]
    for _, address in getaddresses([h for h in headers if h]):
        match = TOKEN.search(address + "@") if "@" not in address else TOKEN.search(address)
        if match and is_signed(match.group(1), match.group(2)):
            return int(match.group(1))
    match = SUBJECT_TOKEN.search(message.get("Subject", ""))
    if match and is_signed(match.group(1), match.group(2)):
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
    message_id = (message.get("Message-ID") or "").strip()[:200]
    text = first_line(message)
    try:
        with transaction.atomic():
            if message_id:
                # The move and the record of its message are stored together: a
                # redelivered message finds the record and is not played again.
                Reply.objects.create(message_id=message_id, notification=notification, outcome="played")
            _play(notification, text)
    except IntegrityError:  # a redelivery of a message that was played
        return ReplyOutcome(True, "played before")
    except (engine.NotationError, engine.RuleError, GameError) as error:
        reason = getattr(error, "message", str(error))
        _refuse(notification, text, message_id, reason, error)
        return ReplyOutcome(False, reason)
    return ReplyOutcome(True, "played")


def _play(notification: Notification, text: str) -> None:
    assert notification.user is not None
    assert notification.game is not None
    game = notification.game
    game.refresh_from_db()
    services.submit_action(
        game_id=game.public_id, user=notification.user, action=engine.parse_action(text), expected_version=game.version
    )


def _refuse(notification: Notification, text: str, message_id: str, reason: str, error: Exception) -> None:
    """Answer a refused reply by email, with the reason and the position now."""
    assert notification.user is not None
    assert notification.game is not None
    user, game = notification.user, notification.game
    pointer = error.pointer() if isinstance(error, engine.NotationError) else ""
    with transaction.atomic():
        game.refresh_from_db()
        outbox.enqueue(
            kind=Kind.MOVE_REFUSED,
            key=Notification.key_for(
                Kind.MOVE_REFUSED, game_id=game.pk, seat=notification.seat, seq=game.version, detail=message_id or text
            ),
            email=user.email,
            user=user,
            game=game,
            seat=notification.seat,
            context={"seq": game.version, "move": text, "reason": reason, "pointer": pointer},
        )
