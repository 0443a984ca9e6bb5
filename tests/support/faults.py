"""Tools to break things on purpose, for tests/reliability/test_faults_*.py: a
private Redis that can be stopped and restarted, an SMTP server (aiosmtpd)
that is slow or refuses, a real Celery worker process that can be killed
with SIGKILL, and a way to point this process's Celery app at a broker.

Everything listens on 127.0.0.1 only; every process started here is started
in its own session and stopped (its whole process group) on the way out.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from tests.support.waiting import held_within

ROOT = Path(__file__).resolve().parents[2]
MESSAGE_ID = re.compile(rb"^Message-ID:\s*(<[^>\r\n]+>)", re.IGNORECASE | re.MULTILINE)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_until(condition: Callable[[], bool], timeout: float, step: float = 0.05) -> bool:
    """Poll ``condition`` until it holds or ``timeout`` seconds pass; whether it held
    (tests/support/waiting.py's, for a caller that reports the failure itself)."""
    return held_within(condition, timeout=timeout, interval=step)


def stop_process(process: subprocess.Popen[Any] | None, grace: float = 10.0) -> None:
    """SIGTERM the process group of ``process`` (started with ``start_new_session``), then SIGKILL."""
    if process is None or process.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)


# --- Redis -------------------------------------------------------------------------------


class PrivateRedis:
    """A redis-server of our own on a free port, no persistence: ``stop()`` is an
    outage (queued task messages are lost with it), ``start()`` the recovery."""

    def __init__(self, port: int | None = None) -> None:
        self.port = port or free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.binary = shutil.which("redis-server") or "redis-server"

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 15.0) -> None:
        assert self.process is None or self.process.poll() is not None, "already running"
        self.process = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        if not wait_until(self.ping, timeout):
            self.stop()
            raise RuntimeError(f"redis-server on port {self.port} did not answer within {timeout} s")

    def stop(self) -> None:
        stop_process(self.process)

    def outage(self) -> Iterator[str]:
        """The phases of an outage, each named while it lasts: "before" (up), "down"
        (stopped), "after" (started again, empty)."""
        yield "before"
        self.stop()
        yield "down"
        self.start()
        yield "after"

    def ping(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def queued_notifications(self, queue: str = "celery") -> list[int]:
        """The notification ids named by the delivery tasks waiting in ``queue``
        (a task delivers one email, or a batch of them)."""
        import base64
        import json

        import redis

        client = redis.Redis.from_url(self.url, socket_timeout=5)
        try:
            raw = client.lrange(queue, 0, -1)
        finally:
            client.close()
        ids: list[int] = []
        for item in raw:
            message = json.loads(item)
            task = message["headers"]["task"]
            if not task.startswith("notifications.tasks.deliver_notification"):
                continue
            args, _kwargs, _embed = json.loads(base64.b64decode(message["body"]))
            ids += args[0] if isinstance(args[0], list) else [args[0]]
        return ids

    def __enter__(self) -> PrivateRedis:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


# --- SMTP ----------------------------------------------------------------------------------


class Inbox:
    """An aiosmtpd handler that records each accepted message by its Message-ID.

    A message counts as accepted when its DATA has arrived whole and the
    handler does not refuse it (the moment a real server queues it); ``delay``
    is then spent before the 250 reply goes out, the at-least-once window of
    a client that dies meanwhile. ``refuse`` answers the next n DATA commands
    with ``451`` (try again later) and accepts nothing of them.
    """

    def __init__(self, delay: float = 0.0, refuse: int = 0) -> None:
        self.lock = threading.Lock()
        self.delay = delay
        self.refuse = refuse
        self.ids: Counter[str] = Counter()
        self.refused: Counter[str] = Counter()
        self.in_flight = 0  # DATA received, reply not yet sent

    @property
    def accepted(self) -> int:
        with self.lock:
            return sum(self.ids.values())

    def duplicates(self) -> int:
        with self.lock:
            return sum(n - 1 for n in self.ids.values() if n > 1)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # aiosmtpd's hook name
        content = envelope.original_content or envelope.content
        match = MESSAGE_ID.search(content)
        message_id = match.group(1).decode() if match else ""
        with self.lock:
            if self.refuse > 0:
                self.refuse -= 1
                self.refused[message_id] += 1
                return "451 4.3.0 Try again later"
            self.ids[message_id] += 1
            self.in_flight += 1
        try:
            if self.delay:
                await asyncio.sleep(self.delay)  # a slow server, on purpose: the behaviour under test
        finally:
            with self.lock:
                self.in_flight -= 1
        return "250 OK"


@contextlib.contextmanager
def smtp_server(inbox: Inbox, port: int | None = None) -> Iterator[int]:
    from aiosmtpd.controller import Controller

    port = port or free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield port
    finally:
        controller.stop()


# --- Celery ----------------------------------------------------------------------------------


def database_url() -> str:
    """The URL of the database this process's default connection uses (the test database in tests)."""
    from django.db import connection

    settings = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{settings['NAME']}"
    password = f":{settings['PASSWORD']}" if settings.get("PASSWORD") else ""
    host = settings["HOST"] or "127.0.0.1"
    return f"postgres://{settings['USER']}{password}@{host}:{settings['PORT'] or 5432}/{settings['NAME']}"


def site_env(*, database: str, redis_url: str, smtp_port: int, **extra: str) -> dict[str, str]:
    """The environment of a worker (or web server) on ``database``, ``redis_url`` and a local SMTP port."""
    env = {k: v for k, v in os.environ.items() if k not in ("DJANGO_SETTINGS_MODULE", "PYTEST_CURRENT_TEST")}
    env.update(
        DJANGO_SETTINGS_MODULE="manhattan_site.settings",
        DJANGO_ENV="test",
        DATABASE_URL=database,
        REDIS_URL=redis_url,
        EMAIL_HOST="127.0.0.1",
        EMAIL_PORT=str(smtp_port),
        LOG_LEVEL="WARNING",
        PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep),
    )
    env.update(extra)
    return env


