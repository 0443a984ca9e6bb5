"""Benchmark notifications: turn emails through a real Celery worker, and the reminder sweep.

Everything runs against 127.0.0.1 only, bounded in time and count, and the
subprocesses are stopped on the way out whatever happens.

1. **Turn emails per second.** A fresh PostgreSQL database (``manhattan_mailbench``
   by default; dropped and re-created, so its name must contain "bench") is
   migrated with ``manage.py migrate`` in a subprocess. In this process
   (``django.setup()`` with ``REDIS_URL`` = Redis db 14 and ``EMAIL_HOST`` = a
   local aiosmtpd server started here), 4-player games between four new users
   are created, joined and started through ``games.services`` and played with
   the engine's random bot through ``games.services.submit_action``, so the
   "your turn" notifications are the ones the application itself writes
   (``record_game_notifications`` → ``enqueue``), each for the seat to act, at
   every stage of a game (a game is stopped before it ends). The first N are
   the benchmark's emails. The task messages the application published while
   they were written are purged from Redis. Then, for each worker setting
   (``--pools``), the N rows are set back to pending, a real worker is started
   (``python -m celery -A manhattan_site worker --pool P --concurrency C``) and
   warmed up on a few other notifications, and N ``deliver_notification`` task
   messages are published to Redis (``apply_async`` on one connection, in a
   shuffled order) while it runs. The figure is N divided by the time from the
   first publish until the SMTP server has received the N-th email (target >= 100
   emails/s). Afterwards every one of the N rows must be ``sent`` with one
   attempt, and the SMTP server must have received each Message-ID exactly once.
   An in-process breakdown follows: for a sample of the same notifications, the
   time of ``email_context`` (state, view and legal actions), of
   ``build_message`` (context plus the three templates), of ``message.send()``
   (MIME plus a new SMTP connection per email), and of the whole ``deliver()``
   (which, like the worker, reuses its SMTP connection, see
   ``notifications/mailer.py``); and a cProfile of ``deliver()``.
2. **The reminder sweep over 100,000 active games.** ``Game`` rows (status
   active, one human seat to act and one other, a realistic reminder policy)
   are bulk-created with ``next_reminder_at`` spread evenly over the next 30
   days (in a shuffled order), and ``ANALYZE``d. ``send_due_reminders(now=...)``
   is timed once with nothing due and (``--sweep-repeats`` times, the games
   put back in between) with 1 % due (``now`` = start + 0.3 days: 1,000 games,
   which is also the sweep's limit); target <= 2 s. ``time_out_absent_players``
   is timed with nothing due. The due-games queries are captured as the
   services run them and shown with ``EXPLAIN (ANALYZE, BUFFERS)``, to check
   that the partial indexes ``game_reminder_due`` and ``game_timeout_due`` are
   used. The reminders' task messages (published on commit, as in production)
   are purged afterwards. The target is for 1,000 due games; with another
   number due (``--quick``, ``--games``, ``--due-share``) it is scaled (2 ms a game).

The machine may be shared, so wall-clock figures move with the neighbours'
load. Each run therefore also prints CPU time: of the worker's process tree per
email (and the rate that CPU cost allows on idle cores), of this process (the
SMTP server's side), of PostgreSQL; and for the sweep, of this process and of
its PostgreSQL backend (their sum bounds an idle machine's sweep from below).

    python benchmarks/notifications.py                 # full run: N = 2,000, 100,000 games; several minutes
    python benchmarks/notifications.py --quick         # smoke run, about a minute: N = 100, 5,000 games
    python benchmarks/notifications.py --json          # machine-readable results on stdout
    python benchmarks/notifications.py --pools prefork:2,solo:1,threads:4
    python benchmarks/notifications.py --profile       # also print the top functions of deliver()
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import json
import os
import platform
import pstats
import random
import re
import resource
import secrets
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/manhattan_mailbench"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/14"
LOCAL_HOSTS = ("127.0.0.1", "localhost")
TARGET_EMAILS_PER_S = 100.0
TARGET_SWEEP_S = 2.0
SWEEP_TARGET_DUE = 1000  # the target is for a sweep of 1,000 due games
PLAYERS = 4
MAX_ACTIONS_PER_GAME = 96  # a 4-player game takes about 108 decisions: stop before it ends
REMINDER_SPREAD = timedelta(days=30)
EMAIL_KINDS = ("your_turn", "reminder")
TEMPLATE_SUFFIXES = ("-subject.txt", "-body.txt", "-body.html")
MESSAGE_ID = re.compile(rb"^Message-ID:\s*(<[^>\r\n]+>)", re.IGNORECASE | re.MULTILINE)
LINGER_S = 2.0  # after the last email, how long to keep listening for duplicates
QUIET_CORES = 0.5  # "quiet": the rest of the machine keeps less than this busy


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# --- configuration ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Config:
    database_url: str
    redis_url: str
    emails: int
    warmup: int
    pools: list[tuple[str, int, int | None]]  # (pool, concurrency, prefetch multiplier or None = settings)
    games: int
    due_share: float
    sweep_repeats: int
    breakdown: int
    wait_templates: float
    keep_database: bool
    skip_emails: bool
    skip_reminders: bool
    profile: bool
    as_json: bool
    quick: bool
    seed: int
    quiet_wait: float


def parse_pools(text: str) -> list[tuple[str, int, int | None]]:
    pools = []
    for item in text.split(","):
        parts = item.strip().split(":")
        if not parts[0]:
            continue
        pool = parts[0]
        if pool not in ("prefork", "solo", "threads"):
            raise ValueError(f"unknown pool {pool!r} (prefork, solo or threads)")
        concurrency = int(parts[1]) if len(parts) > 1 else 1
        prefetch = int(parts[2]) if len(parts) > 2 else None
        if concurrency < 1 or concurrency > 16 or (prefetch is not None and not 1 <= prefetch <= 64):
            raise ValueError(f"bad pool setting {item!r}")
        pools.append((pool, 1 if pool == "solo" else concurrency, prefetch))
    if not pools:
        raise ValueError("no worker setting given")
    return pools


def pool_label(pool: str, concurrency: int, prefetch: int | None) -> str:
    label = pool if pool == "solo" else f"{pool} -c {concurrency}"
    return label + (f" --prefetch-multiplier {prefetch}" if prefetch else "")


def parse_args(argv: list[str] | None) -> Config:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smoke run, about a minute: N = 100, 5,000 games")
    parser.add_argument("--json", action="store_true", help="print the results as JSON on stdout")
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL, help="PostgreSQL database, dropped first")
    parser.add_argument("--redis-url", default=DEFAULT_REDIS_URL, help="Redis database for the broker (flushed)")
    parser.add_argument("--emails", type=int, help="N turn emails delivered per worker setting (2000; 100 --quick)")
    parser.add_argument(
        "--pools",
        help="worker settings tried, pool:concurrency[:prefetch multiplier] separated by commas"
        " (prefork:2,solo:1,threads:4,prefork:4; prefork:2 with --quick)",
    )
    parser.add_argument("--games", type=int, help="active games of the reminder sweep (100000; 5000 --quick)")
    parser.add_argument("--due-share", type=float, default=0.01, help="share of games due at the sweep (0.01)")
    parser.add_argument("--sweep-repeats", type=int, help="timed sweeps with games due (3; 1 --quick)")
    parser.add_argument("--breakdown", type=int, help="emails in the in-process breakdown (100; 20 --quick)")
    parser.add_argument(
        "--wait-templates", type=float, default=300.0, help="seconds to wait for missing email templates (300)"
    )
    parser.add_argument("--keep-database", action="store_true", help="do not drop the database at the end")
    parser.add_argument("--skip-emails", action="store_true", help="leave out part 1 (the worker)")
    parser.add_argument("--skip-reminders", action="store_true", help="leave out part 2 (the reminder sweep)")
    parser.add_argument("--profile", action="store_true", help="print the top functions of deliver() by own time")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random moves and orders")
    parser.add_argument(
        "--quiet-wait",
        type=float,
        help="before each timed part, wait up to this many seconds for the rest of the machine to use less than"
        f" {QUIET_CORES} core (180; 0 with --quick)",
    )
    args = parser.parse_args(argv)
    for url in (args.database_url, args.redis_url):
        if urlsplit(url).hostname not in LOCAL_HOSTS:
            parser.error(f"only 127.0.0.1 is allowed: {url}")
    if "bench" not in urlsplit(args.database_url).path:
        parser.error("the database is dropped: its name must contain 'bench'")
    try:
        pools = parse_pools(args.pools or ("prefork:2" if args.quick else "prefork:2,solo:1,threads:4,prefork:4"))
    except ValueError as error:
        parser.error(str(error))
    emails = args.emails or (100 if args.quick else 2000)
    games = args.games or (5_000 if args.quick else 100_000)
    if not 1 <= emails <= 20_000 or not 100 <= games <= 1_000_000 or not 0 < args.due_share < 1:
        parser.error("--emails must be 1..20000, --games 100..1000000, --due-share in (0, 1)")
    return Config(
        database_url=args.database_url,
        redis_url=args.redis_url,
        emails=emails,
        warmup=8,
        pools=pools,
        games=games,
        due_share=args.due_share,
        sweep_repeats=max(1, min(args.sweep_repeats or (1 if args.quick else 3), 10)),
        breakdown=max(1, min(args.breakdown or (20 if args.quick else 100), emails)),
        wait_templates=max(0.0, args.wait_templates),
        keep_database=args.keep_database,
        skip_emails=args.skip_emails,
        skip_reminders=args.skip_reminders,
        profile=args.profile,
        as_json=args.json,
        quick=args.quick,
        seed=args.seed,
        quiet_wait=max(0.0, args.quiet_wait if args.quiet_wait is not None else (0.0 if args.quick else 180.0)),
    )


def site_env(cfg: Config, var_dir: str, smtp_port: int) -> dict[str, str]:
    """The environment of the worker and of the Django set up in this process."""
    env = {k: v for k, v in os.environ.items() if k not in ("DJANGO_SETTINGS_MODULE", "DJANGO_ENV")}
    env.update(
        DATABASE_URL=cfg.database_url,
        REDIS_URL=cfg.redis_url,
        EMAIL_HOST="127.0.0.1",
        EMAIL_PORT=str(smtp_port),
        DJANGO_SETTINGS_MODULE="manhattan_site.settings",
        DJANGO_ENV="development",
        DEBUG="false",  # as in production: no query log, no Celery warning about DEBUG
        SECRET_KEY="bench-" + secrets.token_urlsafe(32),
        VAR_DIR=var_dir,
        LOG_LEVEL="WARNING",
        PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
    )
    return env


def missing_templates() -> list[str]:
    """Email templates that do not exist yet (project templates/ or an app's templates/)."""
    places = [ROOT / "templates" / "emails", *(p / "templates" / "emails" for p in ROOT.iterdir() if p.is_dir())]
    missing = []
    for kind in EMAIL_KINDS:
        for suffix in TEMPLATE_SUFFIXES:
            name = f"{kind}{suffix}"
            if not any((place / name).is_file() for place in places):
                missing.append(f"emails/{name}")
    return missing


def wait_for_templates(seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while True:
        missing = missing_templates()
        if not missing:
            return
        if time.monotonic() > deadline:
            raise SystemExit(f"email templates still missing after {seconds:.0f} s: {', '.join(missing)}")
        log(f"waiting for email templates ({len(missing)} missing, e.g. {missing[0]}) ...")
        time.sleep(min(20.0, max(1.0, deadline - time.monotonic())))


# --- database and broker -----------------------------------------------------------------------------------------


def flush_broker(redis_url: str) -> int:
    """Empty the benchmark's own Redis database (queued task messages, cache); returns the keys it held."""
    import redis

    client = redis.Redis.from_url(redis_url, socket_timeout=10)
    try:
        keys = int(client.dbsize())
        client.flushdb()
        return keys
    finally:
        client.close()


def queued_messages(redis_url: str) -> int:
    import redis

    client = redis.Redis.from_url(redis_url, socket_timeout=10)
    try:
        return int(client.llen("celery"))
    finally:
        client.close()


# --- the SMTP server ---------------------------------------------------------------------------------------------


class Inbox:
    """aiosmtpd handler: counts every message by its Message-ID and notes when it arrived."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.ids: Counter[str] = Counter()
        self.times: list[float] = []
        self.sample: bytes | None = None

    def reset(self) -> None:
        with self.lock:
            self.ids = Counter()
            self.times = []
            self.sample = None

    @property
    def count(self) -> int:
        return len(self.times)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # aiosmtpd's hook name
        now = time.perf_counter()
        content = envelope.original_content or envelope.content
        match = MESSAGE_ID.search(content)
        with self.lock:
            self.ids[match.group(1).decode() if match else ""] += 1
            self.times.append(now)
            if self.sample is None:
                self.sample = bytes(content)
        return "250 OK"


# --- CPU accounting (Linux /proc) --------------------------------------------------------------------------------


def cpu_snapshot(root_pid: int | None) -> dict[str, float]:
    """CPU seconds so far of the worker's process tree, of all postgres processes, and of this process."""
    from tests.reliability.faultkit import processes

    procs = processes()
    tree: set[int] = set()
    if root_pid is not None and root_pid in procs:
        tree.add(root_pid)
        grew = True
        while grew:
            grew = False
            for pid, (_, ppid, _) in procs.items():
                if ppid in tree and pid not in tree:
                    tree.add(pid)
                    grew = True
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return {
        "worker": sum(procs[p][2] for p in tree),
        "postgres": sum(cpu for comm, _, cpu in procs.values() if comm.startswith("postgres")),
        "benchmark": usage.ru_utime + usage.ru_stime,
    }


def cpu_delta(before: dict[str, float], after: dict[str, float], seconds: float) -> dict[str, Any]:
    spent = {k: round(after[k] - before[k], 2) for k in before}
    return {"cpu_s": spent, "cores": {k: round(v / seconds, 2) for k, v in spent.items()} if seconds > 0 else {}}


def wait_for_quiet(limit_s: float) -> dict[str, float]:
    """Wait (up to ``limit_s``) until the rest of the machine keeps fewer than QUIET_CORES cores busy
    for two seconds running: the machine is shared, and a neighbour's test suite halves a 2-core run."""
    from tests.reliability.faultkit import busy_cores

    started = time.monotonic()
    busy = busy_cores(2.0)
    while busy >= QUIET_CORES and time.monotonic() - started < limit_s:
        log(f"  waiting for a quieter machine ({busy} cores busy) ...")
        time.sleep(5.0)
        busy = busy_cores(2.0)
    return {"waited_s": round(time.monotonic() - started, 1), "cores_busy": busy}


# --- part 1: turn emails through a real worker -------------------------------------------------------------------


def create_turn_notifications(count: int, seed: int) -> tuple[list[int], dict[str, Any]]:
    """Play games through games.services until ``count`` "your turn" notifications exist; their ids in order."""
    from accounts.models import User
    from games import engine
    from games import services as games
    from games.engine.bots import bot_for
    from games.models import Game
    from notifications.models import Kind, Notification, Preference

    rng = random.Random(f"{seed}:moves")
    bot = bot_for("random")
    ids: list[int] = []
    actions = 0
    number = 0
    started = time.perf_counter()
    while len(ids) < count:
        users = [User.objects.create_user(email=f"mail-{number}-{i}@bench.example") for i in range(PLAYERS)]
        Preference.objects.bulk_create(Preference(user=user) for user in users)
        game = games.create_game(
            creator=users[0],
            options={"players": PLAYERS},
            seats=[games.SeatSpec("me")] + [games.SeatSpec("invite", email=u.email) for u in users[1:]],
        )
        for user in users[1:]:
            games.join_game(game=game, user=user)
        game = games.start_game(game=game, user=users[0])
        seated = {seat.index: seat.user for seat in game.seats.select_related("user")}
        state = games.load_state(game)
        result: dict[str, Any] = {}

        def respond(r: Any, result: dict[str, Any] = result) -> tuple[int, dict[str, Any]]:
            result["state"], result["version"] = r.state, r.game.version
            return 200, {}

        version = game.version
        for _ in range(MAX_ACTIONS_PER_GAME):
            if state is None or state.is_finished or state.to_act is None:
                break
            seat = state.to_act
            action = bot(engine.player_view(state, seat), rng)
            games.submit_action(
                game_id=game.public_id, user=seated[seat], action=action, expected_version=version, respond=respond
            )
            state, version = result["state"], result["version"]
            actions += 1
        number += 1
        ids += Notification.objects.filter(game=game, kind=Kind.YOUR_TURN).order_by("pk").values_list("pk", flat=True)
    active = Game.objects.filter(status=Game.Status.ACTIVE).count()
    return ids, {
        "games": number,
        "games_still_active": active,
        "actions": actions,
        "your_turn_notifications": len(ids),
        "seconds": round(time.perf_counter() - started, 1),
    }


def reset_to_pending(ids: list[int]) -> None:
    from django.utils import timezone

    from notifications.models import Notification

    Notification.objects.filter(pk__in=ids).update(
        status=Notification.Status.PENDING, sent=None, attempts=0, last_error="", next_attempt=timezone.now()
    )


def publish(ids: list[int], redis_url: str) -> float:
    """Publish one deliver_notification task message per id on one connection; seconds it took."""
    from manhattan_site.celery import app
    from notifications.tasks import deliver_notification

    started = time.perf_counter()
    with app.connection_for_write(redis_url) as conn:
        for pk in ids:
            deliver_notification.apply_async(args=[pk], connection=conn)
    return time.perf_counter() - started


def log_problems(log_path: Path | None) -> list[str]:
    if log_path is None or not log_path.exists():
        return []
    text = log_path.read_text(errors="replace")
    return [line for line in text.splitlines() if "Traceback" in line or "ERROR" in line or "Error:" in line]


def wait_for(
    condition: Callable[[], bool],
    seconds: float,
    proc: subprocess.Popen[bytes] | None,
    what: str,
    log_path: Path | None = None,
) -> None:
    deadline = time.monotonic() + seconds
    checked = time.monotonic()
    while not condition():
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"the worker exited with {proc.returncode} while waiting for {what}")
        if time.monotonic() - checked > 1.0:
            checked = time.monotonic()
            problems = log_problems(log_path)
            if problems:
                raise RuntimeError(f"the worker logged errors while waiting for {what}: {problems[-1][:300]}")
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {seconds:.0f} s waiting for {what}")
        time.sleep(0.02)


def count_sent(ids: list[int]) -> int:
    from notifications.models import Notification

    return Notification.objects.filter(pk__in=ids, status=Notification.Status.SENT).count()


@contextlib.contextmanager
def celery_worker(
    pool: str, concurrency: int, prefetch: int | None, env: dict[str, str], log_path: Path
) -> Iterator[subprocess.Popen[bytes]]:
    command = [
        sys.executable, "-m", "celery", "-A", "manhattan_site", "worker",
        "--pool", pool, "--concurrency", str(concurrency), "--loglevel", "WARNING",
        "--without-mingle", "--without-gossip", "--without-heartbeat", "-n", f"mailbench-{os.getpid()}@%h",
    ]  # fmt: skip
    if prefetch:
        command += ["--prefetch-multiplier", str(prefetch)]
    with open(log_path, "wb") as log_file:
        proc = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=log_file, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)  # warm shutdown: the main process stops its pool
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)  # its own session: the worker and its children only
                proc.wait(timeout=10)


