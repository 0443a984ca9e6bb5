"""What the operator sees: /healthz, /readyz, /metrics, the request id and the JSON
access log, the admin's operations page."""

from __future__ import annotations

import json
import logging
import socket
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from games.models import Game
from manhattan_site import heartbeats
from manhattan_site.observability import JsonFormatter, RequestContextFilter
from tests.support.api import some_action
from webhooks.models import Endpoint

pytestmark = pytest.mark.django_db


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_healthz_answers_while_the_process_runs(client: Client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_readyz_checks_the_database_and_migrations(client: Client):
    response = client.get("/readyz")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["checks"]["database"]["ok"] is True
    assert body["checks"]["migrations"]["ok"] is True
    # What the web tier does not need to serve is reported, not required: no worker runs here.
    assert body["operations"]["workers"]["ok"] is False


def test_readyz_is_503_when_redis_is_unreachable(client: Client, settings):
    settings.REDIS_URL = f"redis://127.0.0.1:{closed_port()}/7"
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["checks"]["redis"]["ok"] is False
    assert "ConnectionError" in response.json()["checks"]["redis"]["error"]


def test_a_worker_heartbeat_shows_in_readyz_and_in_the_admin(client: Client, admin_client: Client):
    heartbeats.beat("worker@test-host", "worker", queues=["celery"])
    heartbeats.beat("beat@test-host", "beat")
    body = client.get("/readyz").json()
    assert body["operations"]["workers"]["ok"] is True
    assert "worker@test-host" in body["operations"]["workers"]["seen"]
    assert body["operations"]["beat"]["ok"] is True
    page = admin_client.get("/admin/operations/")
    assert page.status_code == 200
    text = page.content.decode()
    assert "worker@test-host" in text
    assert "beat@test-host" in text
    assert "Oldest pending email" in text


def test_the_operations_page_is_for_staff_only(client: Client, alice):
    client.force_login(alice)
    response = client.get("/admin/operations/")
    assert response.status_code == 302
    assert "/admin/login/" in response["Location"]


def test_the_request_id_is_taken_or_made_and_echoed(client: Client):
    given = client.get("/healthz", HTTP_X_REQUEST_ID="abc-123")
    assert given["X-Request-ID"] == "abc-123"
    made = client.get("/healthz", HTTP_X_REQUEST_ID="not a valid id \n")
    assert len(made["X-Request-ID"]) == 32
    assert made["X-Request-ID"] != client.get("/healthz")["X-Request-ID"]


def test_every_request_has_an_access_line_in_json_with_its_request_id(client: Client, caplog):
    caplog.handler.addFilter(RequestContextFilter())  # as the console handler has it (settings.LOGGING)
    with caplog.at_level(logging.INFO, logger="manhattan.access"):
        client.get("/healthz", HTTP_X_REQUEST_ID="req-42")
    records = [r for r in caplog.records if r.name == "manhattan.access"]
    assert len(records) == 1
    line = json.loads(JsonFormatter().format(records[0]))
    assert line["level"] == "INFO"
    assert line["logger"] == "manhattan.access"
    assert line["status"] == 200
    assert line["route"] == "/healthz"
    assert line["path"] == "/healthz"
    assert "time" in line
    assert line["request_id"] == "req-42"


def test_metrics_need_the_token(client: Client, settings):
    settings.METRICS_TOKEN = "s3cret-token"
    assert client.get("/metrics").status_code == 404
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 404
    response = client.get("/metrics", HTTP_AUTHORIZATION="Bearer s3cret-token")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain")


def test_metrics_count_moves_requests_and_games(client: Client, settings, started_game: Game, alice, client_for: Any):
    settings.METRICS_TOKEN = "s3cret-token"

    def scrape() -> str:
        return client.get("/metrics", HTTP_AUTHORIZATION="Bearer s3cret-token").content.decode()

    def value(text: str, prefix: str) -> float:
        return sum(float(line.split()[-1]) for line in text.splitlines() if line.startswith(prefix))

    before = scrape()
    api = client_for(alice)
    url = f"/api/v1/games/{started_game.public_id}"
    legal = api.get(f"{url}/legal-actions").json()
    assert (
        api.post(f"{url}/actions", {"action": some_action(legal), "expected_version": 99}, format="json").status_code
        == 409
    )
    moved = api.post(
        f"{url}/actions", {"action": some_action(legal), "expected_version": legal["version"]}, format="json"
    )
    assert moved.status_code == 200
    after = scrape()
    accepted = 'manhattan_moves_total{code="",outcome="accepted"}'
    refused = 'manhattan_moves_total{code="stale_version",outcome="refused"}'
    assert value(after, accepted) == value(before, accepted) + 1
    assert value(after, refused) == value(before, refused) + 1
    assert 'manhattan_games{status="active"} 1.0' in after
    assert "manhattan_request_seconds_bucket{" in after
    assert 'route="/api/v1/games/<str:game_id>/actions"' in after or "/actions" in after
    assert 'manhattan_oldest_pending_seconds{kind="email"}' in after


def test_probes_answer_by_address_over_plain_http_in_production(client: Client, settings):
    """A container's health check asks http://127.0.0.1:8000/readyz, not the site's name over HTTPS."""
    settings.ALLOWED_HOSTS = ["manhattan.example.com"]
    settings.SECURE_SSL_REDIRECT = True
    assert client.get("/readyz", HTTP_HOST="127.0.0.1:8000").status_code == 200
    assert client.get("/healthz", HTTP_HOST="10.0.0.7").status_code == 200
    assert client.get("/games/", HTTP_HOST="127.0.0.1:8000").status_code == 400


def test_a_database_outage_is_named_in_the_log_and_answered_503(client: Client, monkeypatch, caplog):
    from django.db import OperationalError, connection

    def refused() -> None:
        raise OperationalError('connection to server at "127.0.0.1", port 5432 failed: Connection refused')

    monkeypatch.setattr(connection, "ensure_connection", refused)
    with caplog.at_level(logging.ERROR):
        page = client.get("/leaderboard/")
        ready = client.get("/readyz")
    assert page.status_code == 503
    assert page.json()["code"] == "database_unavailable"
    assert ready.status_code == 503
    assert ready.json()["checks"]["database"]["ok"] is False
    assert "Connection refused" in ready.json()["checks"]["database"]["error"]
    logged = [r.getMessage() for r in caplog.records if r.name == "manhattan.database"]
    assert logged
    assert "Connection refused" in logged[0]
    assert "OperationalError" in logged[0]


def test_the_operations_page_asks_as_much_for_many_switched_off_endpoints(admin, make_user):
    def switch_off(count: int, tag: str) -> int:
        for i in range(count):
            owner = make_user(f"{tag}{i}@example.com")
            Endpoint.objects.create(owner=owner, url=f"https://{tag}{i}.example/in", secret="s", enabled=False)
        with CaptureQueriesContext(connection) as captured:
            page = admin.get("/admin/operations/")
        assert page.status_code == 200
        assert f"{tag}0@example.com" in page.content.decode()
        return len(captured)

    assert switch_off(2, "few") == switch_off(20, "many")