class Worker:
    """A real ``celery worker`` process (its own session), its output in a log file."""

    def __init__(
        self,
        env: dict[str, str],
        *,
        pool: str = "solo",
        concurrency: int = 1,
        name: str = "",
    ) -> None:
        self.env = env
        self.pool = pool
        self.concurrency = concurrency
        self.name = name or f"rel-{os.getpid()}-{time.monotonic_ns()}"
        self.log_dir = Path(tempfile.mkdtemp(prefix="rel-worker-"))
        self.log_path = self.log_dir / "worker.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> Worker:
        command = [
            sys.executable, "-m", "celery", "-A", "manhattan_site", "worker",
            "--pool", self.pool, "--concurrency", str(self.concurrency), "--loglevel", "INFO",
            "--without-mingle", "--without-gossip", "--without-heartbeat", "-n", f"{self.name}@%h",
        ]  # fmt: skip
        with open(self.log_path, "ab") as log_file:
            self.process = subprocess.Popen(
                command, cwd=ROOT, env=self.env, stdout=log_file, stderr=subprocess.STDOUT, start_new_session=True
            )
        return self

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def wait_ready(self, timeout: float = 60.0) -> None:
        def ready() -> bool:
            assert self.process is not None
            if self.process.poll() is not None:
                raise RuntimeError(f"the worker exited with {self.process.returncode}:\n{self.log()[-3000:]}")
            return " ready." in self.log()

        if not wait_until(ready, timeout, step=0.1):
            raise RuntimeError(f"the worker was not ready within {timeout} s:\n{self.log()[-3000:]}")

    def failed_task(self) -> str:
        """The log from the first task that raised, or "" (to stop waiting for a delivery that cannot come)."""
        text = self.log()
        at = text.find("raised unexpected")
        return text[max(at - 200, 0) : at + 3000] if at >= 0 else ""

    def kill(self) -> None:
        """SIGKILL the worker and every process of its pool: no warm shutdown, no ack."""
        assert self.process is not None
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        stop_process(self.process, grace=20.0)

    def cleanup(self) -> None:
        self.stop()
        shutil.rmtree(self.log_dir, ignore_errors=True)

    def __enter__(self) -> Worker:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.cleanup()


@contextlib.contextmanager
def broker_at(url: str) -> Iterator[None]:
    """Point this process's Celery app (the web side: ``transaction.on_commit`` →
    ``task.delay``) at ``url``, as ``REDIS_URL`` does in production, and back."""
    from manhattan_site.celery import app

    def reset_pools() -> None:
        # kombu keeps one pool per broker URL in a global registry: empty it, so that the
        # next publish connects afresh to the broker now configured.
        from kombu import pools

        pools.reset()
        app._pool = None
        app.amqp._producer_pool = None

    before = app.conf.broker_url
    reset_pools()
    app.conf.broker_url = url
    try:
        yield
    finally:
        reset_pools()
        app.conf.broker_url = before


def legal_move(game_pk: int, rng: Any = None) -> tuple[int, int, dict[str, Any]] | None:
    """(seat to act, version, a legal action as JSON) from the stored log, or None once the
    game is over: a random one with a ``random.Random``, else the first the engine lists."""
    from games import engine, store
    from games.models import Game

    game = Game.objects.get(pk=game_pk)
    if game.status != Game.Status.ACTIVE:
        return None
    state = store.state_of(game)
    assert state is not None
    assert state.to_act is not None
    legal = engine.legal_actions(engine.player_view(state, state.to_act)).to_json()
    if legal["selection"]:
        selection = legal["selection"]
        pool = [int(size) for size, n in selection["reserve"].items() for _ in range(n)]
        pieces = rng.sample(pool, selection["count"]) if rng else pool[: selection["count"]]
        action: dict[str, Any] = {"type": "select", "pieces": sorted(pieces)}
    else:
        entry = rng.choice(legal["placements"]) if rng else legal["placements"][0]
        option = rng.choice(entry["options"]) if rng else entry["options"][0]
        action = {"type": "place", "card": entry["card"], "city": option["city"], "size": option["size"]}
        action["colour"] = option["colour"]
    return state.to_act, game.version, action
