"""Smoke test: the benchmark scripts run and report their figures.

Only that they run and produce positive numbers; how fast the engine is
(the targets) is for the benchmarks themselves, never a unit test. The
move-cost and email benchmarks need PostgreSQL on 127.0.0.1 (each on a scratch
database of its own, whatever the suite's database), and are skipped without it.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support import redis as test_redis

# slow: each runs a benchmark script in a process of its own (left out by `dev.py test --fast`)
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
POSTGRES = "postgres://postgres@127.0.0.1:5432"


def postgres_reachable() -> bool:
    import psycopg

    try:
        psycopg.connect(f"{POSTGRES}/postgres", connect_timeout=3).close()
    except psycopg.OperationalError:
        return False
    return True


needs_postgres = pytest.mark.skipif(not postgres_reachable(), reason="no PostgreSQL on 127.0.0.1:5432")


def run_benchmark(module: str, *args: str, timeout: int = 300) -> dict[str, Any]:
    """``python -m benchmarks.<module> --quick --json`` on a scratch database of this test run's own."""
    database = f"{POSTGRES}/bench_helper_smoke_{module}_{os.getpid()}"
    done = subprocess.run(
        [sys.executable, "-m", f"benchmarks.{module}", "--quick", "--json", "--database-url", database, *args],
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return dict(json.loads(done.stdout))


def test_engine_benchmark_quick_json() -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "engine.py"), "--quick", "--json"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)
    figures = results["figures"]
    assert set(figures) == {"games_per_s_4p", "fold_json_ms", "legal_actions_us"}
    for name, fig in figures.items():
        assert isinstance(fig["value"], float), name
        assert fig["value"] > 0, name


@needs_postgres
def test_move_cost_quick_json() -> None:
    results = run_benchmark("move_cost")

    assert results["moves"] > 50
    assert all(value > 0 for value in results["cpu_us"].values()), results["cpu_us"]
    assert results["move_vs_me"] > 1
    assert results["queries"]["me"]["median"] >= 1
    assert results["queries_per_move"]["median"] >= 2
    assert results["last_vs_first"] > 0


@needs_postgres
@pytest.mark.skipif(shutil.which("redis-server") is None, reason="no redis-server to start")
def test_emails_quick_json() -> None:
    from tests.support.faults import PrivateRedis

    with PrivateRedis() as redis:  # its own broker: the shared Redis's db 14 is flushed by a full run
        results = run_benchmark("emails", "--tasks", "50", "--redis-url", redis.url)

    assert results["problems"] == []
    assert results["emails"] > 50
    assert results["worker_cpu_per_email_us"] > 0
    assert results["email_vs_noop_task"] > 0


@pytest.mark.skipif(importlib.util.find_spec("locust") is None, reason="locust is in the bench extra")
def test_locustfile_loads() -> None:
    # In a subprocess: importing locust monkey-patches the standard library with gevent.
    done = subprocess.run(
        [sys.executable, "-m", "locust", "-f", str(ROOT / "benchmarks" / "locustfile.py"), "--list"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Table" in done.stdout


def redis_reachable(url: str) -> bool:
    import redis

    try:
        return bool(redis.Redis.from_url(url, socket_timeout=1).ping())
    except redis.RedisError:
        return False


@needs_postgres
def test_streams_quick_json() -> None:
    # Redis pub/sub on a channel of the run's own when there is a Redis; else the
    # in-process wake-ups and the database watcher (slower, still every event).
    redis_url = test_redis.url(test_redis.BENCHMARKS)
    results = run_benchmark("streams", "--redis-url", redis_url if redis_reachable(redis_url) else "")

    assert results["opened"] == results["streams"] == 100
    assert results["all_received"] is True
    assert results["events_missing"] == 0
    assert results["kib_per_stream"] > 0
    assert 0 < results["latency_ms"]["p50"] <= results["latency_ms"]["p99"]


@pytest.mark.parametrize("module", ["search_rate", "review"])
def test_bot_benchmarks_quick_json(module: str) -> None:
    """The strong bot's search rate (old engine against today's) and the review's cost and noise."""
    done = subprocess.run(
        [sys.executable, "-m", f"benchmarks.{module}", "--quick", "--json"],
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads(done.stdout)
    if module == "search_rate":
        for figures in results["players"].values():
            assert figures["old_median"] > 0
            assert figures["new_median"] > 0
    else:
        assert all(row["moves"] > 0 and row["cpu_s"] > 0 for row in results["cost"])
        assert all(row["cost_sd"] >= 0 for rows in results["noise"].values() for row in rows)


@needs_postgres
def test_waiting_games_quick_json() -> None:
    """The beat's sweeps over waiting games: every sweep timed and its statements counted, with and without games."""
    results = run_benchmark("waiting_games")

    assert results["waiting_clocks"] == results["games"] == 40
    assert len(results["sweeps"]) >= 8
    for name, sweep in results["sweeps"].items():
        assert sweep["cpu_us"] > 0, name
        assert sweep["cpu_us_empty"] > 0, name
        assert 1 <= sweep["queries"] <= 10, name  # nothing is due: a sweep reads, it does not deliver
    assert results["cpu_ms_per_hour"] > 0
