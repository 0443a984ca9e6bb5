"""DRF throttles that fail open.

The throttles count requests in the cache, which is Redis in production. If
Redis is down, refusing every request would stop all play over a limit
counter; these let the request through and log the outage instead.
"""

from __future__ import annotations

import logging
from typing import Any

from rest_framework import throttling

logger = logging.getLogger(__name__)


class FailOpenMixin:
    def allow_request(self, request: Any, view: Any) -> bool:
        try:
            return bool(super().allow_request(request, view))  # type: ignore[misc]
        except Exception:
            logger.warning("rate limit cache unavailable; request allowed", exc_info=True)
            return True


class UserRateThrottle(FailOpenMixin, throttling.UserRateThrottle):
    pass


class AnonRateThrottle(FailOpenMixin, throttling.AnonRateThrottle):
    pass


class ScopedRateThrottle(FailOpenMixin, throttling.ScopedRateThrottle):
    pass
