"""``GET /metrics`` in the Prometheus text format.

Counters and histograms are kept by every process; with ``PROMETHEUS_MULTIPROC_DIR``
set (docker-compose.yml sets it) they are written to files there, so that the
gunicorn workers' numbers add up whichever worker answers the scrape. What the
database knows (games by status, emails and webhook deliveries by status, the oldest
pending of each) and the workers' heartbeats are read at each scrape.

Only with ``Authorization: Bearer <METRICS_TOKEN>``, or from an address in
``METRICS_ALLOWED_NETWORKS``; otherwise 404, as if there were no such page.
"""

from __future__ import annotations

import hmac
import ipaddress
import os
import socket
from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.db.models import Count
from django.http import Http404, HttpRequest, HttpResponse
from django.utils import timezone
from django.views.decorators.http import require_safe
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    values,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead
from prometheus_client.registry import Collector


def process_name(pid: int) -> str:
    """How a process's metric files are named: the folder is shared by the containers of a
    machine (a compose volume), and process ids repeat from one container to the next."""
    return f"{socket.gethostname()}-{pid}"


def forget_process(pid: int, folder: str | None = None) -> None:
    """A process has ended (gunicorn's ``child_exit``): its open streams no longer count.
    Its counters stay, so that the totals never go down."""
    folder = folder or os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if folder:
        mark_process_dead(process_name(pid), folder)  # type: ignore[no-untyped-call]


if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
    # Set before the first metric below is made, which is when it is read.
    values.ValueClass = values.MultiProcessValue(lambda: process_name(os.getpid()))  # type: ignore[no-untyped-call]

REQUESTS = Histogram(
    "manhattan_request_seconds",
    "Time to answer a request, by route, method and status class.",
    ["route", "method", "status"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)
MOVES = Counter(
    "manhattan_moves_total", "Moves posted through the API, by outcome and problem code.", ["outcome", "code"]
)

# Kept by the Celery processes (and by web requests that do the same work inline);
# counted at the one place each thing happens.
EMAILS = Counter("manhattan_emails_total", "Emails handed to the mail server, by outcome.", ["outcome"])
WEBHOOKS = Counter("manhattan_webhook_attempts_total", "Webhook delivery attempts, by outcome.", ["outcome"])
BOT_THINK = Histogram(
    "manhattan_bot_think_seconds",
    "Time a bot took to choose a move, by bot and purpose.",
    ["bot", "purpose"],
    buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30),
)
TIMEOUTS = Counter("manhattan_timeouts_total", "Timed-out turns on which the timeout bot moved.")
REMINDERS = Counter("manhattan_reminders_total", "Turn reminders written to the outbox.")
# "livesum": the streams open in the processes alive now (a dead worker's streams are gone).
OPEN_STREAMS = Gauge("manhattan_open_streams", "Live event streams open now.", multiprocess_mode="livesum")


def observe_request(request: HttpRequest, response: HttpResponse, route: str, seconds: float) -> None:
    if route.endswith("/stream"):
        return  # a stream's time is how long it was watched, not how long it took to answer
    REQUESTS.labels(route, request.method or "", f"{response.status_code // 100}xx").observe(seconds)
    match = getattr(request, "resolver_match", None)
    if request.method == "POST" and route.endswith("/actions") and match is not None:
        if response.status_code < 400:
            MOVES.labels("accepted", "").inc()
        else:
            data = getattr(response, "data", None)
            code = data.get("code", "error") if isinstance(data, dict) else "error"
            MOVES.labels("refused", str(code)).inc()


class DatabaseCollector(Collector):
    """What the database and the heartbeats say, read at scrape time."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        from games.models import Game
        from manhattan_site import health, heartbeats
        from notifications.models import Notification
        from webhooks.models import Delivery

        games = GaugeMetricFamily("manhattan_games", "Games by status.", labels=["status"])
        for row in Game.objects.values("status").annotate(n=Count("pk")).order_by():
            games.add_metric([row["status"]], row["n"])
        yield games
        emails = GaugeMetricFamily("manhattan_emails", "Emails by status.", labels=["status"])
        for row in Notification.objects.values("status").annotate(n=Count("pk")).order_by():
            emails.add_metric([row["status"]], row["n"])
        yield emails
        hooks = GaugeMetricFamily("manhattan_webhook_deliveries", "Webhook deliveries by status.", labels=["status"])
        for row in Delivery.objects.values("status").annotate(n=Count("pk")).order_by():
            hooks.add_metric([row["status"]], row["n"])
        yield hooks
        lag = GaugeMetricFamily("manhattan_oldest_pending_seconds", "Age of the oldest pending item.", labels=["kind"])
        for kind, age in health.oldest_pending_age_seconds().items():
            lag.add_metric([kind], age or 0.0)
        yield lag
        seen = GaugeMetricFamily(
            "manhattan_heartbeat_age_seconds", "Seconds since a worker or beat was last seen.", labels=["name", "kind"]
        )
        now = timezone.now()
        for name, beat in heartbeats.last_seen().items():
            seen.add_metric([name, beat["kind"]], (now - beat["at"]).total_seconds())
        yield seen


def allowed(request: HttpRequest) -> bool:
    token = settings.METRICS_TOKEN
    given = request.headers.get("Authorization", "")
    if token and hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
        return True
    try:
        address = ipaddress.ip_address(request.META.get("REMOTE_ADDR", ""))
    except ValueError:
        return False
    return any(address in ipaddress.ip_network(net, strict=False) for net in settings.METRICS_ALLOWED_NETWORKS)


@require_safe
def metrics_view(request: HttpRequest) -> HttpResponse:
    if not allowed(request):
        raise Http404
    registry: Any = CollectorRegistry()
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    else:
        from prometheus_client import REGISTRY

        registry = _Both(REGISTRY, registry)
    registry.register(DatabaseCollector())
    return HttpResponse(generate_latest(registry), content_type=CONTENT_TYPE_LATEST)


class _Both(CollectorRegistry):
    """This process's own metrics (no multiprocess directory) and the scrape-time ones."""

    def __init__(self, process: CollectorRegistry, scrape: CollectorRegistry) -> None:
        super().__init__()
        self._process = process
        self._scrape = scrape

    def register(self, collector: Collector) -> None:
        self._scrape.register(collector)

    def collect(self) -> Iterator[Any]:
        yield from self._process.collect()
        yield from self._scrape.collect()
