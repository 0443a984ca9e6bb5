"""Moves by email reply.

A game email's Reply-To carries a signed token naming the notification (and
so the game and seat) and the game's version it showed
(``reply_address``). A reply is read in this order, and dropped or answered
at the first step it fails:

1. a valid token (else dropped: spam and guesses get no answer);
2. not an automatic reply (RFC 3834's headers, list mail, a bounce, an
   autoresponder's subject; or, with no move in it, an out-of-office text:
   dropped, never answered, so no loop and no table talk);
3. from the seat's player: their address in ``From``, authenticated as DMARC
   would (SPF or DKIM passes for a domain aligned with it: ``inbound.screening``)
   — a leaked token is useless;
4. the game is still on (reply addresses expire with their game; but a reply to
   an email that offers no move — round scored, game over — is table talk, at a
   finished game too, and a move in it is answered, never played: ``_talk_reply``);
5. the reply answers the position as it is now: a reply to an email about an
   earlier position is not played on a newer board; the player gets the
   position now and a fresh address instead. A reply from a player the
   timeout bot plays for gives the seat back first (the answer says so);
6. the move (``inbound.body``) is played through ``games.services``, or the
   refusal is answered by email with the reason and the legal options; the
   lines after the move, or a reply with no move at all, go to the game's
   table as a message (``games.talk``).

Every drop and refusal is logged and counted (``InboundRefusal``, in the
admin). Refusal emails to one player are capped (``REFUSALS_PER_HOUR``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta
from email.message import Message
from email.utils import getaddresses, parseaddr
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from games import engine, services
from games.errors import GameError, StaleVersion
from games.models import Game
from games.talk import services as talk

from . import outbox
from .inbound import mime, screening
from .inbound.body import mentions_the_notation, move_and_note
from .models import InboundRefusal, Kind, Notification, Reply, message_hash
from .reply_address import SUBJECT_TOKEN, TOKEN, ReplyToken, read

logger = logging.getLogger(__name__)
REPLYABLE = ("your_turn", "reminder", "game_started", "move_refused", "timeout", "round_scored", "game_over")
# Emails that never offer a move: a reply to one is table talk (at a finished game too,
# as the page's table stays open), and a move in it is answered, never played.
TALK_ONLY = ("round_scored", "game_over")
REFUSALS_PER_HOUR = 3


@dataclass(frozen=True)
class ReplyOutcome:
    accepted: bool
    reason: str


def _token_in(message: Message) -> ReplyToken | None:
    """The correctly signed token in the recipients or the subject."""
    headers = [str(message.get(h, "")) for h in ("To", "Cc", "Delivered-To", "X-Original-To")]
    for _, address in getaddresses([h for h in headers if h]):
        match = TOKEN.search(address if "@" in address else address + "@")
        token = read(match) if match else None
        if token is not None:
            return token
    match = SUBJECT_TOKEN.search(str(message.get("Subject", "")))
    return read(match) if match else None


@dataclass
class _Inbound:
    message: Message
    sender: str
    message_id: str
    message_hash: str  # of the whole Message-ID ("" without one): what a redelivery is recognised by
    notification: Notification | None = None

    def drop(self, reason: str, outcome: str, detail: str = "") -> ReplyOutcome:
        """Count and log a message that is not played, and say why."""
        InboundRefusal.objects.create(
            reason=reason,
            sender=self.sender[:254],
            message_id=self.message_id,
            notification=self.notification,
            detail=screening.clean(detail)[:500],
        )
        logger.info("inbound mail from %s dropped: %s %s", self.sender or "?", reason, detail)
        return ReplyOutcome(False, outcome)


def handle_inbound(message: Message, *, verdicts: screening.Verdicts | None = None) -> ReplyOutcome:
    """Play the move in a reply, or say (and count) why not. ``verdicts`` are
    the mail provider's SPF/DKIM results, when it gives them with the message."""
    whole_id = str(message.get("Message-ID") or "").strip()
    inbound = _Inbound(
        message=message,
        sender=screening.clean(parseaddr(str(message.get("From", "")))[1]).lower(),
        message_id=screening.clean(whole_id)[:200],
        message_hash=message_hash(whole_id) if whole_id else "",
    )
    token = _token_in(message)
    if token is None:
        return inbound.drop(InboundRefusal.Reason.NO_TOKEN, "no valid reply token")
    if mime.unreadable(message):
        return inbound.drop(InboundRefusal.Reason.UNREADABLE, "nested too deeply to read")
    notification = (
        Notification.objects.select_related("user", "game").filter(pk=token.notification_id, kind__in=REPLYABLE).first()
    )
    if notification is None or notification.user is None or notification.game is None:
        return inbound.drop(InboundRefusal.Reason.UNKNOWN_EMAIL, "the token names no game email")
    inbound.notification = notification
    header = screening.automatic(message)
    if header is not None:
        return inbound.drop(InboundRefusal.Reason.AUTO_REPLY, "an automatic reply", f"{header}")
    user, game = notification.user, notification.game
    if inbound.sender != user.email.lower():
        logger.warning("reply token %s used from %s, not its player's address", notification.pk, inbound.sender)
        return inbound.drop(InboundRefusal.Reason.WRONG_SENDER, "the reply does not come from the player's address")
    judged = verdicts if verdicts is not None and verdicts.known else screening.from_headers(message)
    if screening.forged(judged, user.email):
        return inbound.drop(
            InboundRefusal.Reason.FORGED_SENDER,
            "neither SPF nor DKIM passes for the player's domain",
            f"spf={judged.spf} dkim={judged.dkim}",
        )
    if inbound.message_hash and Reply.objects.filter(message_hash=inbound.message_hash).exists():
        return ReplyOutcome(True, "played before")  # a redelivery (the game has moved on since: by this move)
    game.refresh_from_db()
    talk_only = notification.kind in TALK_ONLY
    if game.status != Game.Status.ACTIVE and not (talk_only and game.status == Game.Status.FINISHED):
        return inbound.drop(InboundRefusal.Reason.GAME_OVER, "the game is over")
    if talk_only:
        return _talk_reply(inbound, notification, game)
    # Any reply of a player the timeout bot plays for gives the seat back (as "I'm back" on the page).
    returned = services.come_back(game_id=game.public_id, user=user)
    if returned:
        game.refresh_from_db()
    text, note = move_and_note(message)
    action = _read_move(text)
    if (action is None or isinstance(action, engine.NotationError)) and screening.away_notice(f"{text}\n{note}"):
        # An out-of-office notice without the headers that mark one: never answered, never table talk.
        return inbound.drop(InboundRefusal.Reason.AUTO_REPLY, "an automatic reply", "out-of-office text")
    if action is None:  # no move at all: what they wrote is for the table
        posted = _post_note(inbound, notification, "\n".join(part for part in (text, note) if part))
        below = _move_below(note)
        if below and (returned or not _capped(inbound, notification)):
            # A move under a greeting: not played (the move is the first line), but said, never lost in silence.
            _write_refusal(inbound, notification, {"move": below, "misplaced": True, "returned": returned})
        elif returned:
            _write_refusal(inbound, notification, {"move": "", "returned": True})  # the position, and how to move
        return posted
    version = token.version if token.version is not None else _version_shown(notification)
    if version != game.version:
        _post_note(inbound, notification, note)
        return _answer_stale(inbound, notification, text, returned=returned)
    try:
        with transaction.atomic():
            if isinstance(action, Exception):
                raise action
            # Keyed by the message: a redelivery racing this one (the other path) is played once.
            result = services.submit_action(
                game_id=game.public_id,
                user=user,
                action=action,
                expected_version=version,
                key=inbound.message_hash or None,
                asked=text,
            )
            if result.replayed:
                return ReplyOutcome(True, "played before")
            if inbound.message_hash:
                _record(inbound, notification, "played")  # with the move: read once, whatever the path
            _write_note(user, game, note)
    except IntegrityError:  # a redelivery of a message that was read (as a note) meanwhile
        return ReplyOutcome(True, "played before")
    except StaleVersion:  # another move was stored meanwhile
        _post_note(inbound, notification, note)
        return _answer_stale(inbound, notification, text)
    except (engine.NotationError, engine.RuleError, GameError) as error:
        reason = getattr(error, "message", str(error))
        _post_note(inbound, notification, note)
        _refuse(inbound, notification, text, reason, error)
        return ReplyOutcome(False, reason)
    _ask_again_if_still_to_act(notification)
    return ReplyOutcome(True, "played")


