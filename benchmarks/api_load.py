"""Load-test the HTTP API: whole 4-player games played over gunicorn + PostgreSQL.

What it does, in order (everything bounded in time or count, all traffic to 127.0.0.1):

1. **Database.** Drops and re-creates a PostgreSQL database (``manhattan_bench``
   on 127.0.0.1 by default, ``--database-url`` to choose another; its name must
   contain "bench" because it is dropped), then runs ``manage.py migrate`` in a
   subprocess with ``DATABASE_URL`` set.
2. **Players and games.** In this process (``django.setup()``), creates
   ``4 × clients`` users, one API token each, and a pool of 4-player games per
   gunicorn configuration, each game seating four distinct benchmark users and
   started through ``games.services``. No seat is a bot, so every action goes
   over HTTP and nothing is queued for Celery.
3. **Server.** Starts ``gunicorn manhattan_site.wsgi -w W --threads 1`` (sync workers;
   ``--worker-class gthread --threads T`` for keep-alive connections) on a
   free port of 127.0.0.1 (``DEBUG=false``, development mode, persistent DB
   connections), waits until it answers, and warms every worker up. With
   ``--workers 4,5`` each worker count gets its own server and its own games.
4. **Framework floor.** ``C`` threads GET ``/api/v1/me`` with a token for a fixed
   time: the cost of Django + DRF + token authentication and nothing else.
5. **Games.** ``C`` concurrent clients (threads, one ``requests.Session`` each)
   take games from the pool and play them to the end, one after another: the
   client holds the game's four tokens; for the seat to act it GETs
   ``legal-actions``, picks a random legal action (selection: random pieces of the
   reserve; placement: a random option) and POSTs it to ``actions`` with
   ``expected_version``. Concurrency stays at ``C`` for the whole measured time
   (a client that finishes a game takes the next one). A quarter of the first ``C``
   games are brought near their end beforehand (90 of their ~108 actions played
   in-process through ``games.services.submit_action``), so that from the first
   second some clients play the last actions of games while the others play the
   first ones: the first-vs-last comparison is made under one and the same load.
   Play lasts ``--duration`` and then until those late games have ended (at most
   ``--max-duration``); games cut off by the stop count for throughput only.

Figures, each beside its target: accepted actions/s (POSTs answered 200) and all
requests/s (GET legal-actions + POST), p50/p99 of action POSTs, median latency of
the last 10 actions of a game over its first 10 (the log is folded on every
request, so later actions may cost more), the floor in requests/s, actions/s ÷
floor, and every non-2xx status counted. CPU seconds of gunicorn, PostgreSQL and
the load generator over each phase are reported too.

Caveats: the load generator is Python on the same machine; its threads compete
with gunicorn and PostgreSQL for the cores (its share is printed as "cores
used"). It runs in this process, apart from gunicorn; ``--client-procs N``
spreads the client threads over N forked processes (no shared GIL), and
``--client-lib http`` swaps ``requests`` for a leaner ``http.client`` connection
to see how much the client itself costs. Other processes on the machine skew
everything: the cores they kept busy just before each run are printed, and
``--wait-quiet S`` waits (up to S seconds) for them to finish first.

``--profile`` then plays 200 actions in-process through Django's test ``Client``
against the same PostgreSQL database, each with a GET ``/me`` before it (the
floor's request, measured the same way): once timed, with ``CaptureQueriesContext``
counting the queries of every request, and once under cProfile, and prints where
the time of an action and of a legal-actions read goes.

    python benchmarks/api_load.py                      # full run: 64 games at a time, 60 s or more
    python benchmarks/api_load.py --quick              # smoke run: 8 games at a time, 10 s
    python benchmarks/api_load.py --workers 4,5        # compare worker counts
    python benchmarks/api_load.py --json               # machine-readable results on stdout
    python benchmarks/api_load.py --profile            # add the in-process profile
    python benchmarks/api_load.py --profile-only       # only the in-process profile
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import http.client
import io
import json
import math
import os
import platform
import pstats
import queue
import random
import re
import resource
import secrets
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/manhattan_bench"
PLAYERS = 4
MAX_ACTIONS_PER_GAME = 400  # a 4-player game takes about 108 actions
EDGE = 10  # first / last actions of a game compared
LATE_AT = 90  # late games start with this many actions played (a 4-player game has about 108)
LATE_EVERY = 4  # one in this many of the games first dealt to the clients is a late game
REQUEST_TIMEOUT = (5.0, 30.0)
READY_TIMEOUT_S = 30.0
BACKGROUND_S = 2.0  # idle seconds before each run, to see what else keeps the machine busy
QUIET_CORES = 0.25
CPU_SAMPLE_S = 0.5
ACCESS_FORMAT = "%(m)s %(U)s %(s)s %(D)s"  # method, path, status, µs spent in the worker

TARGETS = {
    "actions_per_s": (">=", 400.0),
    "actions_vs_floor": (">=", 0.5),
    "action_p99_ms": ("<=", 100.0),
    "last_vs_first": ("<=", 1.2),
}


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# --- configuration ---------------------------------------------------------------------


@dataclass(frozen=True)
class Config:
    database_url: str
    clients: int
    workers: list[int]
    duration: float
    max_duration: float
    wait_quiet: float
    floor_duration: float
    warmup: float
    games: int
    client_procs: int
    client_lib: str
    worker_class: str
    threads: int
    seed: int
    keep_database: bool
    profile: bool
    profile_only: bool
    profile_actions: int
    as_json: bool
    save_json: str
    quick: bool


def parse_args(argv: list[str] | None = None) -> Config:
    cores = os.cpu_count() or 1
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL, help="PostgreSQL database, dropped first")
    parser.add_argument("--clients", type=int, help="concurrent games (client threads); 64, or 8 with --quick")
    parser.add_argument(
        "--workers",
        default=str(2 * cores + 1),
        help="gunicorn workers, 2 × cores + 1 by default (on 2 cores, 4 and 5 were within 6%% of each other);"
        " a comma list runs each (e.g. 4,5)",
    )
    parser.add_argument("--duration", type=float, help="minimum seconds of game play per run; 60, or 10 with --quick")
    parser.add_argument(
        "--max-duration",
        type=float,
        help="game play goes on past --duration until the late games have ended, up to this;"
        " 600, or --duration with --quick",
    )
    parser.add_argument(
        "--wait-quiet",
        type=float,
        default=0.0,
        help="before each run, wait up to this many seconds for other processes to leave the cores idle",
    )
    parser.add_argument("--floor-duration", type=float, help="seconds of /me per run; 15, or 5 with --quick")
    parser.add_argument("--games", type=int, help="games created per run (the pool clients draw from)")
    parser.add_argument("--client-procs", type=int, default=1, help="processes the client threads are spread over")
    parser.add_argument(
        "--client-lib",
        choices=["requests", "http"],
        default="requests",
        help="the clients' HTTP library: requests.Session, or a lighter http.client connection",
    )
    parser.add_argument(
        "--worker-class",
        choices=["sync", "gthread"],
        default="sync",
        help="gunicorn's worker class: sync closes the connection after each response, gthread keeps it alive",
    )
    parser.add_argument("--threads", type=int, default=1, help="gunicorn threads per worker (gthread)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the clients' random choices")
    parser.add_argument("--keep-database", action="store_true", help="do not drop the database at the end")
    parser.add_argument("--profile", action="store_true", help="also profile actions in-process (cProfile)")
    parser.add_argument("--profile-only", action="store_true", help="only the in-process profile, no gunicorn")
    parser.add_argument("--profile-actions", type=int, default=200, help="actions played under --profile")
    parser.add_argument("--quick", action="store_true", help="smoke run: 8 games at a time, 10 s")
    parser.add_argument("--json", action="store_true", help="print the results as JSON on stdout")
    parser.add_argument("--save-json", default="", metavar="PATH", help="also write the results as JSON to PATH")
    args = parser.parse_args(argv)
    clients = args.clients or (8 if args.quick else 64)
    duration = args.duration or (10.0 if args.quick else 60.0)
    workers = [int(w) for w in str(args.workers).split(",") if w.strip()]
    if not workers or min(workers) < 1 or clients < 1 or args.client_procs < 1:
        parser.error("--workers, --clients and --client-procs must be positive")
    max_duration = args.max_duration or (duration if args.quick else 600.0)
    # The games in play plus what 400 actions/s (108 a game) would finish, with a margin:
    # the pool runs dry only above the target.
    games = args.games or 3 * clients + int(duration * 3)
    return Config(
        database_url=args.database_url,
        clients=clients,
        workers=workers,
        duration=duration,
        max_duration=max(max_duration, duration),
        wait_quiet=args.wait_quiet,
        floor_duration=args.floor_duration or (5.0 if args.quick else 15.0),
        warmup=1.0 if args.quick else 3.0,
        games=games,
        client_procs=min(args.client_procs, clients),
        client_lib=args.client_lib,
        worker_class=args.worker_class,
        threads=max(1, args.threads),
        seed=args.seed,
        keep_database=args.keep_database,
        profile=args.profile or args.profile_only,
        profile_only=args.profile_only,
        profile_actions=args.profile_actions,
        as_json=args.json,
        save_json=args.save_json,
        quick=args.quick,
    )


def site_env(database_url: str, var_dir: str, hosts: str) -> dict[str, str]:
    """The environment of gunicorn and of the Django set up in this process."""
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DJANGO_SETTINGS_MODULE", "DJANGO_ENV")}
    env.update(
        DATABASE_URL=database_url,
        DJANGO_SETTINGS_MODULE="manhattan_site.settings",
        DJANGO_ENV="development",
        DEBUG="false",
        ALLOWED_HOSTS=hosts,
        SECRET_KEY="bench-" + secrets.token_urlsafe(32),
        VAR_DIR=var_dir,
        LOG_LEVEL="WARNING",
        PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
    )
    return env


# --- database ---------------------------------------------------------------------------


@dataclass
class GameSpec:
    """What a client needs to play one game: its id and the four seats' tokens."""

    public_id: str
    tokens: list[str]
    to_act: int | None
    version: int
    played: int = 0  # actions played before the benchmark (late games)
    users: list[int] = field(default_factory=list)