def check_deliveries(ids: list[int], inbox: Inbox) -> dict[str, Any]:
    """Every notification sent once: status, attempts, and one SMTP message per Message-ID."""
    from notifications.models import Notification

    rows = list(Notification.objects.filter(pk__in=ids))
    expected = {n.message_id for n in rows}
    with inbox.lock:
        seen = Counter(inbox.ids)
    statuses = Counter(n.status for n in rows)
    attempts = Counter(n.attempts for n in rows)
    duplicates = {mid: n for mid, n in seen.items() if n > 1}
    check = {
        "rows": len(rows),
        "statuses": dict(statuses),
        "attempts": {str(k): v for k, v in sorted(attempts.items())},
        "smtp_messages": sum(seen.values()),
        "distinct_message_ids": len(seen),
        "duplicates": len(duplicates),
        "missing": len(expected - set(seen)),
        "unexpected": len(set(seen) - expected),
        "errors": [n.last_error for n in rows if n.last_error][:3],
    }
    check["ok"] = (
        check["rows"] == len(ids)
        and statuses.get(Notification.Status.SENT, 0) == len(ids)
        and attempts.get(1, 0) == len(ids)
        and not duplicates
        and not check["missing"]
        and not check["unexpected"]
        and check["smtp_messages"] == len(ids)
    )
    return check


