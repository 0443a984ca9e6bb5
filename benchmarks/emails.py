"""The email benchmark: what a turn email costs a real Celery worker, as ratios.

Four players play whole 4-player games through Django's test client, so the application
writes the emails itself (your turn, round scored, game over) and publishes their delivery
on commit to Redis (db 14). A real worker (``celery worker --pool solo``, a subprocess on a
scratch PostgreSQL database) delivers them over SMTP to an aiosmtpd server in this process.
Every email must arrive exactly once (by Message-ID) and every row end ``sent``.

Figures, on the worker's CPU clock (from /proc, so neighbours on the machine do not count):

* worker CPU per delivered email ÷ worker CPU per no-op task (Celery's built-in
  ``celery.accumulate``, published the same way to the same worker): what an email costs
  beyond the price of any task;
* worker CPU per delivered email ÷ CPU to build one message alone in this process (render
  text and HTML, produce the bytes): the share of the rest (the row lock, SMTP, the update).

The games are created (invitations, game started) and a few no-op tasks run before the
measured phases, so that the worker is warm.

    python -m benchmarks.emails              # 4 games (about 400 emails) and 1,000 no-op tasks
    python -m benchmarks.emails --quick      # 1 game and 200 no-op tasks
    python -m benchmarks.emails --json
"""

from __future__ import annotations

import argparse
import email
import json
import random
import socket
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from benchmarks.harness import (
    DEFAULT_DATABASE,
    Api,
    drop_database,
    log,
    median,
    new_game,
    new_players,
    play,
    process_cpu,
    ratio,
    recreate_database,
    setup_django,
    site_env,
    subprocess_in_session,
    table,
    wait_until,
)

REDIS_URL = "redis://127.0.0.1:6379/14"  # this benchmark's own database on the shared Redis (flushed)
TIMEOUT_S = 300.0


class Inbox:
    """An aiosmtpd handler that counts the messages it accepts by Message-ID."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.ids: Counter[str] = Counter()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # aiosmtpd's hook
        message_id = email.message_from_bytes(envelope.original_content or envelope.content)["Message-ID"]
        with self.lock:
            self.ids[str(message_id)] += 1
        return "250 OK"

    def received(self) -> int:
        with self.lock:
            return sum(self.ids.values())


def all_delivered(inbox: Inbox) -> bool:
    from notifications.models import Notification

    pending = Notification.objects.filter(status=Notification.Status.PENDING).exists()
    return not pending and inbox.received() >= Notification.objects.count()


def check_once(inbox: Inbox) -> list[str]:
    """What is wrong with the deliveries: rows not sent, emails missing or duplicated."""
    from notifications.models import Notification

    rows = list(Notification.objects.all())
    problems = [f"notification {n.pk} ({n.kind}) is {n.status}" for n in rows if n.status != "sent"]
    expected = Counter(n.message_id for n in rows)
    with inbox.lock:
        if inbox.ids != expected:
            missing, extra = expected - inbox.ids, inbox.ids - expected
            problems.append(f"missing {sum(missing.values())}, duplicated or unknown {sum(extra.values())}")
    return problems


def build_alone(count: int) -> float:
    """Median CPU µs, in this process, to build a turn email's message and its bytes."""
    from notifications.emails import build_message
    from notifications.models import Kind, Notification

    costs = []
    for notification in Notification.objects.filter(kind=Kind.YOUR_TURN).order_by("pk")[:count]:
        start = time.thread_time_ns()
        build_message(notification).message().as_bytes()
        costs.append(time.thread_time_ns() - start)
    return median(costs) / 1000


