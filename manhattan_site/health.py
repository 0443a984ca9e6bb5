"""Is the service alive, and can it serve? For load balancers, compose and operators.

``/healthz`` answers as soon as the process does: restart it when this fails.
``/readyz`` checks what a web process needs to serve (the database, Redis when
configured, every migration applied) and answers 503 when one of those fails: take
it out of rotation. It also reports, without failing on them, what the web tier
does not need to answer but the operator needs to know: the Celery workers' and
beat's last heartbeat, and the age of the oldest pending email and webhook. A dead
worker must not take the site off the load balancer; it shows here, in the admin
(``/admin/operations/``) and in the metrics.

``warnings`` names what works worse than configured while the site still serves: today
``reviews_without_bots_worker``, post-game reviews on (``GAME_REVIEW``) but no worker of
the bots queue alive, so reviews wait and game-over emails go without the review's link.
"""

from __future__ import annotations

import logging
import time
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import DatabaseError, connection
from django.db.migrations.executor import MigrationExecutor
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from manhattan_site import heartbeats

logger = logging.getLogger("manhattan.health")

_migrations_applied = False  # once they are, they stay applied for this process's code


@require_safe
@never_cache
def healthz(request: HttpRequest) -> HttpResponse:
    return JsonResponse({"status": "ok"})


def check_database() -> dict[str, Any]:
    started = time.monotonic()
    try:
        connection.ensure_connection()
        with connection.cursor():
            pass
    except DatabaseError as error:
        logger.error("database unreachable: %s: %s", type(error).__name__, error)
        return {"ok": False, "error": f"{type(error).__name__}: {error}".strip()}
    return {"ok": True, "ms": round((time.monotonic() - started) * 1000, 1)}


def check_redis() -> dict[str, Any] | None:
    if not settings.REDIS_URL:
        return None
    import redis

    try:
        redis.Redis.from_url(settings.REDIS_URL, socket_timeout=2, socket_connect_timeout=2).ping()
    except redis.RedisError as error:
        logger.error("redis unreachable: %s: %s", type(error).__name__, error)
        return {"ok": False, "error": f"{type(error).__name__}: {error}"}
    return {"ok": True}


def check_migrations() -> dict[str, Any]:
    global _migrations_applied
    if not _migrations_applied:
        try:
            executor = MigrationExecutor(connection)
            unapplied = executor.migration_plan(executor.loader.graph.leaf_nodes())
        except DatabaseError as error:
            return {"ok": False, "error": f"{type(error).__name__}: {error}"}
        if unapplied:
            return {"ok": False, "unapplied": [f"{m.app_label}.{m.name}" for m, _ in unapplied]}
        _migrations_applied = True
    return {"ok": True}


def oldest_pending_age_seconds() -> dict[str, float | None]:
    """The age of the oldest email and webhook delivery still waiting to go out."""
    from notifications.models import Notification
    from webhooks.models import Delivery

    now = timezone.now()
    ages: dict[str, float | None] = {}
    for name, model in (("email", Notification), ("webhook", Delivery)):
        oldest = model.objects.filter(status="pending").order_by("created").values_list("created", flat=True).first()
        ages[name] = round((now - oldest).total_seconds(), 1) if oldest else None
    return ages


def operator_checks() -> dict[str, Any]:
    """What the operator should know, none of which stops the web tier from serving."""
    fresh = timedelta(seconds=settings.HEARTBEAT_STALE_SECONDS)
    seen = heartbeats.last_seen()
    now = timezone.now()
    workers = {name: beat for name, beat in seen.items() if beat["kind"] == "worker"}
    beats = [beat for beat in seen.values() if beat["kind"] == "beat"]
    checks: dict[str, Any] = {
        "workers": {
            "ok": any(now - beat["at"] < fresh for beat in workers.values()),
            "seen": {name: beat["at"].isoformat() for name, beat in workers.items()},
        },
        "beat": {"ok": any(now - beat["at"] < fresh for beat in beats)},
    }
    if settings.GAME_REVIEW != "off":
        bots = heartbeats.serving("bots")
        checks["reviews"] = {"ok": bool(bots), "policy": settings.GAME_REVIEW, "bots_workers": bots}
    try:
        ages = oldest_pending_age_seconds()
    except DatabaseError:
        return checks
    limit = settings.OUTBOX_STALE_SECONDS
    for name, age in ages.items():
        checks[f"oldest_pending_{name}"] = {"ok": age is None or age < limit, "age_seconds": age}
    return checks


@require_safe
@never_cache
def readyz(request: HttpRequest) -> JsonResponse:
    required: dict[str, Any] = {"database": check_database()}
    if (redis_check := check_redis()) is not None:
        required["redis"] = redis_check
    if required["database"]["ok"]:
        required["migrations"] = check_migrations()
    ready = all(check["ok"] for check in required.values())
    informative = operator_checks() if required["database"]["ok"] else {}
    warnings = ["reviews_without_bots_worker"] if not informative.get("reviews", {"ok": True})["ok"] else []
    body = {
        "status": "ok" if ready else "unavailable",
        "checks": required,
        "operations": informative,
        "warnings": warnings,
    }
    return JsonResponse(body, status=200 if ready else 503)