def check_sample(sample: bytes | None) -> dict[str, Any]:
    from email import message_from_bytes

    if sample is None:
        return {}
    message = message_from_bytes(sample)
    return {
        "bytes": len(sample),
        "multipart": message.is_multipart(),
        "parts": [part.get_content_type() for part in message.walk() if not part.is_multipart()],
        "subject": str(message["Subject"]),
        "has_reply_to": message["Reply-To"] is not None,
        "has_list_unsubscribe": message["List-Unsubscribe"] is not None,
    }


def pct_time(times: list[float], share: float) -> float:
    return times[min(len(times) - 1, max(0, round(share * len(times)) - 1))]


def run_worker(
    cfg: Config,
    setting: tuple[str, int, int | None],
    ids: list[int],
    warm_ids: list[int],
    inbox: Inbox,
    env: dict[str, str],
    log_dir: str,
) -> dict[str, Any]:
    from tests.reliability.faultkit import busy_cores

    pool, concurrency, prefetch = setting
    label = pool_label(pool, concurrency, prefetch)
    n = len(ids)
    reset_to_pending(ids + warm_ids)
    flush_broker(cfg.redis_url)
    inbox.reset()
    quiet = wait_for_quiet(cfg.quiet_wait) if cfg.quiet_wait else None
    background = quiet["cores_busy"] if quiet else busy_cores(1.0)
    log_path = Path(log_dir) / f"worker-{pool}-{concurrency}-{prefetch or 0}.log"
    order = list(ids)
    random.Random(f"{cfg.seed}:order").shuffle(order)
    result: dict[str, Any] = {"setting": label, "pool": pool, "concurrency": concurrency, "prefetch": prefetch}
    result["quiet_wait_s"] = quiet["waited_s"] if quiet else 0.0
    with celery_worker(pool, concurrency, prefetch, env, log_path) as proc:
        boot = time.perf_counter()
        publish(warm_ids, cfg.redis_url)  # waits in Redis until the worker is up; then warms every process
        wait_for(lambda: inbox.count >= len(warm_ids), 120, proc, "the warm-up emails", log_path)
        wait_for(lambda: count_sent(warm_ids) == len(warm_ids), 30, proc, "the warm-up rows to be sent", log_path)
        result["startup_and_warmup_s"] = round(time.perf_counter() - boot, 2)
        inbox.reset()
        before = cpu_snapshot(proc.pid)
        started = time.perf_counter()
        result["publish_s"] = round(publish(order, cfg.redis_url), 3)
        wait_for(lambda: inbox.count >= n, 60 + n / 2, proc, f"{n} emails", log_path)
        with inbox.lock:
            times = sorted(inbox.times)
        elapsed = times[n - 1] - started
        after = cpu_snapshot(proc.pid)
        wait_for(lambda: count_sent(ids) == n, 30, proc, "every row to be marked sent")
        time.sleep(LINGER_S)  # a duplicate would arrive now
        result["worker_alive_at_end"] = proc.poll() is None
    result["emails"] = n
    result["seconds"] = round(elapsed, 3)
    result["emails_per_s"] = round(n / elapsed, 1)
    middle = pct_time(times, 0.9) - pct_time(times, 0.1)
    result["steady_emails_per_s"] = round(0.8 * n / middle, 1) if middle > 0 else None
    result["first_email_s"] = round(times[0] - started, 3)
    result["background_cores_before"] = background
    result.update(cpu_delta(before, after, elapsed))
    result["cpu_ms_per_email"] = {k: round(v * 1000 / n, 2) for k, v in result["cpu_s"].items()}
    worker_ms = result["cpu_ms_per_email"]["worker"]
    # What the worker's own CPU cost allows if it had every core to itself (no PostgreSQL, SMTP or neighbours).
    result["cpu_ceiling_emails_per_s"] = round((os.cpu_count() or 1) * 1000 / worker_ms, 1) if worker_ms > 0 else None
    result["check"] = check_deliveries(ids, inbox)
    result["sample_message"] = check_sample(inbox.sample)
    result["worker_log_problems"] = log_problems(log_path)[:5]
    return result


