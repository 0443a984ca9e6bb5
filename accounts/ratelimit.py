"""Rate limits for the web pages, counted in the cache like DRF's throttles.

The API uses DRF's throttles; pages that send email (sign-in links, new games
with invitations) use these, keyed by user or by real client address.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest

logger = logging.getLogger(__name__)
PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_rate(rate: str) -> tuple[int, int]:
    """``"60/hour"`` → (60, 3600), as DRF reads its rates."""
    count, period = rate.split("/")
    return int(count), PERIODS[period.strip()[0]]


def client_address(request: HttpRequest) -> str:
    """The client's address: the one the last of ``NUM_PROXIES`` trusted
    proxies appended to X-Forwarded-For, never one the client wrote itself."""
    proxies = settings.NUM_PROXIES
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    if proxies and forwarded:
        addresses = [a.strip() for a in forwarded.split(",") if a.strip()]
        if addresses:
            return str(addresses[-min(proxies, len(addresses))])
    return str(request.META.get("REMOTE_ADDR", ""))


def hit(key: str, rate: str) -> int | None:
    """Count one use of ``key``; the seconds to wait if ``rate`` is exceeded."""
    limit, period = parse_rate(rate)
    cache_key = f"ratelimit:{key}"
    try:
        cache.add(cache_key, 0, timeout=period)
        try:
            count = cache.incr(cache_key)
        except ValueError:  # expired between add and incr
            cache.set(cache_key, 1, timeout=period)
            count = 1
    except Exception:  # the cache (Redis) is down: a limit counter must not stop the site
        logger.warning("rate limit cache unavailable; %s allowed", key, exc_info=True)
        return None
    return period if count > limit else None