def _talk_reply(inbound: _Inbound, notification: Notification, game: Game) -> ReplyOutcome:
    """A reply to an email that offered no move: what is written goes to the table; a
    move in it is not played but answered (within the refusal cap), its note posted."""
    assert notification.user is not None
    returned = game.status == Game.Status.ACTIVE and services.come_back(game_id=game.public_id, user=notification.user)
    text, note = move_and_note(inbound.message)
    action = _read_move(text)
    if (action is None or isinstance(action, engine.NotationError)) and screening.away_notice(f"{text}\n{note}"):
        return inbound.drop(InboundRefusal.Reason.AUTO_REPLY, "an automatic reply", "out-of-office text")
    if action is None:
        posted = _post_note(inbound, notification, "\n".join(part for part in (text, note) if part))
        if returned:
            _write_refusal(inbound, notification, {"move": "", "returned": True})
        return posted
    _post_note(inbound, notification, note)
    logger.info("a move in a reply to %s email %s answered, not played", notification.kind, notification.pk)
    if returned or not _capped(inbound, notification):
        _write_refusal(inbound, notification, {"move": text, "no_move_offered": True, "returned": returned})
    return ReplyOutcome(False, "the email offered no move")


def _ask_again_if_still_to_act(notification: Notification) -> None:
    """A move by reply after which the same player acts again (two-player games: the
    second colour's selection) gets a "your turn" email of its own, with a fresh reply
    address: the email replied to is stale now, and no other email would come."""
    assert notification.game is not None
    assert notification.user is not None
    game = notification.game
    game.refresh_from_db()
    if game.status != Game.Status.ACTIVE or game.to_act_seat != notification.seat:
        return
    outbox.enqueue(
        kind=Kind.YOUR_TURN,
        key=Notification.key_for(Kind.YOUR_TURN, game_id=game.pk, seat=notification.seat, seq=game.version),
        email=notification.user.email,
        user=notification.user,
        game=game,
        seat=notification.seat,
        context={"seq": game.version},
    )