def _cumtime(stats: pstats.Stats, match: Callable[[str, str], bool]) -> float:
    """Cumulative seconds of the outermost calls of the functions matched by (file, function)."""
    total = 0.0
    for (filename, _, name), (_, _, _, cumulative, callers) in stats.stats.items():  # type: ignore[attr-defined]
        if not match(filename, name):
            continue
        # Only what is not called by another matched function (no double counting of recursion).
        total += cumulative - sum(
            c[3] for (cf, _, cn), c in callers.items() if match(cf, cn) and (cf, cn) != (filename, name)
        )
    return total


PROFILE_PARTS: dict[str, Callable[[str, str], bool]] = {
    "deliver (all)": lambda f, n: n == "deliver" and f.endswith("notifications/services.py"),
    "build_message": lambda f, n: n == "build_message" and f.endswith("notifications/emails.py"),
    "  email_context": lambda f, n: n == "email_context" and f.endswith("notifications/emails.py"),
    "    load_state (DB + fold)": lambda f, n: n == "load_state" and f.endswith("games/services.py"),
    "    player_view + legal_actions": lambda f, n: n in ("player_view", "legal_actions") and "games/engine" in f,
    "    signed links": lambda f, n: n in ("game_url", "unsubscribe_url") and f.endswith("accounts/links.py"),
    "  render_to_string (3 templates)": lambda f, n: n == "render_to_string" and "django/template" in f,
    "message.send (MIME + SMTP)": lambda f, n: n == "send" and f.endswith(("message.py", "notifications/mailer.py")),
    "  SMTP (smtplib)": lambda f, n: n in ("open", "close", "_send") and f.endswith("mail/backends/smtp.py"),
    "SQL (CursorWrapper.execute)": lambda f, n: n in ("execute", "executemany") and f.endswith("db/backends/utils.py"),
}  # fmt: skip


