"""A real Celery worker process for the integration tests: the test's own
database and Redis, and a queue of the run's own."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from django.db import connection

from tests.support.waiting import wait_until

ROOT = Path(__file__).resolve().parents[2]


def own_queue(prefix: str) -> str:
    """A queue of this run's own, so that a worker of another test run on the same
    Redis can never take this run's task (and look for it in another database)."""
    return f"{prefix}-{os.getpid()}-{time.time_ns()}"


def database_url() -> str:
    """The test database, as the worker process reaches it."""
    settings = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{settings['NAME']}"
    return (
        f"postgres://{settings['USER']}@{settings['HOST'] or '127.0.0.1'}:{settings['PORT'] or 5432}/{settings['NAME']}"
    )


@contextmanager
def celery_worker(queue: str, redis_url: str, env: dict[str, str]) -> Iterator[subprocess.Popen[bytes]]:
    """``celery worker`` on ``queue`` alone, with the settings of ``env`` added."""
    environment = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "manhattan_site.settings",
        "DJANGO_ENV": "test",
        "DATABASE_URL": database_url(),
        "REDIS_URL": redis_url,
        **env,
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "manhattan_site", "worker", "--pool", "solo", "--loglevel", "WARNING",
         "--without-mingle", "--without-gossip", "--without-heartbeat", "--queues", queue],
        cwd=ROOT, env=environment, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        yield process
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


def wait_for_worker(
    condition: Callable[[], object], worker: subprocess.Popen[bytes], *, timeout: float = 60, message: str
) -> None:
    """Until ``condition()`` holds; the worker's output if it dies first."""

    def done() -> object:
        assert worker.poll() is None, worker.stdout.read().decode() if worker.stdout else "the worker died"
        return condition()

    wait_until(done, timeout=timeout, interval=0.1, message=message)