def create_players(count: int) -> list[tuple[Any, str]]:
    """``count`` users, each with one API token: (user, raw token)."""
    from accounts.models import User
    from accounts.services import create_api_token

    run = secrets.token_hex(3)
    players = []
    for i in range(count):
        user = User.objects.create_user(email=f"bench-{run}-{i}@example.com", display_name=f"bench {i}")
        players.append((user, create_api_token(user=user, name="bench").raw))
    return players


def create_games(count: int, players: list[tuple[Any, str]], groups: int) -> list[GameSpec]:
    """``count`` started 4-player games; game ``k`` seats the four players of group ``k % groups``."""
    from games import services

    specs = []
    for k in range(count):
        group = players[PLAYERS * (k % groups) : PLAYERS * (k % groups) + PLAYERS]
        users = [user for user, _ in group]
        game = services.create_game(
            creator=users[0],
            options={"players": PLAYERS},
            seats=[services.SeatSpec("me")] + [services.SeatSpec("invite", email=u.email) for u in users[1:]],
        )
        for user in users[1:]:
            services.join_game(game=game, user=user)
        game = services.start_game(game=game, user=users[0])
        specs.append(
            GameSpec(
                str(game.public_id),
                [raw for _, raw in group],
                game.to_act_seat,
                game.version,
                users=[u.pk for u in users],
            )
        )
    return specs


def advance_game(spec: GameSpec, actions: int, rng: random.Random) -> None:
    """Play ``actions`` random legal actions of ``spec``'s game in-process through
    ``games.services.submit_action`` (as the API does, without rendering a response)."""
    from accounts.models import User
    from games import engine, services
    from games.models import Game

    users = {u.pk: u for u in User.objects.filter(pk__in=spec.users)}
    for _ in range(actions):
        game = Game.objects.get(public_id=spec.public_id)
        if game.status != Game.Status.ACTIVE or game.to_act_seat is None:
            break
        state = services.load_state(game)
        assert state is not None
        legal = engine.legal_actions(engine.player_view(state, game.to_act_seat)).to_json()
        choice = choose_action(legal, rng)
        if choice is None:
            break
        services.submit_action(
            game_id=spec.public_id,
            user=users[spec.users[game.to_act_seat]],
            action=engine.action_from_json(choice),
            expected_version=game.version,
            respond=lambda result: (200, {}),
        )
        spec.played += 1
    game = Game.objects.get(public_id=spec.public_id)
    spec.to_act, spec.version = game.to_act_seat, game.version


def interleave_late_games(games: list[GameSpec], clients: int, seed: int) -> list[GameSpec]:
    """Bring every fourth of the first ``clients`` games near its end (``LATE_AT``
    actions played), so that from the start a quarter of the clients play the last
    actions of games while the others play the first ones, under the same load."""
    rng = random.Random(seed)
    for spec in games[:clients:LATE_EVERY]:
        advance_game(spec, LATE_AT, rng)
    return games


# --- CPU accounting (Linux /proc) ---------------------------------------------------------

CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def cpu_snapshot() -> dict[str, float]:
    """CPU seconds used so far by this load generator and by the whole machine."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    machine = 0.0
    with contextlib.suppress(OSError, ValueError):
        ticks = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
        machine = (sum(ticks) - ticks[3] - (ticks[4] if len(ticks) > 4 else 0)) / CLK_TCK  # minus idle, iowait
    return {"client": usage.ru_utime + usage.ru_stime, "machine": machine, "wall": time.monotonic()}


def _serves(pid: int, database: str) -> bool:
    """Whether a postgres process is a backend of ``database`` (its title names the database)."""
    try:
        title = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return False
    return f" {database} " in title.replace("\0", " ")


class CpuMeter:
    """Cores used over a phase by gunicorn (master and workers), the PostgreSQL backends
    of the benchmark's database, this load generator, and the whole machine (Linux /proc).

    Processes are sampled every ``CPU_SAMPLE_S`` and counted one by one, so that the
    backends that come and go (Django recycles persistent connections after
    ``CONN_MAX_AGE``) are neither lost nor counted negative."""

    def __init__(self, server_pid: int, database: str) -> None:
        self.server_pid = server_pid
        self.database = database
        self.first: dict[int, float] = {}
        self.last: dict[int, float] = {}
        self.kind: dict[int, str] = {}
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True, name="cpu-meter")

    def __enter__(self) -> CpuMeter:
        self._sample(initial=True)
        self.before = cpu_snapshot()
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.after = cpu_snapshot()
        self.done.set()
        self.thread.join(timeout=5)
        self._sample(initial=False)

    def _run(self) -> None:
        while not self.done.wait(CPU_SAMPLE_S):
            self._sample(initial=False)

    def _sample(self, *, initial: bool) -> None:
        from tests.reliability.faultkit import processes

        for pid, (comm, ppid, cpu) in processes().items():
            if pid not in self.kind:
                if self.server_pid in (pid, ppid):
                    self.kind[pid] = "gunicorn"
                elif comm == "postgres" and _serves(pid, self.database):
                    self.kind[pid] = "postgres"
                else:
                    self.kind[pid] = ""
            if self.kind[pid]:
                # A process first seen after the start was born during the phase.
                self.first.setdefault(pid, cpu if initial else 0.0)
                self.last[pid] = cpu

    def cores(self, client_extra_s: float = 0.0) -> dict[str, float]:
        """Average cores used per party over the phase, and the server's CPU seconds."""
        wall = max(self.after["wall"] - self.before["wall"], 1e-9)
        spent = {"gunicorn": 0.0, "postgres": 0.0}
        for pid, cpu in self.last.items():
            spent[self.kind[pid]] += cpu - self.first[pid]
        used = {name: seconds / wall for name, seconds in spent.items()}
        used["client"] = (self.after["client"] - self.before["client"] + client_extra_s) / wall
        used["machine"] = (self.after["machine"] - self.before["machine"]) / wall
        used["other"] = max(used["machine"] - used["gunicorn"] - used["postgres"] - used["client"], 0.0)
        result = {name: round(value, 2) for name, value in used.items()}
        result["server_cpu_s"] = round(spent["gunicorn"] + spent["postgres"], 3)
        return result


def cpu_cost(cores_used: dict[str, float], count: int) -> float:
    """Server CPU (gunicorn + PostgreSQL) per request, in ms: much steadier than
    wall-clock figures when other processes share the machine."""
    return round(cores_used["server_cpu_s"] * 1000 / count, 2) if count else float("nan")


# --- the server ---------------------------------------------------------------------------


@contextlib.contextmanager
def gunicorn(
    workers: int, env: dict[str, str], token: str, log_dir: str, worker_class: str = "sync", threads: int = 1
) -> Iterator[tuple[str, int, Path]]:
    """A gunicorn on 127.0.0.1 answering ``/api/v1/me``; stopped on the way out, whatever happens.

    Yields its URL, its master's pid and its access log (``ACCESS_FORMAT``)."""
    import requests

    from tests.reliability.faultkit import free_port

    port = free_port()
    log_path = Path(log_dir) / f"gunicorn-w{workers}.log"
    access_log = Path(log_dir) / f"access-w{workers}.log"
    command = [
        sys.executable,
        "-m",
        "gunicorn",
        "manhattan_site.wsgi",
        "-w",
        str(workers),
        "-k",
        worker_class,
        "--threads",
        str(threads),
        "-b",
        f"127.0.0.1:{port}",
        "--timeout",
        "60",
        "--log-level",
        "warning",
        "--access-logfile",
        str(access_log),
        "--access-logformat",
        ACCESS_FORMAT,
    ]
    with open(log_path, "w") as log_file:
        proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log_file, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + READY_TIMEOUT_S
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"gunicorn exited with {proc.returncode}:\n{log_path.read_text()[-3000:]}")
            with contextlib.suppress(requests.RequestException):
                response = requests.get(f"{base}/api/v1/me", headers=auth(token), timeout=2)
                if response.status_code == 200:
                    break
                raise RuntimeError(f"gunicorn answers {response.status_code}: {response.text[:500]}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"gunicorn did not answer within {READY_TIMEOUT_S:.0f} s")
            time.sleep(0.1)
        yield base, proc.pid, access_log
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)  # the master stops its workers gracefully
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5)
        errors = [line for line in log_path.read_text().splitlines() if "Traceback" in line or "Error" in line]
        if errors:
            log(f"  gunicorn log {log_path} has {len(errors)} error lines, e.g. {errors[0][:200]}")


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


# --- the load --------------------------------------------------------------------------------


@dataclass
class ClientResults:
    """What client threads saw: plain lists, so they can cross a process boundary."""

    # (game number, action index in the game, start time, latency s, status)
    posts: list[tuple[int, int, float, float, int]] = field(default_factory=list)
    legal: list[tuple[float, int]] = field(default_factory=list)  # (latency s, status)
    floor: list[tuple[float, int]] = field(default_factory=list)
    finished_games: list[int] = field(default_factory=list)
    cut_games: list[int] = field(default_factory=list)
    problems: Counter[str] = field(default_factory=Counter)
    pool_ran_dry: bool = False
    cpu_s: float = 0.0

    def merge(self, other: ClientResults) -> None:
        self.posts += other.posts
        self.legal += other.legal
        self.floor += other.floor
        self.finished_games += other.finished_games
        self.cut_games += other.cut_games
        self.problems.update(other.problems)
        self.pool_ran_dry = self.pool_ran_dry or other.pool_ran_dry
        self.cpu_s += other.cpu_s


class LightResponse:
    """The little of ``requests.Response`` the clients use."""

    def __init__(self, status: int, content: bytes) -> None:
        self.status_code = status
        self.content = content

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", errors="replace")

    def json(self) -> Any:
        return json.loads(self.content)


