"""What the operator reads: a request id on every log line, an access log, JSON logs,
the database's own error when the service answers 503, and request metrics.

``RequestContextMiddleware`` takes the request id from ``X-Request-ID`` (or makes one),
echoes it in the response, puts it on every log line of the request (and into the
Celery tasks it queues: manhattan_site/celery.py), logs one access line per request,
and counts the request in the metrics (manhattan_site/metrics.py).
"""

from __future__ import annotations

import contextvars
import json
import logging
import re
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse

request_id: contextvars.ContextVar[str | None] = contextvars.ContextVar("request_id", default=None)
user_id: contextvars.ContextVar[int | None] = contextvars.ContextVar("user_id", default=None)

access_log = logging.getLogger("manhattan.access")
database_log = logging.getLogger("manhattan.database")
_ID = re.compile(r"^[A-Za-z0-9._:-]{1,100}$")  # what a client's X-Request-ID may be, or a new one is made
_GAME = re.compile(r"/games/([0-9a-f-]{36})")


class RequestContextFilter(logging.Filter):
    """Puts the request id and user id of the current request (or task) on every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = request_id.get()
        record.user_id = user_id.get()
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, and what is known of the request."""

    FIELDS = ("request_id", "user_id", "game_id", "method", "path", "status", "duration_ms", "route")

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for field in self.FIELDS:
            value = getattr(record, field, None)
            if value is not None:
                line[field] = value
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, default=str)


def probes() -> dict[str, Callable[[HttpRequest], HttpResponse]]:
    """The health checks and the metrics, answered here before any other middleware: a
    probe asks by address (127.0.0.1 in a container's health check, a pod's IP), over
    plain HTTP, so ALLOWED_HOSTS and the HTTPS redirect must not turn it away. /metrics
    still needs its token or network."""
    from manhattan_site import health, metrics

    return {"/healthz": health.healthz, "/readyz": health.readyz, "/metrics": metrics.metrics_view}


class RequestContextMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        given = request.headers.get("X-Request-ID", "")
        rid = given if _ID.match(given) else uuid.uuid4().hex
        id_token = request_id.set(rid)
        user_token = user_id.set(None)
        started = time.monotonic()
        try:
            probe = probes().get(request.path)
            response = probe(request) if probe is not None else self.get_response(request)
        finally:
            duration = time.monotonic() - started
        try:
            response["X-Request-ID"] = rid
            user = getattr(request, "user", None)
            if user is not None and getattr(user, "is_authenticated", False):
                user_id.set(user.pk)
            match = getattr(request, "resolver_match", None)
            route = ("/" + match.route) if match is not None and match.route else "unmatched"
            if request.path in ("/healthz", "/readyz", "/metrics"):
                route = request.path
            game = _GAME.search(request.path)
            access_log.info(
                "%s %s %s",
                request.method,
                request.path,
                response.status_code,
                extra={
                    "method": request.method,
                    "path": request.path,
                    "status": response.status_code,
                    "duration_ms": round(duration * 1000, 1),
                    "route": route,
                    "game_id": game.group(1) if game else None,
                },
            )
            from manhattan_site import metrics

            metrics.observe_request(request, response, route, duration)
        finally:
            request_id.reset(id_token)
            user_id.reset(user_token)
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        """A database that cannot be reached is named in the log and answered with 503, not a 500."""
        if isinstance(exception, (OperationalError, InterfaceError)):
            database_log.error("database unavailable: %s: %s", type(exception).__name__, exception)
            return JsonResponse(
                {"status": 503, "code": "database_unavailable", "detail": "The database is briefly unavailable."},
                status=503,
                content_type="application/problem+json",
                headers={"Retry-After": "1"},
            )
        return None