def breakdown(ids: list[int], inbox: Inbox, top: int) -> dict[str, Any]:
    """In this process, on the same notifications: where the time of one email goes."""
    from django.utils import translation

    from notifications import emails, services
    from notifications.models import Notification

    def fetch(pk: int) -> Any:
        return Notification.objects.select_related("user", "game").get(pk=pk)

    emails.build_message(fetch(ids[0]))  # compile the templates once
    timings: dict[str, list[float]] = {"email_context": [], "build_message": [], "send": [], "deliver": []}
    reset_to_pending(ids)
    for pk in ids:
        notification = fetch(pk)
        t0 = time.perf_counter()
        with translation.override(emails._language(notification)):
            emails.email_context(notification)
        t1 = time.perf_counter()
        message = emails.build_message(notification)
        t2 = time.perf_counter()
        message.send()
        t3 = time.perf_counter()
        timings["email_context"].append(t1 - t0)
        timings["build_message"].append(t2 - t1)
        timings["send"].append(t3 - t2)
    for pk in ids:
        t0 = time.perf_counter()
        assert services.deliver(pk)
        timings["deliver"].append(time.perf_counter() - t0)
    ms = {k: round(statistics.median(v) * 1000, 2) for k, v in timings.items()}
    means = {k: round(statistics.fmean(v) * 1000, 2) for k, v in timings.items()}

    reset_to_pending(ids)
    _, captured = capture_sql(lambda: [services.deliver(pk) for pk in ids])
    queries: Counter[str] = Counter(sql_template(q["sql"], 90) for q in captured)
    reset_to_pending(ids)
    profiler = cProfile.Profile()
    profiler.enable()
    for pk in ids:
        services.deliver(pk)
    profiler.disable()
    stats = pstats.Stats(profiler)
    total = _cumtime(stats, PROFILE_PARTS["deliver (all)"]) or 1.0
    parts = {}
    for name, match in PROFILE_PARTS.items():
        seconds = _cumtime(stats, match)
        parts[name] = {"ms": round(seconds * 1000 / len(ids), 3), "share": round(seconds / total, 3)}
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).strip_dirs().sort_stats(pstats.SortKey.TIME).print_stats(top)
    lines = out.getvalue().splitlines()
    start = next((i for i, line in enumerate(lines) if "ncalls" in line), 0)
    inbox.reset()
    return {
        "emails": len(ids),
        "median_ms": ms,
        "mean_ms": means,
        "render_ms_mean": round(means["build_message"] - means["email_context"], 2),
        "deliver_db_and_rest_ms_mean": round(means["deliver"] - means["build_message"] - means["send"], 2),
        "queries_per_email": round(len(captured) / len(ids), 2),
        "sql_ms_per_email": round(sum(float(q["time"]) for q in captured) * 1000 / len(ids), 2),
        "query_templates_per_email": {sql: round(n / len(ids), 2) for sql, n in queries.most_common(15)},
        "one_process_ceiling_per_s": round(1000 / means["deliver"], 1),
        "profile_ms_per_email": parts,
        "top_by_own_time": "\n".join(lines[start:]).rstrip(),
    }


def preflight_deliver(pk: int, inbox: Inbox) -> str | None:
    """deliver() once in this process: its error, or None (the row and the inbox are put back)."""
    from notifications import services

    try:
        sent = services.deliver(pk)
    except Exception as error:
        return f"{type(error).__name__}: {str(error).strip()}"
    finally:
        reset_to_pending([pk])
        inbox.reset()
    return None if sent else "deliver() returned False for a pending notification"


def emails_part(cfg: Config, inbox: Inbox, env: dict[str, str], log_dir: str) -> dict[str, Any]:
    log(f"emails: playing games until {cfg.emails + cfg.warmup} 'your turn' notifications exist ...")
    ids, setup = create_turn_notifications(cfg.emails + cfg.warmup, cfg.seed)
    bench_ids, warm_ids = ids[: cfg.emails], ids[cfg.emails : cfg.emails + cfg.warmup]
    setup["published_by_the_application_then_purged"] = queued_messages(cfg.redis_url)
    flush_broker(cfg.redis_url)
    log(
        f"  {setup['games']} games, {setup['actions']} actions, {setup['your_turn_notifications']} notifications"
        f" in {setup['seconds']} s"
    )
    preflight = preflight_deliver(warm_ids[0], inbox)
    if preflight is not None:
        log(f"  deliver() fails in this process, so it fails in every worker: {preflight}")
        return {"setup": setup, "runs": [], "deliver_error": preflight}
    runs = []
    for setting in cfg.pools:
        log(f"emails: worker {pool_label(*setting)}: {cfg.emails} emails ...")
        try:
            run = run_worker(cfg, setting, bench_ids, warm_ids, inbox, env, log_dir)
        except (RuntimeError, TimeoutError) as error:
            log(f"  failed: {error}")
            runs.append({"setting": pool_label(*setting), "error": str(error)})
            continue
        log(f"  {run['emails_per_s']} emails/s, check {'ok' if run['check']['ok'] else 'FAILED'}")
        runs.append(run)
    log(f"emails: in-process breakdown of {cfg.breakdown} emails ...")
    sample = random.Random(f"{cfg.seed}:sample").sample(bench_ids, cfg.breakdown)
    parts = breakdown(sample, inbox, 25 if cfg.profile else 0)
    flush_broker(cfg.redis_url)
    return {"setup": setup, "runs": runs, "breakdown": parts}


# --- part 2: the reminder sweep ------------------------------------------------------------------------------------


def seed_games(total: int, base: datetime, seed: int) -> dict[str, Any]:
    """``total`` active 2-player games, both seats human, reminders spread over the next 30 days."""
    from accounts.models import User
    from games import engine
    from games.models import Game, Seat
    from notifications.models import Preference

    started = time.perf_counter()
    rng = random.Random(f"{seed}:games")
    users = User.objects.bulk_create(
        [User(email=f"sweep-{i}@bench.example", password="!", display_name=f"sweep {i}") for i in range(2000)],
        batch_size=2000,
    )
    Preference.objects.bulk_create([Preference(user=u) for u in users], batch_size=2000)
    positions = list(range(total))
    rng.shuffle(positions)  # creation order is not reminder order
    batch = 5000
    seats = 0
    for first in range(0, total, batch):
        games = []
        for i in range(first, min(total, first + batch)):
            due = base + REMINDER_SPREAD * ((positions[i] + 0.5) / total)
            since = due - timedelta(hours=24)
            games.append(
                Game(
                    status=Game.Status.ACTIVE,
                    options={"players": 2},
                    engine_version=engine.ENGINE_VERSION,
                    version=20 + i % 80,
                    phase="placement",
                    round=1 + i % 4,
                    to_act_seat=i % 2,
                    turn_since=since,
                    next_reminder_at=due,
                    timeout_at=since + timedelta(hours=7 * 24),
                    creator=users[i % len(users)],
                    started=since - timedelta(hours=i % 200),
                )
            )
        created = Game.objects.bulk_create(games)
        rows = []
        for game in created:
            a = users[game.pk % len(users)]
            b = users[(game.pk * 7 + 1) % len(users)]
            if b.pk == a.pk:
                b = users[(game.pk + 1) % len(users)]
            for index, user in enumerate((a, b)):
                rows.append(
                    Seat(
                        game=game, index=index, user=user, side="abcd"[index], colours=[["red"], ["blue"]][index],
                        joined=game.started,
                    )
                )  # fmt: skip
        Seat.objects.bulk_create(rows)
        seats += len(rows)
    return {"games": total, "seats": seats, "users": len(users), "seconds": round(time.perf_counter() - started, 1)}


def capture_sql(call: Callable[[], Any]) -> tuple[Any, list[dict[str, Any]]]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    saved = connection.queries_log
    connection.queries_log = deque(maxlen=1_000_000)  # Django keeps 9,000; a due sweep runs more
    try:
        with CaptureQueriesContext(connection) as captured:
            value = call()
        return value, list(captured.captured_queries)
    finally:
        connection.queries_log = saved