class LightSession:
    """A keep-alive ``http.client`` connection behind a ``requests.Session``-like face
    (``--client-lib http``): the same requests for a fraction of the client's CPU."""

    def __init__(self, base: str) -> None:
        parts = urlsplit(base)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.conn: http.client.HTTPConnection | None = None

    def __enter__(self) -> LightSession:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.conn is not None:
            self.conn.close()

    def _request(self, method: str, url: str, headers: dict[str, str], body: bytes | None) -> LightResponse:
        path = urlsplit(url).path
        for attempt in range(2):
            fresh = self.conn is None
            if self.conn is None:
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=REQUEST_TIMEOUT[1])
            try:
                self.conn.request(method, path, body=body, headers=headers)
                response = self.conn.getresponse()
                content = response.read()
            except (http.client.HTTPException, OSError):
                self.conn.close()
                self.conn = None
                if fresh or attempt:  # retry only a request sent on a reused connection the server had closed
                    raise
                continue
            if response.will_close:
                self.conn.close()
                self.conn = None
            return LightResponse(response.status, content)
        raise AssertionError("unreachable")

    def get(self, url: str, headers: dict[str, str], timeout: Any = None) -> LightResponse:
        return self._request("GET", url, headers, None)

    def post(self, url: str, json: Any, headers: dict[str, str], timeout: Any = None) -> LightResponse:
        body = _json_dumps(json).encode()
        return self._request("POST", url, {**headers, "Content-Type": "application/json"}, body)


_json_dumps = json.dumps


def make_session(base: str, lib: str) -> Any:
    if lib == "http":
        return LightSession(base)
    import requests

    return requests.Session()


