"""Every service of docker-compose.yml, started from the commands written there, plays a
game: no image is built (no Docker here), but the compose file is read and each app
service's command runs as a process with the environment compose would give it (the
operator's .env being .env.example), pointed at the local PostgreSQL, Redis and an
SMTP sink instead of the compose network's host names."""

from __future__ import annotations

import http.server
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis
import yaml
from django.db import connection

from accounts.services import create_api_token
from games.models import Game
from tests.support import redis as test_redis
from tests.support.api import some_action
from tests.support.live_server import end_other_sessions
from tests.support.processes import database_url_of_the_tests, free_port
from tests.support.sse import SseClient
from tests.support.waiting import wait_until

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
REDIS_URL = os.environ.get("COMPOSE_TEST_REDIS_URL", test_redis.url(test_redis.COMPOSE_STACK))
APP_SERVICES = ("web", "worker", "bots", "beat")
METRICS_TOKEN = "compose-test-metrics-token"


pytestmark = [
    pytest.mark.postgres,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not test_redis.reachable(REDIS_URL), reason="no Redis on 127.0.0.1:6379"),
]


def env_file(path: Path) -> dict[str, str]:
    pairs = (line.split("=", 1) for line in path.read_text().splitlines() if "=" in line and line[0] != "#")
    return {key.strip(): value.strip() for key, value in pairs}


def interpolate(text: str, env: dict[str, str]) -> str:
    """Compose's ${NAME}, ${NAME:-default} and ${NAME:?error}."""

    def value(match: re.Match[str]) -> str:
        name, op, arg = match.group(1), match.group(2), match.group(3) or ""
        if env.get(name):
            return env[name]
        assert op != ":?", f"compose would refuse to start: {arg}"
        return arg if op == ":-" else ""

    return re.sub(r"\$\{(\w+)(?:(:-|:\?)([^}]*))?\}", value, text)