def backend_cpu_s() -> float:
    """CPU seconds so far of the PostgreSQL backend serving this process's connection (from /proc)."""
    from django.db import connection

    from tests.reliability.faultkit import process_cpu

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    proc = process_cpu(pid)
    return proc[2] if proc else float("nan")


def sql_template(sql: str, width: int) -> str:
    """A query with its literals and numbers elided, cut to ``width`` characters."""
    return re.sub(r"\d+", "N", re.sub(r"'[^']*'", "'…'", sql))[:width]


def explain(sql: str) -> list[str]:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql)
        return [row[0] for row in cursor.fetchall()]


def due_query_sql(now: datetime) -> str:
    """The due-games query exactly as ``send_due_reminders`` builds it (its first chunk), parameters inlined."""
    from django.db import connection, transaction

    from notifications import services

    with transaction.atomic():  # a locking query compiles only inside a transaction
        queryset = services.due_reminders(now, min(services.REMINDER_CHUNK, 1000))
        sql, params = queryset.query.sql_with_params()
    return str(connection.ops.compose_sql(sql, params))  # type: ignore[attr-defined]  # PostgreSQL only


def first_select(captured: list[dict[str, Any]]) -> str:
    """The first SELECT a service ran (BEGIN and the like are logged too)."""
    return next(str(q["sql"]) for q in captured if str(q["sql"]).lstrip().upper().startswith("SELECT"))


def timed(call: Callable[[], Any], repeats: int) -> tuple[Any, list[float]]:
    times = []
    value = None
    for _ in range(repeats):
        started = time.perf_counter()
        value = call()
        times.append(time.perf_counter() - started)
    return value, times


def restore(due: list[tuple[int, datetime, datetime | None]]) -> None:
    """Put the reminded games back as they were before the sweep, and drop its reminders."""
    from games.models import Game
    from notifications.models import Kind, Notification

    Game.objects.bulk_update(
        [Game(pk=pk, next_reminder_at=at, timeout_at=timeout, reminders_sent=0) for pk, at, timeout in due],
        ["next_reminder_at", "timeout_at", "reminders_sent"],
        batch_size=1000,
    )
    Notification.objects.filter(kind=Kind.REMINDER).delete()


def uses_index(plan: list[str], index: str) -> bool:
    return any(index in line and "Index" in line for line in plan)


def reminders_part(cfg: Config) -> dict[str, Any]:
    from django.db import connection
    from django.utils import timezone

    from games.models import Game
    from notifications import services
    from tests.reliability.faultkit import busy_cores

    base = timezone.now().replace(microsecond=0)
    log(f"reminders: bulk-creating {cfg.games:,} active games ...")
    seeded = seed_games(cfg.games, base, cfg.seed)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    log(f"  {seeded['seconds']} s")
    quiet = base - timedelta(minutes=1)  # nothing due
    busy = base + REMINDER_SPREAD * cfg.due_share  # due_share of the games due
    due = list(
        Game.objects.filter(next_reminder_at__lte=busy, status=Game.Status.ACTIVE)
        .order_by("next_reminder_at")
        .values_list("pk", "next_reminder_at", "timeout_at")[:1000]
    )
    expected_due = Game.objects.filter(next_reminder_at__lte=busy, status=Game.Status.ACTIVE).count()

    log("reminders: sweeps with nothing due, timeouts, query plans ...")
    sent, captured = capture_sql(lambda: services.send_due_reminders(now=quiet))
    assert sent == 0, sent
    sweep_sql = first_select(captured)
    same_query = sweep_sql == due_query_sql(quiet)
    _, quiet_times = timed(lambda: services.send_due_reminders(now=quiet), 7)
    moved, captured = capture_sql(lambda: services.time_out_absent_players(now=busy))
    assert moved == 0, moved
    timeout_sql = first_select(captured)
    _, timeout_times = timed(lambda: services.time_out_absent_players(now=busy), 7)
    plans: dict[str, dict[str, Any]] = {
        "due_none": {"sql": sweep_sql, "plan": explain(sweep_sql)},
        "due_share": {"sql": due_query_sql(busy), "plan": explain(due_query_sql(busy))},
        "timeout_none": {"sql": timeout_sql, "plan": explain(timeout_sql)},
    }
    for name, index in (("due_none", "game_reminder_due"), ("due_share", "game_reminder_due")):
        plans[name]["uses_index"] = uses_index(plans[name]["plan"], index)
    plans["timeout_none"]["uses_index"] = uses_index(plans["timeout_none"]["plan"], "game_timeout_due")

    log(f"reminders: {cfg.sweep_repeats} sweep(s) with {len(due)} games due ...")
    machine = wait_for_quiet(cfg.quiet_wait) if cfg.quiet_wait else {"waited_s": 0.0, "cores_busy": busy_cores(1)}
    busy_times: list[float] = []
    client_cpu: list[float] = []
    backend_cpu: list[float] = []
    counts = []
    for _ in range(cfg.sweep_repeats):
        flush_broker(cfg.redis_url)
        b0, c0 = backend_cpu_s(), time.thread_time()
        sent, seconds = timed(lambda: services.send_due_reminders(now=busy), 1)
        c1, b1 = time.thread_time(), backend_cpu_s()
        busy_times += seconds
        client_cpu.append(c1 - c0)
        backend_cpu.append(b1 - b0)
        counts.append(sent)
        restore(due)
    flush_broker(cfg.redis_url)
    sent, captured = capture_sql(lambda: services.send_due_reminders(now=busy))
    sql_s = sum(float(q["time"]) for q in captured)
    restore(due)
    flush_broker(cfg.redis_url)
    profiler = cProfile.Profile()
    profiler.enable()
    services.send_due_reminders(now=busy)
    profiler.disable()
    restore(due)
    flush_broker(cfg.redis_url)
    stats = pstats.Stats(profiler)
    total = _cumtime(stats, lambda f, n: n == "send_due_reminders") or 1.0
    top = ""
    if cfg.profile:
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).strip_dirs().sort_stats(pstats.SortKey.TIME).print_stats(20)
        text = out.getvalue().splitlines()
        top = "\n".join(text[next((i for i, line in enumerate(text) if "ncalls" in line), 0) :]).rstrip()
    shares = {
        "SQL (CursorWrapper.execute)": round(_cumtime(stats, PROFILE_PARTS["SQL (CursorWrapper.execute)"]) / total, 3),
        "publishing the delivery tasks (on commit)": round(
            _cumtime(
                stats,
                lambda f, n: (
                    n in ("_enqueue_delivery", "_enqueue_deliveries") and f.endswith("notifications/services.py")
                ),
            )
            / total,
            3,
        ),
    }
    templates: dict[str, list[float]] = {}
    for query in captured:
        entry = templates.setdefault(sql_template(query["sql"], 100), [0, 0.0])
        entry[0] += 1
        entry[1] += float(query["time"]) * 1000
    return {
        "seeded": seeded,
        "quiet_before_due_sweeps": machine,
        "due_at_sweep": expected_due,
        "limit": 1000,
        "sweep_quiet_s": [round(t, 4) for t in quiet_times],
        "sweep_due_s": [round(t, 3) for t in busy_times],
        "sweep_due_sent": counts,
        "sweep_due_client_cpu_s": [round(t, 3) for t in client_cpu],
        "sweep_due_backend_cpu_s": [round(t, 3) for t in backend_cpu],
        "timeout_quiet_s": [round(t, 4) for t in timeout_times],
        "queries_in_due_sweep": len(captured),
        "queries_per_reminder": round(len(captured) / max(1, len(due)), 2),
        "sql_seconds_in_due_sweep": round(sql_s, 3),
        "profile_shares_of_due_sweep": shares,
        "query_templates": {
            sql: {"count": int(n), "ms": round(ms, 1)}
            for sql, (n, ms) in sorted(templates.items(), key=lambda item: -item[1][1])[:12]
        },
        "sweep_sql_matches_services": same_query,
        "top_by_own_time": top,
        "plans": plans,
    }


