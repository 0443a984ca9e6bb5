"""Faults, the long way: Redis stopped under load, workers SIGKILLed, an SMTP server that refuses
and loses replies, database connections terminated mid-request.

The long versions of ``tests/reliability/test_faults.py`` (docs/reliability.md, "Faults"). All
traffic goes to 127.0.0.1; every loop is bounded in count or time; every process started here
(redis-server, gunicorn, celery workers, each in its own session) is stopped whatever happens.
Each scenario runs on a fresh PostgreSQL database ``rel_faults_<scenario>`` (dropped afterwards;
the name must start with ``rel_``), migrated with ``manage.py migrate`` in a subprocess; this
process runs ``django.setup()`` on it to create games and to check what was stored.

``redis``
    A private ``redis-server`` (no persistence) is the web side's ``REDIS_URL``. gunicorn serves
    the API; a real Celery worker (``--pool prefork --concurrency 2``) delivers to a local aiosmtpd.
    ``--clients`` threads play two-player games over HTTP (each POST an action at the current
    version, computed from the stored log) for ``--phase-seconds`` with Redis up, the same with
    Redis stopped, the same after it restarts (empty: the task messages queued before are lost
    with it). Then the outbox sweep is published to the worker and every email must arrive once.
    Run twice: ``deployed`` (``REDIS_URL`` makes Redis the cache as well, as in production) and
    ``broker-only`` (a settings module that keeps the cache in process memory).
``kill``
    ``--emails`` notifications are written (each enqueued on commit to a private Redis); a
    worker (prefork, 2 processes) delivers them to an SMTP server that takes ``--smtp-delay``
    seconds to answer each message; ``--kills`` times the worker's whole process group is
    SIGKILLed (alternately at a random moment and while the server holds an accepted message)
    and a new worker started; finally the sweep. Every email must arrive; duplicates (all with
    the email's own Message-ID) are counted against the messages in flight at each kill.
``smtp``
    ``--emails`` notifications are delivered by ``sweep_outbox`` passes with the clock moved on
    past each back-off: first with the SMTP port closed, then with a server that answers 451 to
    ``--refuse-rate`` of the messages and, for ``--lose-rate`` of them, accepts the message and
    drops the connection before replying; then with a server that accepts everything. Every
    email must arrive; duplicates must equal the lost replies. A last part keeps the server
    down for ``--outage-hours`` of simulated time to see what the retry limit does.
``db``
    gunicorn with one sync worker (so the persistent database connection is reused, as on a
    small deployment); ``--trials`` times, an action request loses its database connection:
    ``lock`` — terminated while it waits for the game row (the benchmark holds the lock);
    ``insert`` — terminated after its events are inserted, before commit (a trigger on
    ``games_gameevent``, present only in this database, sleeps for a flagged game);
    ``idle`` — the worker's idle connection is terminated between two requests. Each time: what
    the client was told, whether the game is intact, and whether the retry (same
    Idempotency-Key) succeeds and is stored once.

    PYTHONPATH=. .venv/bin/python benchmarks/faults.py                  # every scenario, a few minutes
    PYTHONPATH=. .venv/bin/python benchmarks/faults.py --only kill,smtp  # some of them
    PYTHONPATH=. .venv/bin/python benchmarks/faults.py --quick --json    # a smoke run, results as JSON
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import random
import shutil
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/rel_faults"
SCENARIOS = ("redis", "kill", "smtp", "db")
DELIVERY_TIMEOUT_S = 300.0


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@dataclass
class Config:
    database_url: str
    only: list[str]
    clients: int
    phase_seconds: float
    emails: int
    kills: int
    smtp_delay: float
    refuse_rate: float
    lose_rate: float
    outage_hours: float
    trials: int
    seed: int
    as_json: bool
    redis_modes: list[str]


def parse_args(argv: list[str] | None) -> Config:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL, help="base name; a suffix per scenario")
    parser.add_argument("--only", default=",".join(SCENARIOS), help=f"comma list of {', '.join(SCENARIOS)}")
    parser.add_argument("--clients", type=int, help="redis: client threads (8; 4 with --quick)")
    parser.add_argument("--phase-seconds", type=float, help="redis: seconds before/down/after (20; 5 with --quick)")
    parser.add_argument("--emails", type=int, help="kill, smtp: notifications (300; 40 with --quick)")
    parser.add_argument("--kills", type=int, help="kill: SIGKILLs (6; 2 with --quick)")
    parser.add_argument("--smtp-delay", type=float, default=0.05, help="kill: seconds before each 250 reply")
    parser.add_argument("--refuse-rate", type=float, default=0.5, help="smtp: share of messages answered 451")
    parser.add_argument("--lose-rate", type=float, default=0.05, help="smtp: share accepted but never answered")
    parser.add_argument("--outage-hours", type=float, default=6.0, help="smtp: simulated outage for the retry limit")
    parser.add_argument("--trials", type=int, help="db: faulted requests per kind (20; 4 with --quick)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--redis-modes", default="deployed,broker-only", help="redis: which web-side setups")
    args = parser.parse_args(argv)
    only = [s.strip() for s in args.only.split(",") if s.strip()]
    if unknown := set(only) - set(SCENARIOS):
        parser.error(f"unknown scenarios {sorted(unknown)}")
    if not urlsplit(args.database_url).path.lstrip("/").startswith("rel_"):
        parser.error("the database name must start with rel_ (it is dropped)")
    q = args.quick
    return Config(
        database_url=args.database_url,
        only=only,
        clients=args.clients or (4 if q else 8),
        phase_seconds=args.phase_seconds or (5.0 if q else 20.0),
        emails=args.emails or (40 if q else 300),
        kills=args.kills if args.kills is not None else (2 if q else 6),
        smtp_delay=args.smtp_delay,
        refuse_rate=args.refuse_rate,
        lose_rate=args.lose_rate,
        outage_hours=args.outage_hours,
        trials=args.trials or (4 if q else 20),
        seed=args.seed,
        as_json=args.json,
        redis_modes=[m.strip() for m in args.redis_modes.split(",") if m.strip()],
    )


# --- one database and one Django for the whole run ------------------------------------------------------------


class Site:
    """The scenario's database, this process's Django on it, and the environment of the subprocesses."""

    def __init__(self, base_url: str, scenario: str) -> None:
        from tests.reliability.faultkit import migrate, recreate_database

        parts = urlsplit(base_url)
        self.database_url = urlunsplit(parts._replace(path=f"{parts.path}_{scenario}"))
        self.var_dir = tempfile.mkdtemp(prefix=f"rel-faults-{scenario}-")
        env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DJANGO_SETTINGS_MODULE")}
        env.update(
            DATABASE_URL=self.database_url,
            DJANGO_SETTINGS_MODULE="manhattan_site.settings",
            DJANGO_ENV="development",
            DEBUG="false",
            VAR_DIR=self.var_dir,
            LOG_LEVEL="WARNING",
            THROTTLE_USER="10000000/minute",
            PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep),
        )
        self.env = env
        log(f"[{scenario}] database {self.database_url}: re-creating and migrating")
        recreate_database(self.database_url)
        migrate(env)
        self.use()

    def use(self) -> None:
        """Point this process's Django at the scenario's database (set up once, re-pointed after)."""
        from django.conf import settings

        os.environ.update({k: self.env[k] for k in ("DJANGO_SETTINGS_MODULE", "DJANGO_ENV", "VAR_DIR")})
        os.environ["DATABASE_URL"] = self.database_url
        os.environ["LOG_LEVEL"] = "WARNING"
        if not settings.configured:
            import django

            django.setup()
            from manhattan_site.celery import app

            app.conf.broker_url = "memory://"  # this process enqueues only inside broker_at(...)
        from django.db import connections

        connections.close_all()
        name = urlsplit(self.database_url).path.lstrip("/")
        connections["default"].settings_dict["NAME"] = name
        settings.DATABASES["default"]["NAME"] = name

    def worker_env(self, redis_url: str, smtp_port: int, **extra: str) -> dict[str, str]:
        return {**self.env, "REDIS_URL": redis_url, "EMAIL_HOST": "127.0.0.1", "EMAIL_PORT": str(smtp_port), **extra}

    def worker(self, env: dict[str, str], **kwargs: Any) -> Any:
        from tests.reliability.faultkit import Worker

        return Worker(env, **kwargs)

    def close(self) -> None:
        from django.db import connections

        from tests.reliability.faultkit import drop_database

        connections.close_all()
        drop_database(self.database_url)
        shutil.rmtree(self.var_dir, ignore_errors=True)


def new_game(tag: str) -> tuple[Any, dict[int, str]]:
    """A started two-player game between two new users, and a token per seat."""
    from accounts.models import User
    from accounts.services import create_api_token
    from games import services

    stamp = f"{tag}-{time.monotonic_ns()}"
    users = [User.objects.create_user(email=f"faults-{stamp}-{seat}@example.com") for seat in (0, 1)]
    game = services.create_game(
        creator=users[0],
        options={"players": 2},
        seats=[services.SeatSpec("me"), services.SeatSpec("invite", email=users[1].email)],
    )
    services.join_game(game=game, user=users[1])
    game = services.start_game(game=game, user=users[0])
    return game, {seat: create_api_token(user=u, name="faults").raw for seat, u in enumerate(users)}


def next_move(game_pk: int, rng: random.Random) -> tuple[int, int, dict[str, Any]] | None:
    """(seat to act, version, a request body with a random legal action), or None once the game is over."""
    from tests.reliability.faultkit import legal_move

    move = legal_move(game_pk, rng)
    if move is None:
        return None
    seat, version, action = move
    return seat, version, {"action": action, "expected_version": version}


def log_check() -> dict[str, int]:
    """Over every game: gaps, duplicates and fold mismatches of the stored logs."""
    from django.db import connection

    from games import services
    from games.models import Game

    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT g.id, g.version, count(e.id), coalesce(max(e.seq), 0), count(DISTINCT e.seq)
            FROM games_game g LEFT JOIN games_gameevent e ON e.game_id = g.id GROUP BY g.id, g.version
            """
        )
        rows = cursor.fetchall()
    mismatched = 0
    for game in Game.objects.exclude(status=Game.Status.LOBBY):
        state = services.load_state(game)
        mismatched += state is None or state.seq != game.version
    return {
        "games": len(rows),
        "events": sum(r[2] for r in rows),
        "gaps": sum(1 for _, v, n, top, d in rows if not (n == d == top == v)),
        "duplicates": sum(1 for _, _, n, _, d in rows if n != d),
        "fold_mismatch": mismatched,
    }