class Stack:
    def __init__(self, tmp_path: Path, smtp_port: int) -> None:
        self.compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.tmp = tmp_path
        # What the operator's shell and .env give compose (the .env copied from .env.example).
        self.shell = {"WEB_CONCURRENCY": "2", "WORKER_CONCURRENCY": "1", "BOT_CONCURRENCY": "1"}
        self.dotenv = env_file(ROOT / ".env.example")
        # The compose network's host names, and what only a test changes, for local ones.
        self.local = {
            "DATABASE_URL": database_url_of_the_tests(),
            "REDIS_URL": REDIS_URL,
            "EMAIL_HOST": "127.0.0.1",
            "EMAIL_PORT": str(smtp_port),
            "ALLOWED_HOSTS": "127.0.0.1",
            "SITE_URL": self.url,
            "SECRET_KEY": "compose-stack-test-" + "k" * 40,
            "STATIC_ROOT": str(tmp_path / "static"),
            "VAR_DIR": str(tmp_path / "var"),
            "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics"),
            "METRICS_TOKEN": METRICS_TOKEN,
            # The webhook receiver of the test listens on 127.0.0.1 over plain HTTP.
            "WEBHOOK_ALLOW_HTTP": "true",
            "WEBHOOK_ALLOWED_NETWORKS": "127.0.0.0/8",
            "PYTHONPATH": str(ROOT),
            "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}",
        }
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        (tmp_path / "metrics").mkdir()  # the shared volume of compose

    def env_of(self, service: str) -> dict[str, str]:
        spec = self.compose["services"][service]
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_", "REDIS_"))}
        env.update(self.dotenv)  # env_file: .env
        merged = {**self.dotenv, **self.shell}  # the shell wins over .env, as in compose
        env.update(
            {
                k: interpolate(str(v), {**merged, "INBOUND_WEBHOOK_SECRET": "sendgrid:compose-test-secret"})
                for k, v in (spec.get("environment") or {}).items()
            }
        )
        env.update(self.local)
        env.pop("DJANGO_SETTINGS_MODULE", None)
        return env

    def command_of(self, service: str) -> list[str]:
        spec = self.compose["services"][service]
        command = interpolate(spec["command"], {**self.dotenv, **self.shell})
        command = command.replace("0.0.0.0:8000", f"127.0.0.1:{self.port}").replace("/tmp/", f"{self.tmp}/")
        return shlex.split(command)

    def start(self, service: str) -> None:
        log = (self.tmp / f"{service}.log").open("wb")
        self.processes[service] = subprocess.Popen(
            self.command_of(service),
            cwd=ROOT,
            env=self.env_of(service),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def log(self, service: str) -> str:
        return (self.tmp / f"{service}.log").read_text(errors="replace")[-4000:]

    def stop(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for name, process in self.processes.items():
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)
            assert name  # every process of the stack ended


@pytest.fixture
def stack(tmp_path: Path, smtp) -> Iterator[Stack]:
    if connection.vendor != "postgresql":
        pytest.skip("the compose stack runs on PostgreSQL")
    redis.Redis.from_url(REDIS_URL).flushdb()
    running = Stack(tmp_path, smtp[1])
    try:
        for service in APP_SERVICES:
            running.start(service)
        yield running
    finally:
        running.stop()
        end_other_sessions()


@pytest.fixture
def webhook_receiver() -> Iterator[tuple[list[bytes], str]]:
    """An HTTP server on 127.0.0.1 that keeps every body POSTed to it."""
    bodies: list[bytes] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            bodies.append(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            self.send_response(204)
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield bodies, f"http://127.0.0.1:{server.server_address[1]}/hook"
    finally:
        server.shutdown()
        server.server_close()


def wait_for(check, what: str, stack: Stack, timeout: float = 120) -> None:
    def done() -> bool:
        for name, process in stack.processes.items():
            assert process.poll() is None, f"{name} died:\n{stack.log(name)}"
        try:
            return bool(check())
        except httpx.TransportError:
            return False

    wait_until(
        done,
        timeout=timeout,
        interval=0.5,
        message=lambda: f"{what}:\n" + "\n".join(f"--- {name}\n{stack.log(name)}" for name in APP_SERVICES),
    )


def test_the_compose_services_start_and_play_a_move_with_its_email(
    stack: Stack,
    started_game: Game,
    alice,
    bob,
    smtp,
    webhook_receiver,
    settings,
):
    inbox, _port = smtp
    assert set(APP_SERVICES) <= set(stack.compose["services"])
    assert "migrate --noinput" in " ".join(stack.command_of("web"))  # migrations run by the web service's own command
    ready: dict[str, object] = {}

    def is_ready() -> bool:
        response = httpx.get(f"{stack.url}/readyz", timeout=5)
        ready.update(response.json())
        operations = response.json().get("operations", {})
        return response.status_code == 200 and operations["workers"]["ok"] and operations["beat"]["ok"]

    wait_for(is_ready, "ready, with a worker and beat heartbeat", stack)
    assert ready["checks"]["redis"]["ok"] is True
    workers = ready["operations"]["workers"]["seen"]
    assert len(workers) == 2, workers  # the email worker and the bots worker

    from webhooks import services as webhooks
    from webhooks.models import EventType

    settings.WEBHOOK_ALLOW_HTTP = True
    settings.WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.0/8"]
    hooks, hook_url = webhook_receiver
    webhooks.create_endpoint(owner=bob, url=hook_url, event_types=[value for value, _ in EventType.choices])

    token = create_api_token(user=alice, name="compose").raw
    headers = {"Authorization": f"Bearer {token}", "X-Forwarded-Proto": "https", "X-Request-ID": "compose-move-1"}
    url = f"{stack.url}/api/v1/games/{started_game.public_id}"
    # Streams on the web tier (two workers: with three, both almost surely hold one), each
    # read up to the game's present, then waiting for the move that the other may take.
    bob_token = create_api_token(user=bob, name="compose").raw
    stream_headers = {"Authorization": f"Bearer {bob_token}", "X-Forwarded-Proto": "https"}
    streams = [SseClient(f"{url}/stream", headers=stream_headers) for _ in range(3)]
    for stream in streams:
        assert stream.status == 200, stream.body
        for _ in range(started_game.version):
            stream.next(timeout=30)
    legal = httpx.get(f"{url}/legal-actions", headers=headers, timeout=30)
    assert legal.status_code == 200, legal.text
    body = {"action": some_action(legal.json()), "expected_version": legal.json()["version"]}
    moved = httpx.post(f"{url}/actions", json=body, headers=headers, timeout=30)
    assert moved.status_code == 200, moved.text
    assert moved.headers["X-Request-ID"] == "compose-move-1"

    # alice selects for both her colours, then it is bob's turn: his email comes from the worker.
    legal = httpx.get(f"{url}/legal-actions", headers=headers, timeout=30).json()
    if legal.get("my_turn"):
        body = {"action": some_action(legal), "expected_version": legal["version"]}
        assert httpx.post(f"{url}/actions", json=body, headers=headers, timeout=30).status_code == 200
    wait_for(lambda: any(m["To"] == bob.email for m in inbox.messages), "bob's turn email at the SMTP sink", stack)
    wait_for(lambda: any(b'"game.move"' in body for body in hooks), "bob's game.move webhook", stack)
    for stream in streams:
        assert stream.until(lambda e: e.id == str(started_game.version + 1), timeout=30)
        stream.close()

    def scrape() -> str:
        return httpx.get(f"{stack.url}/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}, timeout=30).text

    metrics = httpx.get(f"{stack.url}/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}, timeout=30)
    assert metrics.status_code == 200
    assert 'manhattan_moves_total{code="",outcome="accepted"}' in metrics.text
    # What the worker process counted is in what the web process answers: the volume they share.
    wait_for(lambda: 'manhattan_emails_total{outcome="sent"}' in scrape(), "the worker's emails in /metrics", stack)
    wait_for(lambda: 'manhattan_webhook_attempts_total{outcome="delivered"}' in scrape(), "its webhooks", stack)
    assert '"request_id": "compose-move-1"' in stack.log("web")  # JSON access lines in production
    # The tasks the move queued log with its request id, in the worker.
    assert '"request_id": "compose-move-1"' in (stack.tmp / "worker.log").read_text()
