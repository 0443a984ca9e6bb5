"""DRF throttles that fail open, and say where the caller stands.

The throttles count requests in the cache, which is Redis in production. If
Redis is down, refusing every request would stop all play over a limit
counter; these let the request through and log the outage instead.

Each throttle that counted a request leaves its policy and what is left of it
in the request's environ (``RATELIMIT_KEY``); ``RateLimitHeadersMiddleware``
writes them as the IETF draft's ``RateLimit-Policy`` and ``RateLimit`` headers
(draft-ietf-httpapi-ratelimit-headers), so a client slows down before a 429.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest, HttpResponse
from rest_framework import throttling

logger = logging.getLogger(__name__)


RATELIMIT_KEY = "manhattan.ratelimit"


@dataclass(frozen=True)
class Quota:
    """One policy's state after a request: ``limit`` requests per ``window``
    seconds, ``remaining`` of them left, the window emptying in ``reset`` seconds."""

    policy: str
    limit: int
    window: int
    remaining: int
    reset: int


class FailOpenMixin:
    def allow_request(self, request: Any, view: Any) -> bool:
        try:
            allowed = bool(super().allow_request(request, view))  # type: ignore[misc]
        except Exception:
            logger.warning("rate limit cache unavailable; request allowed", exc_info=True)
            return True
        quota = self.quota()
        if quota is not None:
            request.META.setdefault(RATELIMIT_KEY, []).append(quota)
        return allowed

    def quota(self) -> Quota | None:
        """Where this request left the caller, if this throttle counted it."""
        throttle: Any = self
        if getattr(throttle, "key", None) is None or throttle.rate is None:
            return None  # not counted here (the anonymous limit for a signed-in user)
        history: list[float] = throttle.history
        window = int(throttle.duration)
        reset = math.ceil(window - (throttle.now - history[-1])) if history else window
        remaining = max(0, int(throttle.num_requests) - len(history))
        return Quota(str(throttle.scope), int(throttle.num_requests), window, remaining, max(0, reset))


class UserRateThrottle(FailOpenMixin, throttling.UserRateThrottle):
    """Signed-in callers only: DRF's would count an anonymous caller here too (by
    address), and its headers would then name the user quota to someone whom
    the anonymous quota limits."""

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        if not (request.user and request.user.is_authenticated):
            return None
        return super().get_cache_key(request, view)


class AnonRateThrottle(FailOpenMixin, throttling.AnonRateThrottle):
    pass


class ScopedRateThrottle(FailOpenMixin, throttling.ScopedRateThrottle):
    pass


class RateLimitHeadersMiddleware:
    """``RateLimit-Policy: "user";q=1200;w=60`` and ``RateLimit: "user";r=1187;t=42``
    on every response whose request a throttle counted (one item per policy)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        quotas: list[Quota] = request.META.get(RATELIMIT_KEY) or []
        if quotas:
            response["RateLimit-Policy"] = ", ".join(f'"{q.policy}";q={q.limit};w={q.window}' for q in quotas)
            response["RateLimit"] = ", ".join(f'"{q.policy}";r={q.remaining};t={q.reset}' for q in quotas)
        return response