def email_check(inbox: Any) -> dict[str, Any]:
    """Notifications against what the SMTP server accepted, by Message-ID."""
    from notifications.models import Notification

    rows = list(Notification.objects.all())
    expected = {n.message_id for n in rows}
    with inbox.lock:
        received = Counter(inbox.ids)
    return {
        "notifications": len(rows),
        "statuses": dict(Counter(n.status for n in rows)),
        "emails_accepted": sum(received.values()),
        "unique_received": len(set(received) & expected),
        "lost": len(expected - set(received)),
        "unexpected": len(set(received) - expected),
        "duplicates": sum(n - 1 for n in received.values() if n > 1),
        "attempts": dict(sorted(Counter(n.attempts for n in rows).items())),
    }


def wait_all_sent(timeout: float, workers: list[Any]) -> bool:
    from notifications.models import Notification
    from tests.reliability.faultkit import wait_until

    def done() -> bool:
        for worker in workers:
            failure = worker.failed_task()
            if failure:
                raise RuntimeError(f"a task failed in the worker:\n{failure}")
        return not Notification.objects.filter(status=Notification.Status.PENDING).exists()

    return wait_until(done, timeout, step=0.5)


def publish_sweep(redis_url: str) -> None:
    from notifications.tasks import sweep_outbox
    from tests.reliability.faultkit import broker_at

    with broker_at(redis_url):
        sweep_outbox.delay()