def measure(args: argparse.Namespace, log_path: Path, pid: int, inbox: Inbox) -> dict[str, Any]:
    from manhattan_site.celery import app
    from notifications.models import Notification

    api, rng = Api(), random.Random(args.seed)
    players = new_players(4)
    games = [new_game(api, players) for _ in range(args.games)]

    def noops_done() -> int:  # the worker logs each task it ran (at INFO)
        with log_path.open() as worker_log:
            return sum("celery.accumulate[" in line and " succeeded " in line for line in worker_log)

    for _ in range(20):
        app.send_task("celery.accumulate", args=(1,))
    wait_until(lambda: all_delivered(inbox) and noops_done() >= 20, TIMEOUT_S, "the warm-up")

    before_rows, cpu, start = Notification.objects.count(), process_cpu(pid), time.monotonic()
    moves = sum(play(api, game, players, rng) for game in games)
    wait_until(lambda: all_delivered(inbox), TIMEOUT_S, "every email")
    emails = Notification.objects.count() - before_rows
    email_cpu, email_s = process_cpu(pid) - cpu, time.monotonic() - start
    problems = check_once(inbox)

    cpu, start = process_cpu(pid), time.monotonic()
    for _ in range(args.tasks):
        app.send_task("celery.accumulate", args=(1,))
    wait_until(lambda: noops_done() >= 20 + args.tasks, TIMEOUT_S, "the no-op tasks")
    task_cpu, task_s = process_cpu(pid) - cpu, time.monotonic() - start

    per_email, per_task = email_cpu / emails * 1e6, task_cpu / args.tasks * 1e6
    build = build_alone(200)
    return {
        "games": len(games),
        "moves": moves,
        "emails": emails,
        "received": inbox.received(),
        "problems": problems,
        "worker_cpu_per_email_us": round(per_email),
        "worker_cpu_per_noop_task_us": round(per_task),
        "build_alone_us": round(build),
        "email_vs_noop_task": ratio(per_email, per_task),
        "email_vs_build_alone": ratio(per_email, build),
        "emails_per_worker_cpu_s": round(1e6 / per_email),
        "seconds": {"emails": round(email_s, 1), "noop_tasks": round(task_s, 1)},
    }


def report(r: dict[str, Any]) -> str:
    rows = [
        ["worker CPU per email ÷ per no-op task", f"{r['email_vs_noop_task']:.1f}×"],
        ["worker CPU per email ÷ building the message alone", f"{r['email_vs_build_alone']:.1f}×"],
        ["worker CPU per delivered email", f"{r['worker_cpu_per_email_us']:,} µs"],
        ["worker CPU per no-op task", f"{r['worker_cpu_per_noop_task_us']:,} µs"],
        ["building one turn email alone (this process)", f"{r['build_alone_us']:,} µs"],
        ["emails per second of worker CPU", f"{r['emails_per_worker_cpu_s']:,}"],
    ]
    head = (
        f"Emails: {r['emails']} written by {r['moves']} moves of {r['games']} games, {r['received']} received,"
        f" {'each exactly once' if not r['problems'] else 'PROBLEMS: ' + '; '.join(r['problems'][:5])}"
    )
    return head + "\n\n" + table(["Figure", "Measured"], rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--games", type=int, help="4-player games played to the end (4; 1 with --quick)")
    parser.add_argument("--tasks", type=int, help="no-op tasks (1,000; 200 with --quick)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="a smoke run")
    parser.add_argument("--json", action="store_true", help="the results as JSON on stdout")
    parser.add_argument("--database-url", default=DEFAULT_DATABASE + "_emails", help="scratch (dropped)")
    parser.add_argument("--redis-url", default=REDIS_URL, help="the broker, a Redis database of its own (flushed)")
    args = parser.parse_args(argv)
    args.games = args.games or (1 if args.quick else 4)
    args.tasks = args.tasks or (200 if args.quick else 1000)

    import redis
    from aiosmtpd.controller import Controller

    redis.Redis.from_url(args.redis_url).flushdb()  # tasks left by an earlier run would be delivered now
    recreate_database(args.database_url)
    inbox = Inbox()
    with socket.socket() as probe:  # a free port: aiosmtpd checks that it is up by connecting to it
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    smtp = Controller(inbox, hostname="127.0.0.1", port=port)
    smtp.start()
    try:
        with tempfile.TemporaryDirectory(prefix="bench-emails-") as var_dir:
            env = site_env(
                args.database_url,
                var_dir,
                REDIS_URL=args.redis_url,
                EMAIL_HOST="127.0.0.1",
                EMAIL_PORT=str(port),
                # No post-game review: its worker is not started here, and a finished
                # game's email would wait for it (GAME_REVIEW_EMAIL_WAIT_SECONDS).
                GAME_REVIEW="off",
            )
            setup_django(env)  # migrates, before the worker starts
            log_path = Path(var_dir) / "worker.log"
            command = [sys.executable, "-m", "celery", "-A", "manhattan_site", "worker", "--pool", "solo"]
            command += ["--loglevel", "INFO", "--without-mingle", "--without-gossip", "--without-heartbeat"]
            with subprocess_in_session(command, env, log_path) as worker:
                wait_until(lambda: " ready." in log_path.read_text(), 60, "the worker")
                results = measure(args, log_path, worker.pid, inbox)
    finally:
        smtp.stop()
        if "django.db" in sys.modules:
            from django.db import connections

            connections.close_all()
        drop_database(args.database_url)
    if results["problems"]:
        log("\n".join(results["problems"]))
    print(json.dumps(results, indent=1) if args.json else report(results))
    return 1 if results["problems"] else 0


if __name__ == "__main__":
    sys.exit(main())