# --- report --------------------------------------------------------------------------------------------------------


def figure(value: float | None, unit: str, target: float, at_least: bool) -> dict[str, Any]:
    met = value is not None and (value >= target if at_least else value <= target)
    return {"value": value, "unit": unit, "target": target, "comparison": ">=" if at_least else "<=", "met": met}


def environment() -> dict[str, Any]:
    try:
        load: list[float] | None = [round(x, 2) for x in os.getloadavg()]
    except OSError:  # pragma: no cover - not on every platform
        load = None
    return {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "load_average": load,
    }


def verdict(fig: dict[str, Any]) -> str:
    return f"target {fig['comparison']} {fig['target']:g} {fig['unit']}: {'met' if fig['met'] else 'NOT MET'}"


def breakdown_lines(b: dict[str, Any]) -> list[str]:
    m, a = b["median_ms"], b["mean_ms"]
    lines = [
        f"   in-process breakdown ({b['emails']} emails, one process, no profiler; mean [median]):",
        f"     email_context {a['email_context']} [{m['email_context']}] ms (state, view, legal actions, links);"
        f" templates {b['render_ms_mean']} ms (build_message {a['build_message']} [{m['build_message']}] ms);",
        f"     message.send() {a['send']} [{m['send']}] ms (MIME + one SMTP connection);"
        f" whole deliver() {a['deliver']} [{m['deliver']}] ms (the rest, DB and preferences:"
        f" {b['deliver_db_and_rest_ms_mean']} ms)",
        f"     one process at most ~{b['one_process_ceiling_per_s']} emails/s;"
        f" {b['queries_per_email']} queries per email ({b['sql_ms_per_email']} ms of SQL, query log on):",
        *(f"       {n:>5}  {sql}" for sql, n in b["query_templates_per_email"].items()),
        "   deliver() under cProfile (ms per email, share of deliver; nested rows are parts of the row above):",
    ]
    for name, part in b["profile_ms_per_email"].items():
        lines.append(f"     {name:<36} {part['ms']:>8.3f} ms {part['share']:>7.1%}")
    if b["top_by_own_time"]:
        lines += ["   top functions of deliver() by own time:", b["top_by_own_time"]]
    return lines


def report(r: dict[str, Any]) -> str:
    env = r["environment"]
    lines = [
        f"Notifications benchmark: Python {env['python']} on {env['platform']}, {env['cpu_count']} CPUs,"
        f" load average {env['load_average']} at start, {r.get('load_average_end')} at end",
        f"command: {r['command']}",
        f"{'quick (smoke) run: not for comparison' if r['quick'] else 'full run'}; {r['seconds']:.0f} s",
        "",
    ]
    e = r.get("emails")
    if e:
        s = e["setup"]
        lines += [
            f"1. Turn emails by a real Celery worker (Redis broker, local aiosmtpd), {r['config']['emails']} emails"
            " per setting",
            f"   setup: {s['games']} 4-player games, {s['actions']} random-bot actions through submit_action"
            f" ({s['games_still_active']} still active), {s['your_turn_notifications']} 'your turn' notifications,"
            f" {s['seconds']} s",
        ]
        for run in e["runs"]:
            if "error" in run:
                lines.append(f"   {run['setting']:<34} FAILED: {run['error']}")
                continue
            c, cores, ms = run["check"], run["cores"], run["cpu_ms_per_email"]
            lines.append(
                f"   {run['setting']:<34} {run['emails_per_s']:>7.1f} emails/s ({run['seconds']} s;"
                f" steady 10-90 %: {run['steady_emails_per_s']}/s; first after {run['first_email_s']} s;"
                f" publish {run['publish_s']} s)"
            )
            lines.append(
                f"   {'':<34} cores: worker {cores.get('worker')}, postgres (every backend on the machine)"
                f" {cores.get('postgres')},"
                f" this process (SMTP + publisher) {cores.get('benchmark')}; CPU ms/email: worker {ms['worker']},"
                f" postgres {ms['postgres']}, SMTP side {ms['benchmark']};"
                f" cores busy before: {run['background_cores_before']} (waited {run['quiet_wait_s']} s for it);"
                " the worker's CPU alone allows at most"
                f" {run['cpu_ceiling_emails_per_s']} emails/s on {r['environment']['cpu_count']} idle cores"
            )
            lines.append(
                f"   {'':<34} check: {'ok' if c['ok'] else 'FAILED'} — {c['statuses']}, attempts {c['attempts']},"
                f" SMTP {c['smtp_messages']} messages / {c['distinct_message_ids']} Message-IDs, duplicates"
                f" {c['duplicates']}, missing {c['missing']}, unexpected {c['unexpected']}"
            )
            if run["worker_log_problems"]:
                lines.append(f"   {'':<34} worker log: {run['worker_log_problems'][0][:150]}")
        if e.get("deliver_error"):
            lines += [
                f"   deliver() FAILS on PostgreSQL, so no worker was run: {e['deliver_error']}",
            ]
        sample = next((run["sample_message"] for run in e["runs"] if run.get("sample_message")), None)
        if sample:
            lines.append(
                f"   a message: {sample['bytes']:,} bytes, parts {sample['parts']}, Reply-To"
                f" {'yes' if sample['has_reply_to'] else 'no'}, List-Unsubscribe"
                f" {'yes' if sample['has_list_unsubscribe'] else 'no'}, subject {sample['subject']!r}"
            )
        fig = r["figures"]["emails_per_s"]
        lines.append(f"   best: {fig['value']} emails/s with {fig.get('setting')} — {verdict(fig)}")
        if e.get("breakdown"):
            lines += breakdown_lines(e["breakdown"])
        lines.append("")
    rm = r.get("reminders")
    if rm:
        s = rm["seeded"]
        p = rm["plans"]
        lines += [
            f"2. Reminder sweep over {s['games']:,} active games ({s['seats']:,} seats, {s['users']} users;"
            f" bulk-created in {s['seconds']} s, then ANALYZE)",
            f"   send_due_reminders, nothing due: median {statistics.median(rm['sweep_quiet_s']) * 1000:.2f} ms"
            f" (of {len(rm['sweep_quiet_s'])}: {rm['sweep_quiet_s']})",
            f"   send_due_reminders, {rm['due_at_sweep']} games due (limit {rm['limit']}):"
            f" {rm['sweep_due_s']} s, sent {rm['sweep_due_sent']} (cores busy before:"
            f" {rm['quiet_before_due_sweeps']['cores_busy']}, waited {rm['quiet_before_due_sweeps']['waited_s']} s)",
            f"   CPU of those sweeps: this process {rm['sweep_due_client_cpu_s']} s, its PostgreSQL backend"
            f" {rm['sweep_due_backend_cpu_s']} s (their sum bounds a sweep on an idle machine from below:"
            f" {r['figures']['sweep_s']['cpu_s']} s median)",
            f"   {verdict(r['figures']['sweep_s'])}"
            + (f" (2 s per {SWEEP_TARGET_DUE:,} due, scaled)" if rm["due_at_sweep"] != SWEEP_TARGET_DUE else ""),
            f"   time_out_absent_players, nothing due: median {statistics.median(rm['timeout_quiet_s']) * 1000:.2f} ms",
            f"   the due sweep ran {rm['queries_in_due_sweep']} queries ({rm['queries_per_reminder']} per reminder),"
            f" {rm['sql_seconds_in_due_sweep']} s of them in SQL (measured with the query log on);"
            f" cProfile shares: {rm['profile_shares_of_due_sweep']}",
            "   queries of the due sweep (count, total ms; literals elided):",
            *(f"     {q['count']:>5} {q['ms']:>8.1f} ms  {sql}" for sql, q in rm["query_templates"].items()),
            f"   the plans below are of the services' own SQL: {'yes' if rm['sweep_sql_matches_services'] else 'NO'}",
        ]
        if rm.get("top_by_own_time"):
            lines += ["   top functions of the due sweep by own time:", rm["top_by_own_time"]]
        for name, title in (
            ("due_none", "due-games query, nothing due"),
            ("due_share", f"due-games query, {rm['due_at_sweep']} due"),
            ("timeout_none", "timeout query, nothing due"),
        ):
            plan = p[name]
            lines += [
                f"   EXPLAIN (ANALYZE, BUFFERS) — {title}; partial index used: {'yes' if plan['uses_index'] else 'NO'}",
                f"     {plan['sql']}",
                *(f"     | {line}" for line in plan["plan"]),
            ]
    if r.get("error"):
        lines.append(f"ERROR: {r['error']}")
    return "\n".join(lines)


