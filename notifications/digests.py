"""The daily digest: one email a day for players who chose it, listing the
games waiting for them and how much happened since the last one (their turn
emails, round scores and reminders are gathered into it). It goes out at the
hour each player chose (``Preference.digest_hour``), in their own time zone
(``User.time_zone``); the sweep runs hourly."""

from __future__ import annotations

from datetime import datetime, tzinfo
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from games.models import Game

from .models import Kind, Notification, Preference
from .outbox import enqueue


def zone_of(name: str) -> tzinfo:
    """The time zone called ``name``, or UTC for none or an unknown one."""
    try:
        return ZoneInfo(name) if name else ZoneInfo("UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def is_due(preference: Preference, now: datetime) -> bool:
    """Whether the player's hour has come today, in their zone, and today's digest is not sent."""
    zone = zone_of(preference.user.time_zone)
    local = now.astimezone(zone)
    if local.hour < preference.digest_hour:
        return False
    return preference.last_digest is None or preference.last_digest.astimezone(zone).date() < local.date()


def _replies(user: Any, games: list[tuple[int, Any, int]]) -> dict[str, list[int]]:
    """For each waiting game, the game email a reply to the digest answers
    (the player's latest, digested or not) and the position now: each game
    in the digest gets its own reply address."""
    from .replies import REPLYABLE  # the kinds a reply is read for

    latest: dict[int, int] = {}
    for game_id, notification_id in (
        Notification.objects.filter(user=user, game_id__in=[pk for pk, _id, _v in games], kind__in=REPLYABLE)
        .order_by("pk")
        .values_list("game_id", "pk")
    ):
        latest[game_id] = notification_id
    return {str(public_id): [latest[pk], version] for pk, public_id, version in games if pk in latest}


def send_digests(now: datetime | None = None) -> int:
    """One email per digest reader whose hour has come and who has news or a game waiting; the number written."""
    now = now or timezone.now()
    sent = 0
    readers = Preference.objects.filter(frequency=Preference.Frequency.DAILY_DIGEST, user__is_bot=False).select_related(
        "user"
    )
    for preference in readers:
        if not is_due(preference, now):
            continue
        user = preference.user
        waiting_games = list(
            Game.objects.filter(status=Game.Status.ACTIVE, seats__user=user, seats__index=F("to_act_seat")).values_list(
                "pk", "public_id", "version"
            )
        )
        waiting = [public_id for _pk, public_id, _version in waiting_games]
        news = Notification.objects.filter(user=user, status=Notification.Status.DIGESTED)
        if preference.last_digest is not None:
            news = news.filter(created__gt=preference.last_digest)
        if not waiting and not news.exists():
            continue
        with transaction.atomic():
            claimed = Preference.objects.filter(pk=preference.pk, last_digest=preference.last_digest).update(
                last_digest=now
            )
            if not claimed:
                continue  # another sweep is sending this digest
            enqueue(
                kind=Kind.DIGEST,
                # One per claim: two digests on one date (a changed zone or hour) never share a key.
                key=Notification.key_for(Kind.DIGEST, subject=user.pk, detail=now.isoformat()),
                email=user.email,
                user=user,
                context={
                    "games": [str(g) for g in waiting],
                    "news": news.count(),
                    "replies": _replies(user, waiting_games),
                },
            )
        sent += 1
    return sent
