"""Development without Redis runs the site and a worker as two processes
(``dev.py serve``): they share one cache, a folder under var/, so the site sees the
worker's heartbeats. Without it the site believed no bots worker alive, sent every
game-over email without waiting for its review, and /readyz warned of a dead worker
that was running. Tested with a real worker in development settings and a second
process asking as the site does."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.waiting import wait_until

ROOT = Path(__file__).resolve().parents[1]
ASK = "import django; django.setup(); from manhattan_site import heartbeats; print(heartbeats.serving('bots'))"


def _development(var_dir: Path) -> dict[str, str]:
    """The environment of a fresh machine's `dev.py serve`: no Redis, development mode."""
    unset = ("REDIS_URL", "STREAMS_REDIS_URL", "DJANGO_ENV", "DATABASE_URL", "SECRET_KEY")
    env = {k: v for k, v in os.environ.items() if k not in unset}
    env.update(DJANGO_SETTINGS_MODULE="manhattan_site.settings", VAR_DIR=str(var_dir), PYTHONPATH=str(ROOT))
    return env


def _serving_bots(env: dict[str, str]) -> str:
    """What another process of the site reads: the bots workers it believes alive."""
    done = subprocess.run([sys.executable, "-c", ASK], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.slow
def test_the_site_sees_a_development_workers_heartbeat(tmp_path: Path) -> None:
    env = _development(tmp_path)
    # var/ and the filesystem broker's folders, as `dev.py serve` makes them (any manage.py command).
    subprocess.run([sys.executable, "manage.py", "check"], cwd=ROOT, env=env, check=True, capture_output=True)
    assert _serving_bots(env) == "[]", "no worker yet"
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "manhattan_site", "worker", "--pool", "solo", "--loglevel", "WARNING",
         "--without-mingle", "--without-gossip", "--hostname", "dev-worker@here", "--queues", "celery,bots"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:

        def seen() -> bool:
            assert worker.poll() is None, worker.stdout.read().decode() if worker.stdout else "the worker died"
            return "dev-worker@here" in _serving_bots(env)

        wait_until(seen, timeout=90, interval=0.5, message="the site never saw the worker's heartbeat")
    finally:
        worker.terminate()
        worker.wait(timeout=20)