# --- redis ----------------------------------------------------------------------------------------


def redis_scenario(cfg: Config, site: Site, mode: str) -> dict[str, Any]:
    from django.db import connection

    from tests.reliability.faultkit import Gunicorn, Http, Inbox, PrivateRedis, broker_at, smtp_server

    settings_dir = tempfile.mkdtemp(prefix="rel-settings-")
    web_env = dict(site.env)
    if mode == "broker-only":
        Path(settings_dir, "rel_broker_only_settings.py").write_text(
            "from manhattan_site.settings import *  # noqa: F403\n"
            'CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}\n'
        )
        web_env.update(
            DJANGO_SETTINGS_MODULE="rel_broker_only_settings",
            PYTHONPATH=os.pathsep.join([settings_dir, web_env["PYTHONPATH"]]),
        )
    inbox = Inbox()
    rng = random.Random(cfg.seed)
    records: list[tuple[str, int, int, int, float]] = []  # (phase, status, version before, after, seconds)
    records_lock = threading.Lock()
    phase = {"name": "before"}
    stop = threading.Event()
    redis = PrivateRedis()
    try:
        redis.start()
        with smtp_server(inbox) as smtp_port, broker_at(redis.url):
            tables = [new_game(f"redis-{i}") for i in range(cfg.clients * 2)]
            env = site.worker_env(redis.url, smtp_port)
            web_env.update(REDIS_URL=redis.url, EMAIL_HOST="127.0.0.1", EMAIL_PORT=str(smtp_port))
            with Gunicorn(web_env, workers=3) as server, site.worker(env, pool="prefork", concurrency=2) as worker:
                worker.wait_ready()

                def client(index: int) -> None:
                    http = Http(server.port, timeout=30)
                    mine = tables[index * 2 : index * 2 + 2]
                    local = random.Random(rng.random())
                    try:
                        while not stop.is_set() and mine:
                            game, tokens = mine[0]
                            move = next_move(game.pk, local)
                            if move is None:
                                mine.pop(0)
                                continue
                            seat, version, body = move
                            started = time.perf_counter()
                            try:
                                status, _, content = http.request(
                                    "POST", f"/api/v1/games/{game.public_id}/actions", body,
                                    {"Authorization": f"Bearer {tokens[seat]}"},
                                )  # fmt: skip
                                after = json.loads(content)["version"] if status == 200 else version
                            except OSError:
                                status, after = 0, version
                            with records_lock:
                                records.append((phase["name"], status, version, after, time.perf_counter() - started))
                            if status != 200:
                                time.sleep(0.2)  # a real client backs off after an error
                    finally:
                        http.close()
                        connection.close()

                threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(cfg.clients)]
                for t in threads:
                    t.start()
                try:
                    time.sleep(cfg.phase_seconds)
                    redis.stop()
                    phase["name"] = "down"
                    log(f"[redis {mode}] Redis stopped")
                    time.sleep(cfg.phase_seconds)
                    redis.start()
                    phase["name"] = "after"
                    log(f"[redis {mode}] Redis restarted (empty)")
                    time.sleep(cfg.phase_seconds)
                finally:
                    stop.set()
                    for t in threads:
                        t.join(timeout=60)
                worker_alive = worker.process is not None and worker.process.poll() is None
                worker_exit = None if worker_alive else worker.process.returncode
                if not worker_alive:
                    log(f"[redis {mode}] the worker exited ({worker_exit}):\n{worker.log()[-4000:]}")
                publish_sweep(redis.url)
                delivered = wait_all_sent(DELIVERY_TIMEOUT_S, [worker])
                time.sleep(2.0)  # late duplicates
                server_errors = server.log().count("Internal Server Error")
                server_warnings = server.log().count("could not enqueue")
                worker_errors = worker.log().count("Traceback")
    finally:
        redis.stop()
        shutil.rmtree(settings_dir, ignore_errors=True)

    by_phase: dict[str, Any] = {}
    for name in ("before", "down", "after"):
        mine = [r for r in records if r[0] == name]
        accepted = [r for r in mine if r[1] == 200]
        by_phase[name] = {
            "attempted": len(mine),
            "accepted": len(accepted),
            "statuses": dict(Counter(r[1] for r in mine)),
            "accepted_p50_ms": round(statistics.median([r[4] for r in accepted]) * 1000, 1) if accepted else None,
            "accepted_max_ms": round(max(r[4] for r in accepted) * 1000, 1) if accepted else None,
        }
    from games.models import Game

    events_by_accepted = sum(r[3] - r[2] for r in records if r[1] == 200)
    stored_by_play = sum(v - 1 for v in Game.objects.values_list("version", flat=True))  # 1 = game_created
    out = {
        "mode": mode,
        "phases": by_phase,
        "events_of_accepted_actions": events_by_accepted,
        "events_stored_by_play": stored_by_play,
        "log": log_check(),
        "emails": email_check(inbox),
        "all_sent_in_time": delivered,
        "worker_survived_outage": worker_alive,
        "worker_exit_code": worker_exit,
        "gunicorn_500s_logged": server_errors,
        "gunicorn_enqueue_failures_logged": server_warnings,
        "worker_tracebacks": worker_errors,
    }
    return out


