"""The waiting-games benchmark: what the beat's sweeps cost per 1,000 games waiting for a move.

A game between moves costs nothing but the periodic sweeps that look at it: reminders and
timeouts, digests, the outbox, webhooks, bot turns, open games to fill with bots, lost
reviews, expired data exports (``CELERY_BEAT_SCHEDULE``). In one process, on PostgreSQL:

* players get API tokens over the API, a fifth of them read a daily digest (today's already
  sent, so the digest sweep reads them and sends nothing); then ``--games`` two-player games
  are made and started over the API (the creator invites the other by email, who joins).
  Every game waits for a human whose reminder and timeout are hours away: the steady state,
  where every sweep finds nothing due;
* each sweep task is called in this process (as a worker would run it), first once counting
  its statements (``CaptureQueriesContext``), then ``--repeats`` times timed: this thread's
  CPU clock (``time.thread_time_ns``), the wall clock, and the CPU of PostgreSQL's backend
  process serving this connection (from ``/proc``, when PostgreSQL runs on this machine);
* all of it twice: with no game, then with the games; the difference, scaled to 1,000 games
  and to an hour of the beat's schedule, is what waiting games cost.

    python -m benchmarks.waiting_games                 # 1,000 games, 100 timed sweeps of each
    python -m benchmarks.waiting_games --quick --json  # 40 games, 3 sweeps: the smoke run

A ``--database-url`` whose name contains ``bench_helper`` is recreated and dropped; any other
is migrated in place and keeps the run's players and games.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import tempfile
from datetime import timedelta
from typing import Any

from benchmarks.harness import (
    DEFAULT_DATABASE,
    SCRATCH_MARKER,
    Api,
    drop_database,
    log,
    median,
    new_game,
    new_players,
    recreate_database,
    setup_django,
    site_env,
    table,
)

DIGEST_READERS = 5  # one player in this many reads a daily digest


def sweeps() -> list[tuple[str, Any, int]]:
    """Each beat entry: its name, its task and its interval in seconds."""
    from django.conf import settings

    found = []
    schedule: dict[str, dict[str, Any]] = settings.CELERY_BEAT_SCHEDULE
    for name, entry in schedule.items():
        module, _, function = str(entry["task"]).rpartition(".")
        found.append((name, getattr(importlib.import_module(module), function), int(entry["schedule"])))
    return found


def backend_cpu_s() -> float | None:
    """CPU seconds of the PostgreSQL process serving this connection, if it is on this machine."""
    from django.db import connection

    from benchmarks.harness import process_cpu

    connection.ensure_connection()
    try:
        return process_cpu(connection.connection.info.backend_pid)
    except OSError:
        return None


def measure_sweeps(repeats: int) -> dict[str, dict[str, Any]]:
    """Per beat entry: statements of one sweep, median CPU and wall of ``repeats``, PostgreSQL's CPU."""
    import time

    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    figures = {}
    for _name, task, _interval in sweeps():
        # Drain: the emails of the games just made are sent (500 a sweep), as a worker would have.
        for _ in range(100):
            done = task()
            if not (any(done.values()) if isinstance(done, dict) else done):
                break
    for name, task, interval in sweeps():
        with CaptureQueriesContext(connection) as captured:
            task()
        cpu, wall = [], []
        db_before = backend_cpu_s()
        for _ in range(repeats):
            started_wall, started_cpu = time.perf_counter_ns(), time.thread_time_ns()
            task()
            cpu.append(time.thread_time_ns() - started_cpu)
            wall.append(time.perf_counter_ns() - started_wall)
        db_after = backend_cpu_s()
        db_us = None if db_before is None or db_after is None else (db_after - db_before) * 1e6 / repeats
        figures[name] = {
            "interval_s": interval,
            "queries": len(captured),
            "cpu_us": round(median(cpu) / 1000, 1),
            "wall_us": round(median(wall) / 1000, 1),
            "db_cpu_us": None if db_us is None else round(db_us, 1),
        }
    return figures


