"""Running the site: health and heartbeats, metrics, error reports (Sentry) and logging
(manhattan_site/health.py, heartbeats.py, observability.py; docs/operations.md)."""

from __future__ import annotations

from .core import DJANGO_ENV, PRODUCTION
from .environment import env, env_float, env_int, env_list

HEARTBEAT_SECONDS = env_float("HEARTBEAT_SECONDS", 20.0)  # how often workers and beat say they are alive
HEARTBEAT_STALE_SECONDS = env_int("HEARTBEAT_STALE_SECONDS", 60)  # then /readyz reports them missing
OUTBOX_STALE_SECONDS = env_int("OUTBOX_STALE_SECONDS", 600)  # a pending email or webhook older than this is late
# /metrics answers only with "Authorization: Bearer <METRICS_TOKEN>" or from these networks (CIDR).
METRICS_TOKEN = env("METRICS_TOKEN")
METRICS_ALLOWED_NETWORKS = env_list("METRICS_ALLOWED_NETWORKS", "")
# Errors to Sentry when set (needs the sentry-sdk package, not installed by default).
SENTRY_DSN = env("SENTRY_DSN")
if SENTRY_DSN:
    import sentry_sdk
    from sentry_sdk.integrations.celery import CeleryIntegration
    from sentry_sdk.integrations.django import DjangoIntegration

    sentry_sdk.init(
        dsn=SENTRY_DSN,
        environment=DJANGO_ENV,
        integrations=[DjangoIntegration(), CeleryIntegration()],
        traces_sample_rate=env_float("SENTRY_TRACES_SAMPLE_RATE", 0.0),
        send_default_pii=False,
    )

# JSON lines in production (one object per line: time, level, logger, message, request id,
# user and game where known); readable lines in development. LOG_FORMAT overrides.
LOG_FORMAT = env("LOG_FORMAT", "json" if PRODUCTION else "text")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request": {"()": "manhattan_site.observability.RequestContextFilter"}},
    "formatters": {
        "json": {"()": "manhattan_site.observability.JsonFormatter"},
        "text": {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"},
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": LOG_FORMAT, "filters": ["request"]},
    },
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", "INFO")},
    "loggers": {
        "django.db.backends": {"level": "WARNING"},
        # One access line per request from the middleware: Django's own 4xx/5xx lines repeat it.
        "django.request": {"level": "ERROR"},
        "manhattan.access": {"level": env("ACCESS_LOG_LEVEL", "INFO")},
    },
}
