"""The daily digest: one email a day for players who chose it, listing the
games waiting for them and how much happened since the last one."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from games.models import Game

from .models import Kind, Notification, Preference
from .outbox import enqueue


def send_digests(now: datetime | None = None) -> int:
    """One email per digest reader who has news or a game waiting; the number written."""
    now = now or timezone.now()
    since = now - timedelta(hours=23)
    sent = 0
    readers = Preference.objects.filter(frequency=Preference.Frequency.DAILY_DIGEST).exclude(last_digest__gt=since)
    for preference in readers.select_related("user"):
        user = preference.user
        waiting = list(
            Game.objects.filter(status=Game.Status.ACTIVE, seats__user=user, seats__index=F("to_act_seat")).values_list(
                "public_id", flat=True
            )
        )
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
                key=Notification.key_for(Kind.DIGEST, subject=user.pk, detail=f"{now:%Y-%m-%d}"),
                email=user.email,
                user=user,
                context={"games": [str(g) for g in waiting], "news": news.count()},
            )
        sent += 1
    return sent
