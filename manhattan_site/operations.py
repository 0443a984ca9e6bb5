"""The admin's operations page (``/admin/operations/``): is the machine working?

Workers and beat with when each was last seen, the Celery queues' lengths, the oldest
pending email and webhook, webhook endpoints switched off, and active games whose turn
clock is missing or overdue. For staff; in English, as the operator's docs are.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils import timezone

from manhattan_site import health, heartbeats

QUEUES = ("celery", "bots")


def queue_lengths() -> dict[str, int | None]:
    """Tasks waiting in each Celery queue (Redis lists), or None without Redis."""
    if not settings.REDIS_URL:
        return dict.fromkeys(QUEUES)
    import redis

    try:
        client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=2)
        return {queue: int(client.llen(queue)) for queue in QUEUES}
    except redis.RedisError:
        return dict.fromkeys(QUEUES)


def games_without_a_running_clock() -> dict[str, list[Any]]:
    """Active games with a person to act but no turn clock, and clocks past their timeout."""
    from games.models import Game
    from notifications.models import TurnClock

    overdue_after = timezone.now() - timedelta(seconds=settings.OUTBOX_STALE_SECONDS)
    clocked = TurnClock.objects.filter(seat__isnull=False).values("game_id")
    missing = Game.objects.filter(status=Game.Status.ACTIVE, to_act_seat__isnull=False).exclude(pk__in=clocked)
    overdue = TurnClock.objects.filter(timeout_at__lt=overdue_after).select_related("game")
    return {"missing": list(missing.order_by("turn_since")[:50]), "overdue": list(overdue.order_by("timeout_at")[:50])}


def operations_view(request: HttpRequest) -> HttpResponse:
    from webhooks.models import Endpoint

    now = timezone.now()
    stale = timedelta(seconds=settings.HEARTBEAT_STALE_SECONDS)
    seen = sorted(heartbeats.last_seen().items(), key=lambda item: (item[1]["kind"], item[0]))
    processes = [
        {"name": name, "age": (now - beat["at"]).total_seconds(), "late": now - beat["at"] > stale, **beat}
        for name, beat in seen
    ]
    switched_off = Endpoint.objects.filter(enabled=False).select_related("owner")  # the owner is named
    context = {
        **admin.site.each_context(request),
        "title": "Operations",
        "processes": processes,
        "queues": queue_lengths(),
        "oldest": health.oldest_pending_age_seconds(),
        "disabled_endpoints": switched_off.order_by("-disabled_at")[:50],
        "clocks": games_without_a_running_clock(),
        "stale_seconds": settings.HEARTBEAT_STALE_SECONDS,
        "reviews_without_bots_worker": settings.GAME_REVIEW != "off" and not heartbeats.serving("bots"),
    }
    return TemplateResponse(request, "admin/operations.html", context)
