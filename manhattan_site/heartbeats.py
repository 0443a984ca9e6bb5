"""Celery workers and beat say they are alive, so that the operator sees a dead one.

Each worker's main process and the beat process write their name and the time into
the shared cache (Redis in production) every ``HEARTBEAT_SECONDS``, from a thread of
their own (manhattan_site/celery.py starts it). ``/readyz``, ``/metrics`` and the
admin's operations page read them, and so does the game-over email, which waits for the
post-game review only while a worker consuming the bots queue is alive (``serving``).
They live in the ``shared`` cache: Redis when ``REDIS_URL`` is set; without it
(development) a folder of files under var/, shared by the site and its worker on one
machine; the tests keep one per process.
"""

from __future__ import annotations

import logging
import socket
import threading
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.cache import caches
from django.utils import timezone

KEY = "manhattan:heartbeats"
CACHE = "shared"  # the cache every process sees alike (settings.CACHES)
KEEP_SECONDS = 7 * 24 * 3600  # a worker unseen this long is forgotten
logger = logging.getLogger("manhattan.heartbeats")


def beat(name: str, kind: str, **details: Any) -> None:
    """Record that ``name`` (a worker or beat) is alive now."""
    seen = caches[CACHE].get(KEY) or {}
    now = timezone.now()
    seen = {n: b for n, b in seen.items() if (now - datetime.fromisoformat(b["at"])).total_seconds() < KEEP_SECONDS}
    seen[name] = {"kind": kind, "at": now.isoformat(), **details}
    caches[CACHE].set(KEY, seen, KEEP_SECONDS)


def last_seen() -> dict[str, dict[str, Any]]:
    """Every worker and beat seen in the last week: ``{name: {"kind", "at", ...}}``."""
    try:
        seen = caches[CACHE].get(KEY) or {}
    except Exception:  # the cache (Redis) being down is reported by /readyz itself
        return {}
    return {name: {**b, "at": datetime.fromisoformat(b["at"])} for name, b in seen.items()}


def start(kind: str, name: str | None = None, **details: Any) -> threading.Event:
    """Beat now and every HEARTBEAT_SECONDS on a daemon thread; set the event to stop."""
    name = name or f"{kind}@{socket.gethostname()}"
    stop = threading.Event()

    def run() -> None:
        while True:
            try:
                beat(name, kind, **details)
            except Exception:  # a missed heartbeat is what the operator sees; keep trying
                logger.warning("heartbeat of %s not recorded", name, exc_info=True)
            if stop.wait(settings.HEARTBEAT_SECONDS):
                return

    threading.Thread(target=run, name=f"heartbeat-{kind}", daemon=True).start()
    return stop


def serving(queue: str) -> list[str]:
    """The workers consuming ``queue`` that were seen in the last ``HEARTBEAT_STALE_SECONDS``
    (none when the cache cannot be read): the shared cache is the truth, whichever process asks."""
    fresh = timedelta(seconds=settings.HEARTBEAT_STALE_SECONDS)
    now = timezone.now()
    return sorted(
        name
        for name, beat in last_seen().items()
        if beat["kind"] == "worker" and queue in beat.get("queues", ()) and now - beat["at"] < fresh
    )