def choose_action(legal: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    """A random legal action: random pieces of the reserve, or a random placement option."""
    selection = legal.get("selection")
    if selection:
        pool = [int(size) for size, n in selection["reserve"].items() for _ in range(n)]
        pieces = rng.sample(pool, min(selection["count"], len(pool)))
        return {"type": "select", "pieces": sorted(pieces)}
    options = [(p["card"], o) for p in legal.get("placements") or [] for o in p["options"]]
    if not options:
        return None
    card, option = rng.choice(options)
    return {"type": "place", "card": card, "city": option["city"], "size": option["size"], "colour": option["colour"]}


class Control:
    """When the clients stop: not before ``min_s``, not after ``max_s``, and in between
    once ``need_games`` games have been played to their end, so that the first-vs-last
    comparison has the last actions of games played under the full load.

    Shared with forked client processes: any process may decide, for all of them."""

    def __init__(self, min_s: float, max_s: float, need_games: int = 0) -> None:
        import multiprocessing as mp

        context = mp.get_context("fork")
        self.event = context.Event()
        self.finished_games = context.Value("i", 0)
        self.start = time.monotonic()
        self.min_end = self.start + min_s
        self.max_end = self.start + max(min_s, max_s)
        self.need_games = need_games

    def game_finished(self) -> None:
        with self.finished_games.get_lock():
            self.finished_games.value += 1

    def stop(self) -> None:
        self.event.set()

    def stopped(self) -> bool:
        if self.event.is_set():
            return True
        now = time.monotonic()
        if now >= self.max_end or (now >= self.min_end and self.finished_games.value >= self.need_games):
            self.event.set()
            return True
        return False


def play_game(
    session: Any, base: str, number: int, game: GameSpec, control: Control, rng: random.Random, out: ClientResults
) -> None:
    """Play ``game`` to its end (or the stop): legal-actions, then the action, for whoever is to act."""
    url = f"{base}/api/v1/games/{game.public_id}"
    to_act = game.to_act
    for index in range(game.played, game.played + MAX_ACTIONS_PER_GAME):
        if control.stopped():
            out.cut_games.append(number)
            return
        if to_act is None:
            out.problems["nobody_to_act"] += 1
            return
        headers = auth(game.tokens[to_act])
        start = time.monotonic()
        response = session.get(f"{url}/legal-actions", headers=headers, timeout=REQUEST_TIMEOUT)
        out.legal.append((time.monotonic() - start, response.status_code))
        if response.status_code != 200:
            out.problems[f"legal_actions_{response.status_code}"] += 1
            return
        legal = response.json()
        if not legal.get("my_turn"):
            out.problems["legal_actions_not_my_turn"] += 1
            return
        action = choose_action(legal, rng)
        if action is None:
            out.problems["no_legal_action"] += 1
            return
        start = time.monotonic()
        response = session.post(
            f"{url}/actions",
            json={"action": action, "expected_version": legal["version"]},
            headers=headers,
            timeout=REQUEST_TIMEOUT,
        )
        latency = time.monotonic() - start
        out.posts.append((number, index, start, latency, response.status_code))
        if response.status_code != 200:
            out.problems[f"action_{response.status_code}:{response.text[:120]}"] += 1
            return
        state = response.json()["game"]
        if state["status"] != "active":
            out.finished_games.append(number)
            control.game_finished()
            return
        to_act = state["to_act_seat"]
    out.problems["game_too_long"] += 1


def _game_client(
    base: str, pool: queue.Queue[tuple[int, GameSpec]], control: Control, seed: int, out: ClientResults, lib: str
) -> None:
    rng = random.Random(seed)
    with make_session(base, lib) as session:
        while not control.stopped():
            try:
                number, game = pool.get_nowait()
            except queue.Empty:
                out.pool_ran_dry = True
                control.stop()  # the load would drop from here on
                return
            try:
                play_game(session, base, number, game, control, rng, out)
            except Exception as error:  # a client keeps going with the next game
                out.problems[f"client_error:{type(error).__name__}"] += 1


def _floor_client(base: str, token: str, control: Control, out: ClientResults, lib: str) -> None:
    with make_session(base, lib) as session:
        while not control.stopped():
            start = time.monotonic()
            try:
                response = session.get(f"{base}/api/v1/me", headers=auth(token), timeout=REQUEST_TIMEOUT)
            except Exception as error:
                out.problems[f"floor_error:{type(error).__name__}"] += 1
                continue
            out.floor.append((time.monotonic() - start, response.status_code))


def run_threads(
    kind: str,
    base: str,
    threads: int,
    control: Control,
    games: list[tuple[int, GameSpec]],
    tokens: list[str],
    seed: int,
    lib: str,
) -> ClientResults:
    """``threads`` clients in this process, each with its own results (merged at the end)."""
    sys.setswitchinterval(0.001)  # a thread back from recv gets the GIL sooner
    pool: queue.Queue[tuple[int, GameSpec]] = queue.Queue()
    for item in games:
        pool.put(item)
    outs = [ClientResults() for _ in range(threads)]
    workers = []
    for i in range(threads):
        if kind == "games":
            target: Any = _game_client
            args: tuple[Any, ...] = (base, pool, control, seed * 1000 + i, outs[i], lib)
        else:
            target, args = _floor_client, (base, tokens[i % len(tokens)], control, outs[i], lib)
        workers.append(threading.Thread(target=target, args=args, daemon=True, name=f"{kind}-{i}"))
    usage = resource.getrusage(resource.RUSAGE_SELF)
    for worker in workers:
        worker.start()
    # Bounded: the clients stop by control.max_end, and every request has a timeout.
    give_up = control.max_end + sum(REQUEST_TIMEOUT) + 5
    while any(worker.is_alive() for worker in workers) and time.monotonic() < give_up:
        control.stopped()  # decides the stop even while every client waits for an answer
        time.sleep(0.1)
    merged = ClientResults()
    for out in outs:
        merged.merge(out)
    if any(worker.is_alive() for worker in workers):
        merged.problems["client_threads_still_running"] += 1
    after = resource.getrusage(resource.RUSAGE_SELF)
    merged.cpu_s = after.ru_utime + after.ru_stime - usage.ru_utime - usage.ru_stime
    return merged


def run_clients(
    kind: str, base: str, cfg: Config, control: Control, games: list[tuple[int, GameSpec]], tokens: list[str]
) -> tuple[ClientResults, float]:
    """The clients, in this process or spread over ``--client-procs`` forked processes.

    Returns the results and the CPU seconds of forked client processes (this
    process's own CPU is counted by ``CpuMeter``)."""
    procs = cfg.client_procs
    if procs == 1:
        return run_threads(kind, base, cfg.clients, control, games, tokens, cfg.seed, cfg.client_lib), 0.0
    import multiprocessing as mp

    from django.db import connections

    connections.close_all()  # no database connection crosses a fork
    context = mp.get_context("fork")
    results: Any = context.Queue()
    children = []
    for p in range(procs):
        threads = cfg.clients // procs + (1 if p < cfg.clients % procs else 0)
        child = context.Process(
            target=_client_process,
            args=(results, kind, base, threads, control, games[p::procs], tokens, cfg.seed * 100 + p, cfg.client_lib),
            daemon=True,
        )
        child.start()
        children.append(child)
    merged = ClientResults()
    extra_cpu = 0.0
    try:
        for _ in children:
            out = results.get(timeout=max(control.max_end - time.monotonic(), 0) + sum(REQUEST_TIMEOUT) + 30)
            merged.merge(out)
            extra_cpu += out.cpu_s
    finally:
        control.stop()
        for child in children:
            child.join(timeout=10)
            if child.is_alive():
                child.terminate()
    return merged, extra_cpu


def _client_process(
    results: Any, kind: str, base: str, threads: int, control: Control, games, tokens, seed, lib
) -> None:
    out = run_threads(kind, base, threads, control, games, tokens, seed, lib)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    out.cpu_s = usage.ru_utime + usage.ru_stime
    results.put(out)


# --- figures ----------------------------------------------------------------------------------


def pct(values: list[float], q: float) -> float:
    """The ``q``-quantile (0..1) of ``values``, nearest-rank; NaN when empty."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


def ms(seconds: float) -> float:
    return round(seconds * 1000, 2)


def statuses(entries: list[tuple[float, int]] | list[int]) -> dict[str, int]:
    codes = Counter(e[1] if isinstance(e, tuple) else e for e in entries)
    return {str(code): n for code, n in sorted(codes.items()) if not 200 <= code < 300}


def game_figures(out: ClientResults, elapsed: float) -> dict[str, Any]:
    accepted = [p for p in out.posts if p[4] == 200]
    latencies = [p[3] for p in out.posts]
    by_game: dict[int, list[tuple[int, float]]] = {}
    for number, index, _start, latency, _code in accepted:
        by_game.setdefault(number, []).append((index, latency))
    # First: the first 10 actions of any game; last: the last 10 of the games that ended
    # (late games, brought near their end beforehand, end early in the run: both are
    # played side by side, under the same load).
    first = [latency for _, index, _, latency, _ in accepted if index < EDGE]
    last: list[float] = []
    lengths = []
    for number in set(out.finished_games):
        actions = sorted(by_game.get(number, []))
        lengths.append(actions[-1][0] + 1)
        last += [lat for index, lat in actions[-EDGE:] if index >= EDGE]
    first_median = statistics.median(first) if first else float("nan")
    last_median = statistics.median(last) if last else float("nan")
    return {
        "elapsed_s": round(elapsed, 2),
        "accepted_actions": len(accepted),
        "actions_per_s": round(len(accepted) / elapsed, 1),
        "requests_per_s": round((len(out.posts) + len(out.legal)) / elapsed, 1),
        "action_p50_ms": ms(pct(latencies, 0.50)),
        "action_p90_ms": ms(pct(latencies, 0.90)),
        "action_p99_ms": ms(pct(latencies, 0.99)),
        "action_max_ms": ms(max(latencies, default=float("nan"))),
        "legal_p50_ms": ms(pct([lat for lat, _ in out.legal], 0.50)),
        "legal_p99_ms": ms(pct([lat for lat, _ in out.legal], 0.99)),
        "first10_median_ms": ms(first_median),
        "last10_median_ms": ms(last_median),
        "last_vs_first": round(last_median / first_median, 2) if first else float("nan"),
        "games_finished": len(set(out.finished_games)),
        "games_cut_by_deadline": len(set(out.cut_games)),
        "actions_per_finished_game": round(statistics.mean(lengths), 1) if lengths else float("nan"),
        "first10_samples": len(first),
        "last10_samples": len(last),
        "non_2xx_actions": statuses([p[4] for p in out.posts]),
        "non_2xx_legal_actions": statuses(out.legal),
        "problems": dict(out.problems),
        "pool_ran_dry": out.pool_ran_dry,
    }


def floor_figures(out: ClientResults, elapsed: float) -> dict[str, Any]:
    ok = [lat for lat, code in out.floor if code == 200]
    return {
        "elapsed_s": round(elapsed, 2),
        "requests": len(out.floor),
        "requests_per_s": round(len(ok) / elapsed, 1),
        "p50_ms": ms(pct(ok, 0.50)),
        "p99_ms": ms(pct(ok, 0.99)),
        "non_2xx": statuses(out.floor),
        "problems": dict(out.problems),
    }


def verdicts(figures: dict[str, float]) -> dict[str, dict[str, Any]]:
    checked = {}
    for name, (op, target) in TARGETS.items():
        value = figures[name]
        met = value >= target if op == ">=" else value <= target
        checked[name] = {"value": value, "target": f"{op} {target:g}", "met": bool(met)}
    return checked


# --- one run: a server, its floor, its games ---------------------------------------------------


def read_access_log(path: Path, start: int, end: int | None = None) -> list[tuple[str, str, int, float]]:
    """(method, path, status, seconds in the worker) of the requests logged between two
    offsets of gunicorn's access log (``ACCESS_FORMAT``): the time a request spent being
    handled, without the time it waited for a free worker."""
    with open(path, "rb") as handle:
        handle.seek(start)
        data = handle.read() if end is None else handle.read(end - start)
    rows = []
    for line in data.decode(errors="replace").splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2].isdigit() and parts[3].isdigit():
            rows.append((parts[0], parts[1], int(parts[2]), int(parts[3]) / 1e6))
    return rows


def server_side(rows: list[tuple[str, str, int, float]], games: list[GameSpec], finished: list[int]) -> dict[str, Any]:
    """Worker-side latencies of the game phase, and the first-vs-last comparison on them."""
    number_of = {f"/api/v1/games/{g.public_id}/actions": (n, g.played) for n, g in enumerate(games)}
    counter: Counter[int] = Counter()
    by_game: dict[int, list[tuple[int, float]]] = {}
    posts, legal = [], []
    for method, path, status, seconds in rows:
        if method == "GET" and path.endswith("/legal-actions"):
            legal.append(seconds)
        elif method == "POST" and path in number_of:
            posts.append(seconds)
            if status == 200:
                number, played = number_of[path]
                by_game.setdefault(number, []).append((played + counter[number], seconds))
                counter[number] += 1
    first = [s for actions in by_game.values() for index, s in actions if index < EDGE]
    last = [s for n in set(finished) for index, s in by_game.get(n, [])[-EDGE:] if index >= EDGE]
    first_median = statistics.median(first) if first else float("nan")
    last_median = statistics.median(last) if last else float("nan")
    return {
        "action_p50_ms": ms(pct(posts, 0.50)),
        "action_p99_ms": ms(pct(posts, 0.99)),
        "legal_p50_ms": ms(pct(legal, 0.50)),
        "legal_p99_ms": ms(pct(legal, 0.99)),
        "first10_median_ms": ms(first_median),
        "last10_median_ms": ms(last_median),
        "last_vs_first": round(last_median / first_median, 2) if first and last else float("nan"),
    }


def one_run(
    cfg: Config, workers: int, env: dict[str, str], games: list[GameSpec], tokens: list[str], log_dir: str
) -> dict[str, Any]:
    from tests.reliability.faultkit import busy_cores

    numbered = list(enumerate(games))
    database = urlsplit(cfg.database_url).path.lstrip("/")
    give_up = time.monotonic() + cfg.wait_quiet
    while True:
        background = busy_cores(BACKGROUND_S)
        if background <= QUIET_CORES or time.monotonic() >= give_up:
            break
        log(f"[w={workers}] {background} cores busy elsewhere: waiting for quiet")
    if background > QUIET_CORES:
        log(f"[w={workers}] warning: {background} cores were busy before the run; the figures will suffer")
    with gunicorn(workers, env, tokens[0], log_dir, cfg.worker_class, cfg.threads) as (base, pid, access_log):
        log(f"[w={workers}] gunicorn pid {pid} on {base}; warming up {cfg.warmup:.0f} s")
        run_clients("floor", base, cfg, Control(cfg.warmup, cfg.warmup), [], tokens)

        log(f"[w={workers}] floor: GET /api/v1/me, {cfg.clients} clients, {cfg.floor_duration:.0f} s")
        offset = access_log.stat().st_size
        start = time.monotonic()
        with CpuMeter(pid, database) as meter:
            control = Control(cfg.floor_duration, cfg.floor_duration)
            floor_out, extra = run_clients("floor", base, cfg, control, [], tokens)
        floor = floor_figures(floor_out, time.monotonic() - start)
        floor["cores_used"] = meter.cores(extra)
        floor["server_cpu_ms_per_request"] = cpu_cost(floor["cores_used"], len(floor_out.floor))
        handled = [s for method, _, _, s in read_access_log(access_log, offset) if method == "GET"]
        floor["server_p50_ms"] = ms(pct(handled, 0.50))
        log(f"[w={workers}]   {floor['requests_per_s']} req/s, p50 {floor['p50_ms']} ms, p99 {floor['p99_ms']} ms")

        late = sum(1 for game in games if game.played)
        log(
            f"[w={workers}] games: {cfg.clients} concurrent 4-player games, {cfg.duration:.0f} s"
            f" and until the {late} late games have ended (at most {cfg.max_duration:.0f} s)"
        )
        offset = access_log.stat().st_size
        start = time.monotonic()
        with CpuMeter(pid, database) as meter:
            control = Control(cfg.duration, cfg.max_duration, need_games=late)
            game_out, extra = run_clients("games", base, cfg, control, numbered, tokens)
        figures = game_figures(game_out, time.monotonic() - start)
        figures["cores_used"] = meter.cores(extra)
        figures["server_side"] = server_side(read_access_log(access_log, offset), games, game_out.finished_games)
    figures["server_cpu_ms_per_action"] = cpu_cost(figures["cores_used"], figures["accepted_actions"])
    figures["floor_requests_per_s"] = floor["requests_per_s"]
    figures["actions_vs_floor"] = round(figures["actions_per_s"] / floor["requests_per_s"], 3)
    # What the machine's cores would give the server alone (no client, no neighbours), from CPU cost.
    cores = os.cpu_count() or 1
    figures["projected_actions_per_s"] = round(cores * 1000 / figures["server_cpu_ms_per_action"], 1)
    floor["projected_requests_per_s"] = round(cores * 1000 / floor["server_cpu_ms_per_request"], 1)
    return {
        "workers": workers,
        "background_cores": background,
        "floor": floor,
        "games": figures,
        "targets": verdicts(figures),
    }


# --- the in-process profile ---------------------------------------------------------------------

HOT = [
    ("fold (engine)", "games/engine/events.py", "fold"),
    ("load_state (query + JSON + fold)", "games/services.py", "load_state"),
    ("event_payloads (query + JSON decode)", "games/services.py", "event_payloads"),
    ("engine.execute", "games/engine/commands.py", "execute"),
    ("_append (insert + game save)", "games/services.py", "_append"),
    ("game_body (response body)", "games/api/views.py", "game_body"),
    ("player_view", "games/engine/views.py", "player_view"),
    ("legal_actions", "games/engine/legal.py", "legal_actions"),
    ("JSON rendering", "rest_framework/renderers.py", "render"),
    ("token authentication", "accounts/services.py", "authenticate_token"),
    ("SQL execute (all queries)", "django/db/backends/utils.py", "_execute"),
    ("summary serializer (seats, my_seat)", "games/api/views.py", "_summary"),
    ("connection health check", "django/db/backends/base/base.py", "close_if_health_check_failed"),
    ("json.loads (log rows, request body)", "json/__init__.py", "loads"),
]


def _play_in_process(
    cfg: Config, players: list[tuple[Any, str]], post_profiler: Any = None, get_profiler: Any = None
) -> dict[str, Any]:
    """Play ``profile_actions`` actions through Django's test Client, counting each request's
    queries and their time; with profilers, cProfile the POSTs and GETs separately."""
    from django.db import connection, reset_queries
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    games = create_games(cfg.profile_actions // 100 + 1, players, max(1, len(players) // PLAYERS))
    client = Client()
    rng = random.Random(cfg.seed)
    seen: dict[str, Any] = {"post": [], "get": [], "me": [], "templates": Counter()}

    def request(kind: str, profiler: Any, call: Any, *args: Any, **kwargs: Any) -> tuple[Any, Timing, list[Any]]:
        reset_queries()  # the query log is a bounded deque: keep it from filling up
        with CaptureQueriesContext(connection) as ctx:
            start, cpu = time.perf_counter(), time.process_time()
            if profiler is not None:
                profiler.enable()
            response = call(*args, **kwargs)
            if profiler is not None:
                profiler.disable()
            timing = Timing(time.perf_counter() - start, time.process_time() - cpu)
        if response.status_code != 200:
            raise RuntimeError(f"profile: {kind} answered {response.status_code}: {response.content[:300]!r}")
        return response, timing, ctx.captured_queries

    done = 0
    for game in games:
        to_act = game.to_act
        url = f"/api/v1/games/{game.public_id}"
        for index in range(MAX_ACTIONS_PER_GAME):
            if done >= cfg.profile_actions or to_act is None:
                break
            header = {"HTTP_AUTHORIZATION": f"Bearer {game.tokens[to_act]}"}
            _, elapsed, queries = request("me", None, client.get, "/api/v1/me", **header)
            seen["me"].append((index, elapsed, len(queries), sum(float(q["time"]) for q in queries)))
            legal, elapsed, queries = request(
                "legal-actions", get_profiler, client.get, f"{url}/legal-actions", **header
            )
            seen["get"].append((index, elapsed, len(queries), sum(float(q["time"]) for q in queries)))
            body = json.dumps({"action": choose_action(legal.json(), rng), "expected_version": legal.json()["version"]})
            response, elapsed, queries = request(
                "action", post_profiler, client.post, f"{url}/actions", body, content_type="application/json", **header
            )
            seen["post"].append((index, elapsed, len(queries), sum(float(q["time"]) for q in queries)))
            for query in queries:
                seen["templates"][re.sub(r"'[^']*'|\b\d+\b|\"s\d+_x\d+\"", "?", query["sql"])[:150]] += 1
            done += 1
            state = response.json()["game"]
            to_act = state["to_act_seat"] if state["status"] == "active" else None
    seen["done"] = done
    return seen


class Timing(NamedTuple):
    wall: float
    cpu: float  # this process's CPU: the Django side, without PostgreSQL's


def _summarise(rows: list[tuple[int, Timing, int, float]]) -> dict[str, Any]:
    early = [t for i, t, _, _ in rows if i < EDGE]
    late = [t for i, t, _, _ in rows if i >= 100]
    counts = [n for _, _, n, _ in rows]
    return {
        "ms_median": ms(statistics.median(t.wall for _, t, _, _ in rows)),
        "cpu_ms_median": ms(statistics.median(t.cpu for _, t, _, _ in rows)),
        "ms_first10_median": ms(statistics.median(t.wall for t in early)) if early else None,
        "ms_index_ge_100_median": ms(statistics.median(t.wall for t in late)) if late else None,
        "cpu_ms_first10_median": ms(statistics.median(t.cpu for t in early)) if early else None,
        "cpu_ms_index_ge_100_median": ms(statistics.median(t.cpu for t in late)) if late else None,
        "queries": {"min": min(counts), "median": statistics.median(counts), "max": max(counts)},
        "db_ms_median": ms(statistics.median(d for _, _, _, d in rows)),
    }


def _hot(profiler: Any, done: int) -> dict[str, Any]:
    raw_stats: dict[Any, Any] = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    total = sum(v[3] for (file, _, func), v in raw_stats.items() if func == "get_response" and "handlers/base" in file)
    hot = {}
    for label, path, name in HOT:
        cum = sum(v[3] for (file, _, func), v in raw_stats.items() if func == name and file.endswith(path))
        if cum:
            hot[label] = {"ms": round(cum / done * 1000, 3), "share": round(cum / total, 3) if total else None}
    return hot


def profile_in_process(cfg: Config, players: list[tuple[Any, str]]) -> dict[str, Any]:
    """Where a request's time goes, in one process (no gunicorn, no concurrency), on PostgreSQL:
    a timed pass (queries counted with ``CaptureQueriesContext``), then a pass under cProfile."""
    timed = _play_in_process(cfg, players)
    post_profiler, get_profiler = cProfile.Profile(), cProfile.Profile()
    profiled = _play_in_process(cfg, players, post_profiler, get_profiler)
    text = io.StringIO()
    pstats.Stats(post_profiler, stream=text).sort_stats("cumulative").print_stats(35)
    done = timed["done"]
    return {
        "actions": done,
        "post": _summarise(timed["post"]),
        "legal_actions_get": _summarise(timed["get"]),
        "me_get": _summarise(timed["me"]),
        "query_templates_per_action": {sql: round(n / done, 2) for sql, n in timed["templates"].most_common(16)},
        "hot_post": _hot(post_profiler, profiled["done"]),
        "hot_get": _hot(get_profiler, profiled["done"]),
        "top_cumulative_post": _trim_stats(text.getvalue()),
    }


def _trim_stats(text: str) -> str:
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if "ncalls" in line), 0)
    site = str(ROOT) + "/"
    return "\n".join(line.replace(site, "").rstrip() for line in lines[start:] if line.strip())


# --- reporting ----------------------------------------------------------------------------------


def report(results: dict[str, Any]) -> str:
    c = results["config"]
    lines = [
        f"API load: {results['machine']}",
        f"command: {results['command']}",
        f"clients: {c['clients']} threads in {c['client_procs']} process(es) using {c['client_lib']};"
        f" {c['duration_s']:g} s of games, {c['floor_duration_s']:g} s of floor per run;"
        f" gunicorn {c['worker_class']} workers, {c['threads']} thread(s) each",
        "",
    ]
    for run in results["runs"]:
        g, f, t = run["games"], run["floor"], run["targets"]
        w = g["server_side"]

        def mark(name: str, t: dict[str, Any] = t) -> str:
            return f"target {t[name]['target']}: {'met' if t[name]['met'] else 'MISSED'}"

        lines += [
            f"gunicorn -w {run['workers']} -k {c['worker_class']} --threads {c['threads']},"
            f" {results['config']['clients']} concurrent games"
            f" (cores busy before the run: {run['background_cores']}):",
            f"  accepted actions/s     {g['actions_per_s']:>9.1f}   {mark('actions_per_s')}",
            f"  all requests/s         {g['requests_per_s']:>9.1f}   (GET legal-actions + POST actions)",
            f"  action POST p50        {g['action_p50_ms']:>9.1f} ms",
            f"  action POST p99        {g['action_p99_ms']:>9.1f} ms   {mark('action_p99_ms')}",
            f"  legal-actions p50/p99  {g['legal_p50_ms']:>6.1f} / {g['legal_p99_ms']:.1f} ms",
            f"  first 10 / last 10     {g['first10_median_ms']:>6.1f} / {g['last10_median_ms']:.1f} ms (medians of"
            f" {g['first10_samples']} / {g['last10_samples']} action POSTs)",
            f"  last / first           {g['last_vs_first']:>9.2f}   {mark('last_vs_first')}",
            f"  in the worker          action p50/p99 {w['action_p50_ms']} / {w['action_p99_ms']} ms, legal-actions"
            f" p50/p99 {w['legal_p50_ms']} / {w['legal_p99_ms']} ms; first 10 / last 10 {w['first10_median_ms']}"
            f" / {w['last10_median_ms']} ms, last / first {w['last_vs_first']} (access log: no wait for a worker)",
            f"  floor GET /me          {f['requests_per_s']:>9.1f} req/s (p50 {f['p50_ms']} ms, p99 {f['p99_ms']} ms;"
            f" in the worker p50 {f['server_p50_ms']} ms)",
            f"  actions/s ÷ floor      {g['actions_vs_floor']:>9.3f}   {mark('actions_vs_floor')}",
            f"  games finished / cut   {g['games_finished']} / {g['games_cut_by_deadline']}"
            f" ({g['actions_per_finished_game']} actions per game)",
            f"  non-2xx                actions {g['non_2xx_actions'] or 'none'},"
            f" legal-actions {g['non_2xx_legal_actions'] or 'none'}, floor {f['non_2xx'] or 'none'}",
            f"  server CPU per action  {g['server_cpu_ms_per_action']:>9.2f} ms (gunicorn + PostgreSQL, with its"
            f" GET legal-actions) -> {g['projected_actions_per_s']} actions/s if all cores were the server's",
            f"  server CPU per /me     {f['server_cpu_ms_per_request']:>9.2f} ms"
            f" -> {f['projected_requests_per_s']} req/s if all cores were the server's",
            f"  cores used (games)     {g['cores_used']}",
            f"  cores used (floor)     {f['cores_used']}",
        ]
        problems = {**g["problems"], **f["problems"]}
        if problems or g["pool_ran_dry"]:
            lines.append(f"  problems               {problems} pool_ran_dry={g['pool_ran_dry']}")
        lines.append("")
    profile = results.get("profile")
    if profile:
        lines.append(f"in-process profile ({profile['actions']} actions, Django test Client, PostgreSQL, no profiler):")
        for key, label in (("post", "POST actions"), ("legal_actions_get", "GET legal-actions"), ("me_get", "GET /me")):
            p = profile[key]
            lines.append(
                f"  {label:<18} median {p['ms_median']} ms wall, {p['cpu_ms_median']} ms CPU (first 10:"
                f" {p['ms_first10_median']} / {p['cpu_ms_first10_median']} ms, index >= 100:"
                f" {p['ms_index_ge_100_median']} / {p['cpu_ms_index_ge_100_median']} ms), queries {p['queries']},"
                f" SQL time median {p['db_ms_median']} ms"
            )
        for key, label in (("hot_post", "POST actions"), ("hot_get", "GET legal-actions")):
            lines.append(f"  where the time of {label} goes under cProfile (cumulative, overlapping; ms per request):")
            for name, value in profile[key].items():
                lines.append(f"    {name:<40} {value['ms']:>8.3f} ms  {value['share']:>6.1%}")
        lines.append("  queries of an action POST (per action):")
        for sql, n in profile["query_templates_per_action"].items():
            lines.append(f"    {n:>5}  {sql}")
        lines += ["  top functions of POST actions by cumulative time:", profile["top_cumulative_post"]]
    return "\n".join(lines)


def _no_nan(value: Any) -> Any:
    """``value`` with every NaN (a figure that could not be measured) as null: strict JSON."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _no_nan(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_no_nan(v) for v in value]
    return value


def main(argv: list[str] | None = None) -> int:
    cfg = parse_args(argv)
    hosts = "127.0.0.1,localhost"
    var_dir = tempfile.mkdtemp(prefix="manhattan-bench-")
    server_env = site_env(cfg.database_url, var_dir, hosts)
    # Django in this process: the same settings, plus the test Client's host for --profile.
    os.environ.update({**server_env, "ALLOWED_HOSTS": hosts + ",testserver"})
    sys.path.insert(0, str(ROOT))
    from tests.reliability.faultkit import drop_database, migrate, recreate_database

    results: dict[str, Any] = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "command": "python benchmarks/api_load.py " + " ".join(argv if argv is not None else sys.argv[1:]),
        "config": {
            "clients": cfg.clients,
            "workers": cfg.workers,
            "duration_s": cfg.duration,
            "max_duration_s": cfg.max_duration,
            "floor_duration_s": cfg.floor_duration,
            "games_per_run": cfg.games,
            "client_procs": cfg.client_procs,
            "client_lib": cfg.client_lib,
            "worker_class": cfg.worker_class,
            "threads": cfg.threads,
        },
        "runs": [],
    }
    interrupted = False

    def on_sigterm(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_sigterm)
    created = False
    try:
        parts = urlsplit(cfg.database_url)
        log(f"database {parts.path.lstrip('/')} on {parts.hostname}: drop, create, migrate")
        recreate_database(cfg.database_url, marker="bench")
        created = True
        migrate(server_env)
        import django

        django.setup()
        from django.db import connection

        start = time.monotonic()
        players = create_players(PLAYERS * cfg.clients)
        pools = []
        for _ in [] if cfg.profile_only else cfg.workers:
            games = create_games(cfg.games, players, cfg.clients)
            log(f"{len(games)} games created; bringing {len(games[: cfg.clients : LATE_EVERY])} near their end")
            pools.append(interleave_late_games(games, cfg.clients, cfg.seed))
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
        log(f"{len(players)} players, {len(pools)} × {cfg.games} games in {time.monotonic() - start:.1f} s")
        tokens = [raw for _, raw in players]
        for workers, games in zip(cfg.workers, pools, strict=False):
            connection.close()
            results["runs"].append(one_run(cfg, workers, server_env, games, tokens, var_dir))
        if cfg.profile:
            log(f"profiling {cfg.profile_actions} actions in-process")
            results["profile"] = profile_in_process(cfg, players)
    except KeyboardInterrupt:
        interrupted = True
        log("interrupted: gunicorn stopped")
    finally:
        with contextlib.suppress(Exception):
            from django.db import connections

            connections.close_all()
        if created and not cfg.keep_database:
            with contextlib.suppress(Exception):
                drop_database(cfg.database_url, marker="bench")
        shutil.rmtree(var_dir, ignore_errors=True)  # gunicorn logs, the filesystem broker's queued emails
    if not results["runs"] and "profile" not in results:
        return 130 if interrupted else 1
    text = json.dumps(_no_nan(results), indent=2, allow_nan=False)
    if cfg.save_json:
        Path(cfg.save_json).write_text(text + "\n")
    print(text if cfg.as_json else report(results))
    return 130 if interrupted else 0


if __name__ == "__main__":
    sys.exit(main())
