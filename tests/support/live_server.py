"""The site served live, for the tests that need a real server: uvicorn in a
thread of the test process (AsgiServer), or in a process of its own
(start_server), and ending the database sessions its threads leave behind."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading

import httpx
import uvicorn
from django.db import connection

from tests.support.processes import ROOT, free_port
from tests.support.waiting import wait_until


class AsgiServer:
    """The site's ASGI application served by uvicorn on a free port of 127.0.0.1."""

    def __init__(self) -> None:
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.socket.getsockname()[1]}"
        config = uvicorn.Config(
            "manhattan_site.asgi:application", log_level="warning", lifespan="off", timeout_graceful_shutdown=1
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.socket]}, daemon=True)

    def __enter__(self) -> AsgiServer:
        self.thread.start()
        wait_until(lambda: self.server.started, timeout=30, interval=0.02, message="the ASGI server did not start")
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


def backend_pid() -> int | None:
    """The PostgreSQL session of this thread's (and context's) connection."""
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return int(cursor.fetchone()[0])


def end_other_sessions(keep: set[int | None] | None = None) -> None:
    """The server's threads keep their database connections past the test; PostgreSQL
    will not drop the test database while they are open."""
    if connection.vendor == "postgresql":
        kept = [pid for pid in (keep or set()) if pid is not None]
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid() AND NOT pid = ANY(%s)",
                [kept],
            )


def start_server(database_url: str, channel: str, redis_url: str) -> tuple[subprocess.Popen[bytes], str]:
    """The ASGI site in a process of its own (real settings), on ``database_url``;
    its streams on Redis ``redis_url`` (none: "") under ``channel``."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "STREAMS_REDIS_URL")}
    env.update(
        DATABASE_URL=database_url,
        STREAMS_CHANNEL=channel,
        DJANGO_SETTINGS_MODULE="manhattan_site.settings",
        DJANGO_ENV="test",
        PYTHONPATH=str(ROOT),
    )
    if redis_url:
        env["REDIS_URL"] = redis_url
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "manhattan_site.asgi:application",
            "--port",
            str(port),
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=env,
    )
    url = f"http://127.0.0.1:{port}"

    def answers() -> bool:
        assert process.poll() is None, "the server process died"
        try:
            httpx.get(f"{url}/api/v1/schema/", timeout=2)
        except httpx.TransportError:
            return False
        return True

    wait_until(answers, timeout=60, interval=0.2, message="the server process did not start")
    return process, url