def _read_move(text: str) -> engine.Action | engine.NotationError | None:
    """The move in ``text``; the notation error to answer if it tries to be
    one; None if it is not a move at all (unreadable from its first word, with
    no digit and no word of the notation), so that it goes to the table as a
    message."""
    try:
        return engine.parse_action(text)
    except engine.NotationError as error:
        if text and error.position == 0 and not mentions_the_notation(text):
            return None
        return error


def _move_below(note: str) -> str:
    """The first line under the first that reads as a whole move ("" if none)."""
    for line in note.splitlines():
        try:
            engine.parse_action(line)
        except engine.NotationError:
            continue
        return line.strip()
    return ""


def _write_note(user: Any, game: Game, note: str) -> None:
    """Post ``note`` at the table in a savepoint: a note over the limits is
    dropped (and logged) without undoing the move it came with."""
    if not note:
        return
    try:
        with transaction.atomic():
            talk.post_message(game.public_id, user, note, via="email")
    except GameError as error:
        logger.info("note by email not posted in game %s: %s", game.pk, error.code)


def _post_note(inbound: _Inbound, notification: Notification, note: str) -> ReplyOutcome:
    """Post the player's note at the table, once per message (by Message-ID)."""
    assert notification.user is not None
    assert notification.game is not None
    if not note:
        return ReplyOutcome(False, "nothing to post")
    try:
        with transaction.atomic():
            if inbound.message_hash:
                _record(inbound, notification, "message")
            _write_note(notification.user, notification.game, note)
    except IntegrityError:
        return ReplyOutcome(True, "posted before")
    return ReplyOutcome(True, "message posted")


def _record(inbound: _Inbound, notification: Notification, outcome: str) -> None:
    Reply.objects.create(
        message_id=inbound.message_id, message_hash=inbound.message_hash, notification=notification, outcome=outcome
    )


def _version_shown(notification: Notification) -> int:
    seq = notification.context.get("seq")
    return seq if isinstance(seq, int) else -1


def _error_context(error: Exception) -> dict[str, Any]:
    """What the site needs to say the refusal in the player's language (games.presentation.refusals)."""
    extra = getattr(error, "extra", {}) or {}
    return {
        "code": getattr(error, "code", ""),
        "message_id": getattr(error, "message_id", None) or extra.get("message_id") or "",
        "rule": getattr(error, "rule", None) or extra.get("rule") or "",
        "params": dict(getattr(error, "params", None) or extra.get("params") or {}),
    }


def _capped(inbound: _Inbound, notification: Notification) -> bool:
    """Whether this player has had ``REFUSALS_PER_HOUR`` refusals in the last hour."""
    since = timezone.now() - timedelta(hours=1)
    recent = Notification.objects.filter(user=notification.user, kind=Kind.MOVE_REFUSED, created__gte=since)
    if recent.count() < REFUSALS_PER_HOUR:
        return False
    inbound.drop(InboundRefusal.Reason.CAPPED, "capped", f"{REFUSALS_PER_HOUR} refusals in the last hour")
    return True


def _answer_stale(inbound: _Inbound, notification: Notification, text: str, *, returned: bool = False) -> ReplyOutcome:
    inbound.drop(InboundRefusal.Reason.STALE, "stale", f"answered version {_version_shown(notification)}")
    if returned or not _capped(inbound, notification):
        # A reply to an email whose move a first reply played (sent twice, or again to be
        # sure): the answer says that one counted, rather than "not accepted".
        answered = Reply.objects.filter(notification=notification, outcome="played").exists()
        context = {"move": text, "stale": True, "returned": returned, "answered": answered}
        _write_refusal(inbound, notification, context)
    return ReplyOutcome(False, "the reply answers an earlier position")


def _refuse(inbound: _Inbound, notification: Notification, text: str, reason: str, error: Exception) -> None:
    """Answer a refused reply by email, with the reason and the position now."""
    if _capped(inbound, notification):
        return
    pointer = error.pointer() if isinstance(error, engine.NotationError) else ""
    context = {"move": text, "reason": reason, "pointer": screening.clean(pointer), "error": _error_context(error)}
    _write_refusal(inbound, notification, context)


def _write_refusal(inbound: _Inbound, notification: Notification, context: dict[str, Any]) -> None:
    assert notification.user is not None
    assert notification.game is not None
    user, game = notification.user, notification.game
    with transaction.atomic():
        game.refresh_from_db()
        outbox.enqueue(
            kind=Kind.MOVE_REFUSED,
            key=Notification.key_for(
                Kind.MOVE_REFUSED,
                game_id=game.pk,
                seat=notification.seat,
                seq=game.version,
                detail=inbound.message_hash[:32] or context["move"],
            ),
            email=user.email,
            user=user,
            game=game,
            seat=notification.seat,
            context={"seq": game.version, **context},
        )