# --- kill -----------------------------------------------------------------------------------------


def write_notifications(count: int, redis_url: str) -> None:
    """``count`` "your turn" emails, each written in its own transaction and enqueued on commit."""
    from notifications import services as outbox
    from notifications.models import Kind
    from tests.reliability.faultkit import broker_at

    with broker_at(redis_url):
        games = [new_game(f"mail-{i}") for i in range(max(1, count // 50))]
        for i in range(count):
            game, _ = games[i % len(games)]
            seat = game.seats.select_related("user").get(index=1)
            outbox.enqueue(
                kind=Kind.YOUR_TURN,
                key=f"faults-{i}",
                email=seat.user.email,
                user=seat.user,
                game=game,
                seat=1,
                context={"seq": game.version},
            )


def kill_scenario(cfg: Config, site: Site) -> dict[str, Any]:
    from notifications.models import Notification
    from tests.reliability.faultkit import Inbox, PrivateRedis, Worker, smtp_server, wait_until

    inbox = Inbox(delay=cfg.smtp_delay)
    rng = random.Random(cfg.seed)
    kills: list[dict[str, Any]] = []
    workers: list[Worker] = []
    started = time.perf_counter()
    with PrivateRedis() as redis, smtp_server(inbox) as smtp_port:
        write_notifications(cfg.emails, redis.url)
        total = Notification.objects.count()
        queued = redis.queue_length()
        env = site.worker_env(redis.url, smtp_port)
        try:
            for k in range(cfg.kills):
                worker = site.worker(env, pool="prefork", concurrency=2, name=f"rel-kill-{k}")
                workers.append(worker)
                worker.start()
                worker.wait_ready()
                base = inbox.accepted
                targeted = k % 2 == 1
                if targeted:  # wait for a message the server holds, accepted but not yet answered
                    wait_until(lambda b=base: inbox.accepted > b + 3 and inbox.in_flight > 0, 60, 0.005)
                else:
                    time.sleep(rng.uniform(0.5, 3.0))
                in_flight = inbox.in_flight
                worker.kill()
                with inbox.lock:
                    accepted_ids = set(inbox.ids)
                sent_ids = {
                    n.message_id for n in Notification.objects.filter(status=Notification.Status.SENT).only("key")
                }
                window = len(accepted_ids - sent_ids)  # accepted by SMTP, never committed as sent: all kills so far
                kills.append(
                    {
                        "kind": "targeted" if targeted else "random",
                        "awaiting_smtp_reply": in_flight,
                        "accepted_not_committed": window - sum(k["accepted_not_committed"] for k in kills),
                        "accepted_so_far": len(accepted_ids),
                        "sent_so_far": len(sent_ids),
                    }
                )
                log(f"[kill] kill {k + 1}: {kills[-1]}")
                worker.cleanup()
            final = site.worker(env, pool="prefork", concurrency=2, name="rel-kill-final")
            workers.append(final)
            final.start()
            final.wait_ready()
            wait_until(lambda: redis.queue_length() == 0, DELIVERY_TIMEOUT_S, 0.5)
            publish_sweep(redis.url)  # for the messages the killed workers held unacknowledged
            delivered = wait_all_sent(DELIVERY_TIMEOUT_S, [final])
            time.sleep(2.0)
        finally:
            for worker in workers:
                worker.cleanup()
    emails = email_check(inbox)
    out = {
        "emails_written": total,
        "tasks_queued": queued,
        "smtp_delay_s": cfg.smtp_delay,
        "kills": kills,
        "window_total": sum(k["accepted_not_committed"] for k in kills),
        "emails": emails,
        "all_sent_in_time": delivered,
        "seconds": round(time.perf_counter() - started, 1),
    }
    return out


# --- smtp -----------------------------------------------------------------------------------------


class FlakyInbox:
    """An SMTP handler that answers 451 to a share of messages and, for another share, takes the
    message and drops the connection without replying (the server crashed after queuing it)."""

    def __init__(self, refuse_rate: float, lose_rate: float, seed: int) -> None:
        from tests.reliability.faultkit import Inbox

        self.base = Inbox()
        self.lock = self.base.lock
        self.ids = self.base.ids
        self.refuse_rate = refuse_rate
        self.lose_rate = lose_rate
        self.rng = random.Random(seed)
        self.refused = 0
        self.lost_replies = 0

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # aiosmtpd's hook name
        from tests.reliability.faultkit import MESSAGE_ID

        draw = self.rng.random()
        if draw < self.refuse_rate:
            self.refused += 1
            return "451 4.3.0 Try again later"
        match = MESSAGE_ID.search(envelope.original_content or envelope.content)
        with self.lock:
            self.ids[match.group(1).decode() if match else ""] += 1
        if draw < self.refuse_rate + self.lose_rate:
            self.lost_replies += 1
            server.transport.close()
            await asyncio.sleep(0.05)
        return "250 OK"

    def accept_all(self) -> None:
        self.refuse_rate = self.lose_rate = 0.0


def smtp_scenario(cfg: Config, site: Site) -> dict[str, Any]:
    from django.test.utils import override_settings
    from django.utils import timezone

    from notifications import services as outbox
    from notifications.models import Notification
    from tests.reliability.faultkit import PrivateRedis, free_port, smtp_server

    with PrivateRedis() as redis:
        write_notifications(cfg.emails, redis.url)  # their tasks stay queued: only sweeps deliver here
    total = Notification.objects.count()
    inbox = FlakyInbox(cfg.refuse_rate, cfg.lose_rate, cfg.seed)
    port = free_port()
    clock = timezone.now()
    passes: list[dict[str, Any]] = []

    def sweep(label: str) -> None:
        nonlocal clock
        clock += timedelta(hours=6)  # past any back-off below the retry limit's
        before = inbox.base.accepted
        sent = outbox.sweep_outbox(now=clock)
        passes.append(
            {
                "pass": label,
                "sent": sent,
                "smtp_accepted": inbox.base.accepted - before,
                "pending": Notification.objects.filter(status=Notification.Status.PENDING).count(),
            }
        )
        log(f"[smtp] {passes[-1]}")

    settings = {"EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend", "EMAIL_HOST": "127.0.0.1"}
    with override_settings(**settings, EMAIL_PORT=port, EMAIL_TIMEOUT=10):
        sweep("port closed")
        with smtp_server(inbox, port=port):
            for n in range(3):
                sweep(f"flaky {n + 1}")
            inbox.accept_all()
            for n in range(3):
                sweep(f"accepting {n + 1}")
                if not passes[-1]["pending"]:
                    break
        time.sleep(1.0)
    main = email_check(inbox)
    main.update(refused_451=inbox.refused, lost_replies=inbox.lost_replies)

    # The retry limit: an outage of cfg.outage_hours, swept every 5 minutes of simulated time.
    from notifications.services import GIVE_UP_AFTER

    Notification.objects.all().delete()
    with PrivateRedis() as redis:
        write_notifications(20, redis.url)
    start = timezone.now()
    sweeps = 0
    all_failed_after_h = None
    sim = {"now": start}
    # deliver() dates the next attempt from timezone.now(): the simulated clock stands in for it.
    simulated = type("SimulatedTimezone", (), {"now": staticmethod(lambda: sim["now"])})
    real_timezone = getattr(outbox, "timezone")  # noqa: B009
    setattr(outbox, "timezone", simulated)  # noqa: B010
    try:
        with override_settings(**settings, EMAIL_PORT=free_port(), EMAIL_TIMEOUT=5):
            while sim["now"] < start + timedelta(hours=cfg.outage_hours) and sweeps < 1000:
                outbox.sweep_outbox(now=sim["now"])
                sweeps += 1
                if all_failed_after_h is None and not Notification.objects.exclude(status="failed").exists():
                    all_failed_after_h = round((sim["now"] - start).total_seconds() / 3600, 2)
                sim["now"] += timedelta(minutes=5)
    finally:
        setattr(outbox, "timezone", real_timezone)  # noqa: B010
    outage = {
        "simulated_hours": cfg.outage_hours,
        "sweeps_every_min": 5,
        "sweeps": sweeps,
        "give_up_after_hours": GIVE_UP_AFTER.total_seconds() / 3600,
        "statuses_after": dict(Counter(Notification.objects.values_list("status", flat=True))),
        "all_failed_after_hours": all_failed_after_h,
    }
    out = {"emails_written": total, "passes": passes, "emails": main, "long_outage": outage}
    return out


# --- db -------------------------------------------------------------------------------------------

TRIGGER_SQL = """
CREATE TABLE rel_fault (game_id bigint PRIMARY KEY);
CREATE FUNCTION rel_fault_pause() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM rel_fault WHERE game_id = NEW.game_id) THEN
        PERFORM pg_sleep(20);
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER rel_fault_pause AFTER INSERT ON games_gameevent FOR EACH ROW EXECUTE FUNCTION rel_fault_pause();
"""


def db_scenario(cfg: Config, site: Site) -> dict[str, Any]:
    import psycopg
    from django.db import connection

    from games.models import GameEvent, IdempotencyKey
    from notifications.models import Notification
    from tests.reliability.faultkit import Gunicorn, Http, wait_until

    admin = psycopg.connect(site.database_url, autocommit=True, connect_timeout=10)
    admin.execute(TRIGGER_SQL)
    rng = random.Random(cfg.seed)
    trials: list[dict[str, Any]] = []

    def backend(where: str) -> int | None:
        own = connection.connection.info.backend_pid if connection.connection else -1
        row = admin.execute(
            f"SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() "
            f"AND pid <> %s AND {where} LIMIT 1",
            [own],
        ).fetchone()
        return int(row[0]) if row else None

    def terminate(pid: int) -> None:
        admin.execute("SELECT pg_terminate_backend(%s)", [pid])
        wait_until(lambda: admin.execute("SELECT 1 FROM pg_stat_activity WHERE pid = %s", [pid]).fetchone() is None, 10)

    with Gunicorn(site.env, workers=1, threads=1) as server:
        http = Http(server.port, timeout=60)
        try:
            game, tokens = new_game("db")
            for number in range(cfg.trials * 3):
                kind = ("lock", "insert", "idle")[number % 3]
                move = next_move(game.pk, rng)
                if move is None:
                    game, tokens = new_game(f"db-{number}")
                    move = next_move(game.pk, rng)
                    assert move is not None
                seat, version, body = move
                path = f"/api/v1/games/{game.public_id}/actions"
                headers = {"Authorization": f"Bearer {tokens[seat]}", "Idempotency-Key": f"db-{number}"}
                mails = Notification.objects.filter(game=game).count()
                answer: dict[str, Any] = {}

                def send(answer: dict[str, Any] = answer, path: str = path, body: Any = body, headers: Any = headers):
                    try:
                        answer["status"], answer["headers"], answer["content"] = http.request(
                            "POST", path, body, headers
                        )
                    except OSError as error:
                        answer["status"], answer["headers"], answer["content"] = 0, {}, repr(error).encode()

                injected = False
                if kind == "idle":
                    # Terminate the worker's idle persistent connection, then send the request.
                    pid = backend("state = 'idle'")
                    if pid is not None:
                        terminate(pid)
                        injected = True
                    send()
                elif kind == "lock":
                    with psycopg.connect(site.database_url, connect_timeout=10) as holder:
                        holder.execute("SELECT id FROM games_game WHERE id = %s FOR UPDATE", [game.pk])
                        sender = threading.Thread(target=send, daemon=True)
                        sender.start()
                        wait_until(lambda: backend("wait_event_type = 'Lock'") is not None, 20)
                        pid = backend("wait_event_type = 'Lock'")
                        if pid is not None:
                            terminate(pid)
                            injected = True
                        holder.rollback()
                        sender.join(timeout=60)
                else:  # insert
                    admin.execute("INSERT INTO rel_fault VALUES (%s)", [game.pk])
                    sender = threading.Thread(target=send, daemon=True)
                    sender.start()
                    wait_until(lambda: backend("wait_event = 'PgSleep'") is not None, 20)
                    pid = backend("wait_event = 'PgSleep'")
                    if pid is not None:
                        terminate(pid)
                        injected = True
                    admin.execute("DELETE FROM rel_fault")
                    sender.join(timeout=60)

                game.refresh_from_db()
                faulted_status = answer.get("status", 0)
                intact = list(
                    GameEvent.objects.filter(game=game).order_by("seq").values_list("seq", flat=True)
                ) == list(range(1, game.version + 1))
                stored_after_fault = game.version > version
                new_mails = Notification.objects.filter(game=game).count() - mails
                key_stored = IdempotencyKey.objects.filter(game=game, key=f"db-{number}").exists()
                # The client retries with the same key.
                retry_status, _, retry_content = http.request("POST", path, body, headers)
                game.refresh_from_db()
                retry_version = json.loads(retry_content).get("version") if retry_status == 200 else None
                trials.append(
                    {
                        "kind": kind,
                        "injected": injected,
                        "status": faulted_status,
                        "problem_json": str(answer.get("headers", {}).get("Content-Type", "")).startswith(
                            "application/problem+json"
                        ),
                        "retry_after": "Retry-After" in answer.get("headers", {}),
                        "intact": intact,
                        "stored_despite_error": stored_after_fault and faulted_status != 200,
                        "emails_of_failed_move": new_mails if faulted_status != 200 else 0,
                        "key_stored_after_fault": key_stored and faulted_status != 200,
                        "retry_status": retry_status,
                        "retry_stored_once": retry_version == game.version and game.version > version,
                    }
                )
        finally:
            http.close()
            tracebacks = server.log().count("Internal Server Error")
    admin.close()
    summary: dict[str, Any] = {}
    for kind in ("lock", "insert", "idle"):
        mine = [t for t in trials if t["kind"] == kind]
        summary[kind] = {
            "trials": len(mine),
            "injected": sum(t["injected"] for t in mine),
            "statuses": dict(Counter(t["status"] for t in mine)),
            "problem_json": sum(t["problem_json"] for t in mine),
            "with_retry_after": sum(t["retry_after"] for t in mine),
            "game_intact": sum(t["intact"] for t in mine),
            "stored_despite_error": sum(t["stored_despite_error"] for t in mine),
            "emails_of_failed_moves": sum(t["emails_of_failed_move"] for t in mine),
            "retry_statuses": dict(Counter(t["retry_status"] for t in mine)),
            "retry_stored_once": sum(t["retry_stored_once"] for t in mine),
        }
    out = {"by_kind": summary, "log": log_check(), "gunicorn_500s_logged": tracebacks}
    return out


# --- main -----------------------------------------------------------------------------------------


def report(results: dict[str, Any]) -> str:
    lines = [
        f"Faults (Python {results['environment']['python']}, {results['environment']['cpus']} CPUs, "
        f"load average {results['environment']['load_before']:.1f} before)"
    ]
    for mode in ("deployed", "broker-only"):
        r = results.get(f"redis {mode}")
        if not r:
            continue
        lines.append(f"redis ({mode}):")
        for name, p in r["phases"].items():
            lines.append(
                f"  {name:6} attempted {p['attempted']:4}, accepted {p['accepted']:4}, statuses {p['statuses']}, "
                f"accepted p50 {p['accepted_p50_ms']} ms, max {p['accepted_max_ms']} ms"
            )
        e = r["emails"]
        lines.append(
            f"  events of accepted actions {r['events_of_accepted_actions']} = stored by play "
            f"{r['events_stored_by_play']}; log {r['log']}"
        )
        lines.append(
            f"  emails: {e['notifications']} written, {e['unique_received']} received, lost {e['lost']}, "
            f"duplicates {e['duplicates']}, statuses {e['statuses']}; worker survived: {r['worker_survived_outage']}; "
            f"500s logged by gunicorn {r['gunicorn_500s_logged']}, soft enqueue failures "
            f"{r['gunicorn_enqueue_failures_logged']}, worker tracebacks {r['worker_tracebacks']}"
        )
    if r := results.get("kill"):
        e = r["emails"]
        lines.append(
            f"kill: {r['emails_written']} emails, SMTP reply after {r['smtp_delay_s']} s, {len(r['kills'])} kills"
        )
        for k in r["kills"]:
            lines.append(f"  {k}")
        lines.append(
            f"  received {e['unique_received']}/{e['notifications']}, lost {e['lost']}, duplicates {e['duplicates']} "
            f"(accepted, not committed at the kills: {r['window_total']}), attempts {e['attempts']}, {r['seconds']} s"
        )
    if r := results.get("smtp"):
        e = r["emails"]
        lines.append(f"smtp: {r['emails_written']} emails")
        for p in r["passes"]:
            lines.append(f"  {p}")
        lines.append(
            f"  received {e['unique_received']}/{e['notifications']}, lost {e['lost']}, duplicates {e['duplicates']} "
            f"(lost replies {e['lost_replies']}), 451s {e['refused_451']}, attempts {e['attempts']}"
        )
        lines.append(f"  long outage: {r['long_outage']}")
    if r := results.get("db"):
        lines.append("db:")
        for kind, s in r["by_kind"].items():
            lines.append(f"  {kind:6} {s}")
        lines.append(f"  log {r['log']}; 500s logged by gunicorn {r['gunicorn_500s_logged']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    here = str(Path(__file__).resolve().parent)
    sys.path[:] = [str(ROOT)] + [p for p in sys.path if p and str(Path(p).resolve()) not in (here, str(ROOT))]
    cfg = parse_args(argv)
    results: dict[str, Any] = {
        "environment": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
            "load_before": os.getloadavg()[0],
        },
        "config": {k: v for k, v in cfg.__dict__.items() if k != "as_json"},
    }
    for scenario in cfg.only:
        started = time.perf_counter()
        runs = [(f"redis {m}", m) for m in cfg.redis_modes] if scenario == "redis" else []
        for name, mode in runs or [(scenario, "")]:
            site = None
            try:
                site = Site(cfg.database_url, name.replace(" ", "_").replace("-", "_"))
                if scenario == "redis":
                    results[name] = redis_scenario(cfg, site, mode)
                elif scenario == "kill":
                    results[name] = kill_scenario(cfg, site)
                elif scenario == "smtp":
                    results[name] = smtp_scenario(cfg, site)
                else:
                    results[name] = db_scenario(cfg, site)
            except Exception as error:  # one scenario's crash is reported; the others still run
                log(f"[{name}] FAILED: {error!r}")
                results[f"{name} error"] = repr(error)[:3000]
            finally:
                if site is not None:
                    site.close()
        log(f"[{scenario}] {time.perf_counter() - started:.0f} s")
    results["environment"]["load_after"] = os.getloadavg()[0]
    if cfg.as_json:
        print(json.dumps(results, indent=2, default=str))
    else:
        print(report(results))
    return 0


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(main())