def summarise(results: dict[str, Any]) -> None:
    figures: dict[str, Any] = {}
    e = results.get("emails")
    if e:
        good = [run for run in e["runs"] if "error" not in run and run["check"]["ok"]]
        best = max(good, key=lambda run: run["emails_per_s"], default=None)
        figures["emails_per_s"] = figure(
            best["emails_per_s"] if best else None, "emails/s", TARGET_EMAILS_PER_S, at_least=True
        )
        figures["emails_per_s"]["setting"] = best["setting"] if best else None
        figures["every_email_sent_once"] = all("error" not in run and run["check"]["ok"] for run in e["runs"])
    rm = results.get("reminders")
    if rm:
        # The target is for 1,000 due games (1 % of 100,000); with another number due it is scaled (2 ms a game).
        target = TARGET_SWEEP_S * rm["due_at_sweep"] / SWEEP_TARGET_DUE
        figures["sweep_s"] = figure(round(statistics.median(rm["sweep_due_s"]), 3), "s", round(target, 3), False)
        figures["sweep_s"]["due"] = rm["due_at_sweep"]
        cpu = zip(rm["sweep_due_client_cpu_s"], rm["sweep_due_backend_cpu_s"], strict=True)
        figures["sweep_s"]["cpu_s"] = round(statistics.median([a + b for a, b in cpu]), 3)
        figures["sweep_quiet_ms"] = round(statistics.median(rm["sweep_quiet_s"]) * 1000, 2)
        figures["timeout_quiet_ms"] = round(statistics.median(rm["timeout_quiet_s"]) * 1000, 2)
        figures["partial_indexes_used"] = all(plan["uses_index"] for plan in rm["plans"].values())
    results["figures"] = figures


def main(argv: list[str] | None = None) -> int:
    # Run as a script, this file's folder comes first on sys.path, and this file is named like the
    # notifications app: put the repository first instead.
    here = str(Path(__file__).resolve().parent)
    sys.path[:] = [str(ROOT)] + [p for p in sys.path if p and str(Path(p).resolve()) not in (here, str(ROOT))]
    cfg = parse_args(argv)
    started = time.perf_counter()
    from tests.reliability.faultkit import drop_database, free_port, migrate, recreate_database

    results: dict[str, Any] = {
        "environment": environment(),
        "command": "python benchmarks/notifications.py " + " ".join(argv if argv is not None else sys.argv[1:]),
        "quick": cfg.quick,
        "config": {
            "emails": cfg.emails,
            "warmup_emails": cfg.warmup,
            "pools": [pool_label(*p) for p in cfg.pools],
            "games": cfg.games,
            "due_share": cfg.due_share,
            "sweep_repeats": cfg.sweep_repeats,
            "breakdown": cfg.breakdown,
        },
    }
    wait_for_templates(cfg.wait_templates)

    def on_sigterm(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_sigterm)
    from aiosmtpd.controller import Controller

    inbox, port = Inbox(), free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    var_dir = tempfile.mkdtemp(prefix="manhattan-mailbench-")
    env = site_env(cfg, var_dir, port)
    created = False
    status = 0
    controller.start()
    try:
        log(f"database {urlsplit(cfg.database_url).path.lstrip('/')}: drop, create, migrate")
        recreate_database(cfg.database_url, marker="bench")
        created = True
        migrate(env)
        os.environ.update(env)
        import django

        django.setup()
        flush_broker(cfg.redis_url)
        if not cfg.skip_emails:
            results["emails"] = emails_part(cfg, inbox, env, var_dir)
        if not cfg.skip_reminders:
            results["reminders"] = reminders_part(cfg)
    except KeyboardInterrupt:
        results["error"] = "interrupted"
        status = 130
    except Exception as error:
        results["error"] = f"{type(error).__name__}: {error}"
        status = 1
        import traceback

        traceback.print_exc()
    finally:
        controller.stop()
        with contextlib.suppress(Exception):
            from django.db import connections

            connections.close_all()
        with contextlib.suppress(Exception):
            flush_broker(cfg.redis_url)
        if created and not cfg.keep_database:
            with contextlib.suppress(Exception):
                drop_database(cfg.database_url, marker="bench")
    results["seconds"] = time.perf_counter() - started
    with contextlib.suppress(OSError):
        results["load_average_end"] = [round(x, 2) for x in os.getloadavg()]
    summarise(results)
    print(json.dumps(results, indent=2, default=str) if cfg.as_json else report(results))
    if status == 0 and not results["figures"].get("every_email_sent_once", True):
        status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