def make_waiting_games(count: int) -> int:
    """``count`` started two-player games, each waiting for a person whose clock is hours away."""
    from django.utils import timezone

    from notifications.models import Preference, TurnClock

    api = Api()
    players = new_players(max(4, min(200, count // 5)), prefix="waiting")
    readers = [p.email for i, p in enumerate(players) if i % DIGEST_READERS == 0]
    Preference.objects.filter(user__email__in=readers).update(
        frequency=Preference.Frequency.DAILY_DIGEST, last_digest=timezone.now()
    )
    for number in range(count):
        first = number % len(players)
        game = new_game(api, [players[first], players[(first + 1) % len(players)]])
        assert game["status"] == "active", game["status"]
        if number % 200 == 199:
            log(f"  {number + 1} games")
    soonest = TurnClock.objects.order_by("next_reminder_at").values_list("next_reminder_at", flat=True).first()
    assert soonest is None or soonest > timezone.now() + timedelta(minutes=10), "a reminder is due"
    return TurnClock.objects.filter(user__isnull=False).count()


def run_here(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="bench-waiting-") as var_dir:
        # Nothing is due, so nothing should be published; if it is, the in-memory broker keeps it.
        setup_django(
            site_env(args.database_url, var_dir, ACCESS_LOG_LEVEL="WARNING"),
            CELERY_BROKER_URL="memory://",
            CELERY_TASK_ALWAYS_EAGER=False,
        )
        log("sweeping with no game")
        measure_sweeps(args.repeats)  # a warm-up: the first round of a fresh process runs colder
        empty = measure_sweeps(args.repeats)
        log(f"making {args.games} waiting games")
        clocks = make_waiting_games(args.games)
        log("sweeping with them")
        full = measure_sweeps(args.repeats)
    return summarise(args.games, clocks, empty, full)


def summarise(games: int, clocks: int, empty: dict[str, Any], full: dict[str, Any]) -> dict[str, Any]:
    per_1000 = 1000 / games

    def hourly(figures: dict[str, Any], key: str) -> float:
        return float(sum((f[key] or 0) * 3600 / f["interval_s"] for f in figures.values())) / 1000  # ms an hour

    rows = {
        name: {
            **full[name],
            "cpu_us_empty": empty[name]["cpu_us"],
            "db_cpu_us_empty": empty[name]["db_cpu_us"],
            "queries_empty": empty[name]["queries"],
            "cpu_us_per_1000_games": round((full[name]["cpu_us"] - empty[name]["cpu_us"]) * per_1000, 1),
        }
        for name in full
    }
    db_measured = all(f["db_cpu_us"] is not None for f in full.values())
    return {
        "games": games,
        "waiting_clocks": clocks,
        "sweeps": rows,
        "cpu_ms_per_hour_empty": round(hourly(empty, "cpu_us"), 1),
        "cpu_ms_per_hour": round(hourly(full, "cpu_us"), 1),
        "cpu_ms_per_hour_per_1000_games": round((hourly(full, "cpu_us") - hourly(empty, "cpu_us")) * per_1000, 1),
        "db_cpu_ms_per_hour_empty": round(hourly(empty, "db_cpu_us"), 1) if db_measured else None,
        "db_cpu_ms_per_hour": round(hourly(full, "db_cpu_us"), 1) if db_measured else None,
        "db_cpu_ms_per_hour_per_1000_games": (
            round((hourly(full, "db_cpu_us") - hourly(empty, "db_cpu_us")) * per_1000, 1) if db_measured else None
        ),
        "queries_per_hour": round(sum(f["queries"] * 3600 / f["interval_s"] for f in full.values())),
    }


def report(r: dict[str, Any]) -> str:
    def db(value: float | None, unit: str = "µs") -> str:
        return "–" if value is None else f"{value:,.0f} {unit}"

    rows = [
        [name, f"{f['interval_s']} s", f"{f['queries_empty']} → {f['queries']}", f"{f['cpu_us_empty']:,.0f} µs",
         f"{f['cpu_us']:,.0f} µs", f"{f['wall_us']:,.0f} µs", f"{db(f['db_cpu_us_empty'])} → {db(f['db_cpu_us'])}"]
        for name, f in r["sweeps"].items()
    ]  # fmt: skip
    headers = [
        "Sweep",
        "every",
        "statements",
        "CPU, no game",
        f"CPU, {r['games']:,} games",
        "wall",
        "PostgreSQL CPU, none → games",
    ]
    lines = [
        f"Sweeps over {r['games']:,} waiting games ({r['waiting_clocks']:,} turn clocks), medians",
        table(headers, rows),
        f"sweep CPU per hour of the beat's schedule: {r['cpu_ms_per_hour_empty']:,.1f} ms with no game, "
        f"{r['cpu_ms_per_hour']:,.1f} ms with {r['games']:,} games",
        f"per 1,000 waiting games: {r['cpu_ms_per_hour_per_1000_games']:,.1f} ms of CPU an hour",
        f"PostgreSQL backend CPU per hour: {db(r['db_cpu_ms_per_hour_empty'], 'ms')} with no game, "
        f"{db(r['db_cpu_ms_per_hour'], 'ms')} with {r['games']:,} games; "
        f"statements per hour: {r['queries_per_hour']:,}",
    ]
    return "\n\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--games", type=int, help="waiting games (1,000; 40 with --quick)")
    parser.add_argument("--repeats", type=int, help="timed sweeps of each kind (100; 3 with --quick)")
    parser.add_argument("--quick", action="store_true", help="a smoke run")
    parser.add_argument("--json", action="store_true", help="the results as JSON on stdout")
    parser.add_argument("--database-url", default=DEFAULT_DATABASE + "_waiting_games")
    args = parser.parse_args(argv)
    args.games = args.games or (40 if args.quick else 1000)
    args.repeats = args.repeats or (3 if args.quick else 100)
    scratch = SCRATCH_MARKER in args.database_url.rsplit("/", 1)[-1]
    if scratch:
        recreate_database(args.database_url)
    try:
        results = run_here(args)
    finally:
        from django.db import connections

        connections.close_all()
        if scratch:
            drop_database(args.database_url)
    print(json.dumps(results, indent=1) if args.json else report(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
