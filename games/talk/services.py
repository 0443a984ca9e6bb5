"""The use cases of table talk: post, read, mute, hide.

Only the players of a game write and read its messages. The limits keep a
table pleasant and a mail loop impossible: a message is short plain text
(never turned into links or markup), and each player may post only a few a
minute and a bounded number a day in one game, counted in the database so
that every web and worker process agrees.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from accounts.models import User
from games import store
from games.errors import GameError
from games.models import Game
from games.signals import message_posted

from .models import MAX_LENGTH, Mute, TableMessage

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_BLANK_RUNS = re.compile(r"\n{3,}")


def tidy(text: str) -> str:
    """``text`` as it is stored: no control characters (line breaks stay), no
    trailing blanks, at most one empty line in a row."""
    lines = [line.rstrip() for line in _CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n")).split("\n")]
    return _BLANK_RUNS.sub("\n\n", "\n".join(lines)).strip()


def post_message(game_id: object, user: User, text: str, *, via: str, now: datetime | None = None) -> TableMessage:
    """Store what ``user``, a player of the game, wrote at its table."""
    now = now or timezone.now()
    body = tidy(text)
    if not body:
        raise GameError("message_empty", "A message needs some text.")
    if len(body) > MAX_LENGTH:
        raise GameError("message_too_long", f"A message has at most {MAX_LENGTH} characters.", max_length=MAX_LENGTH)
    with transaction.atomic():
        loaded = store.load(game_id, lock=True, fold=False)
        game = loaded.game
        seat = loaded.seat_of(user)
        if seat is None:
            raise GameError("not_a_player", "Only the players of a game write at its table.")
        if game.status == Game.Status.ABANDONED:
            raise GameError("game_abandoned", "This game was abandoned.")
        _check_rate(game, user, now)
        message = TableMessage.objects.create(game=game, seat=seat.index, author=user, text=body, via=via, created=now)
        message_posted.send(sender=TableMessage, message=message, loaded=loaded)
    return message


def _check_rate(game: Game, user: User, now: datetime) -> None:
    mine = TableMessage.objects.filter(game=game, author=user)
    per_minute: int = settings.TALK_MESSAGES_PER_MINUTE
    per_day: int = settings.TALK_MESSAGES_PER_DAY
    if mine.filter(created__gt=now - timedelta(minutes=1)).count() >= per_minute:
        raise GameError("too_many_messages", f"At most {per_minute} messages a minute, please.", retry_after=60)
    if mine.filter(created__gt=now - timedelta(days=1)).count() >= per_day:
        raise GameError("too_many_messages", f"At most {per_day} messages a day in one game.", retry_after=24 * 3600)


def visible_to(game: Game, reader: User, *, after: int = 0) -> QuerySet[TableMessage]:
    """The messages of ``game`` that ``reader`` sees: not hidden, not by
    someone they muted; after message id ``after``."""
    muted = Mute.objects.filter(user=reader).values("muted")
    return (
        TableMessage.objects.filter(game=game, hidden_at__isnull=True, pk__gt=after)
        .exclude(author__in=muted)
        .select_related("author")
    )


def written_since(
    game: Game, reader: User, since: datetime | None, until: datetime | None = None
) -> list[TableMessage]:
    """What the other players wrote after ``since`` (and up to ``until``) that
    ``reader`` sees: the messages a turn email carries ("Ivy wrote: …")
    instead of mail of their own."""
    messages = visible_to(game, reader).exclude(author=reader)
    if since is not None:
        messages = messages.filter(created__gt=since)
    if until is not None:
        messages = messages.filter(created__lte=until)
    return list(messages.order_by("created", "id")[:20])


def latest_id(game: Game) -> int:
    """The id of the last message written at ``game``'s table (0 if none)."""
    return TableMessage.objects.filter(game=game).order_by("-id").values_list("id", flat=True).first() or 0


def anyone_wrote(game: Game, *, to: User, until: datetime) -> bool:
    """Whether anyone but ``to`` has written at the table of ``game`` by ``until``."""
    return TableMessage.objects.filter(game=game, created__lte=until).exclude(author=to).exists()


def hide(message: TableMessage, operator: User, now: datetime | None = None) -> None:
    """An operator hides ``message`` from everyone; the record keeps it, and who hid it when."""
    if message.hidden_at is None:
        message.hidden_at = now or timezone.now()
        message.hidden_by = operator
        message.save(update_fields=["hidden_at", "hidden_by"])


def mute(user: User, other: User) -> None:
    if other.pk == user.pk:
        raise GameError("mute_self", "You cannot mute yourself.")
    Mute.objects.get_or_create(user=user, muted=other)


def unmute(user: User, other: User) -> None:
    Mute.objects.filter(user=user, muted=other).delete()


def muted_by(user: User) -> set[int]:
    """The ids of the people ``user`` has muted."""
    return set(Mute.objects.filter(user=user).values_list("muted_id", flat=True))
