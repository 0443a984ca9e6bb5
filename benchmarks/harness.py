"""What the benchmarks share: Django on a scratch PostgreSQL database, players and
games made over the HTTP API, CPU clocks, medians and a table.

Nothing here imports Django (or the project) at module level, so that a script can
set the environment first, and the locustfile can use ``choose_action`` without it.
"""

from __future__ import annotations

import contextlib
import os
import random
import secrets
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
SCRATCH_MARKER = "bench_helper"  # a database is dropped only if its name contains this
DEFAULT_DATABASE = "postgres://postgres@127.0.0.1:5432/bench_helper"
# The API's throttles would answer most of a benchmark 429; raised, they are still on the path.
RAISED_THROTTLES = {
    "THROTTLE_USER": "1000000/minute",
    "THROTTLE_GAME_CREATE": "1000000/minute",
    "THROTTLE_TOKEN_CREATE": "1000000/minute",
}
CLK_TCK = os.sysconf("SC_CLK_TCK")


# --- the scratch database and the Django it serves -----------------------------------------


def _admin_url(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    if SCRATCH_MARKER not in name:
        raise SystemExit(f"refusing to drop database {name!r}: its name must contain {SCRATCH_MARKER!r}")
    return urlunsplit(parts._replace(path="/postgres")), name


def recreate_database(url: str) -> None:
    import psycopg

    admin, name = _admin_url(url)
    with psycopg.connect(admin, autocommit=True, connect_timeout=10) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def drop_database(url: str) -> None:
    import psycopg

    admin, name = _admin_url(url)
    with psycopg.connect(admin, autocommit=True, connect_timeout=10) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def site_env(database_url: str, var_dir: str, **extra: str) -> dict[str, str]:
    """The environment of the site on ``database_url``: production-like (no DEBUG, so no
    query log), files under ``var_dir``, quiet logs, throttles raised."""
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DJANGO_SETTINGS_MODULE", "EMAIL_HOST")}
    env.update(
        DJANGO_SETTINGS_MODULE="manhattan_site.settings",
        DJANGO_ENV="development",
        DEBUG="false",
        DATABASE_URL=database_url,
        VAR_DIR=var_dir,
        SECRET_KEY="bench-" + secrets.token_urlsafe(32),
        LOG_LEVEL="WARNING",
        **RAISED_THROTTLES,
    )
    env.update(extra)
    return env


def setup_django(env: dict[str, str], **settings_overrides: Any) -> None:
    """``django.setup()`` in this process with ``env``, then migrate its database."""
    os.environ.update(env)
    import django
    from django.conf import settings

    for name, value in settings_overrides.items():
        setattr(settings, name, value)  # before setup, so Celery reads them too
    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


# --- the API through Django's test client --------------------------------------------------


class Api:
    """Django's test client, a bearer token per call. ``cpu_ns`` and ``wall_ns`` are the
    last request's cost inside the WSGI handler (the server's side: signals, middleware,
    token authentication, view, rendering), on this thread's CPU clock and on the wall."""

    def __init__(self) -> None:
        from django.test import Client

        self.client = Client()
        self.cpu_ns = self.wall_ns = 0
        handler = self.client.handler

        def timed(environ: dict[str, Any]) -> Any:
            wall, cpu = time.perf_counter_ns(), time.thread_time_ns()
            response = handler(environ)
            self.cpu_ns, self.wall_ns = time.thread_time_ns() - cpu, time.perf_counter_ns() - wall
            return response

        self.client.handler = timed  # type: ignore[assignment]

    def call(self, method: str, path: str, token: str, body: Any = None, expect: int = 200) -> Any:
        headers = {"Authorization": f"Bearer {token}"}
        if method == "GET":
            response = self.client.get(path, headers=headers)
        else:
            response = self.client.post(path, body or {}, content_type="application/json", headers=headers)
        if response.status_code != expect:
            raise RuntimeError(f"{method} {path}: {response.status_code} {response.content[:300]!r}")
        return response.json()


class Player(NamedTuple):
    email: str
    token: str


def new_players(count: int, prefix: str = "bench") -> list[Player]:
    """``count`` new users, each with an API token made over the API (signed in by session
    for that one request)."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    run = secrets.token_hex(4)
    players = []
    for i in range(count):
        user = get_user_model().objects.create_user(email=f"{prefix}-{run}-{i}@example.com")
        client = Client()
        client.force_login(user)
        response = client.post("/api/v1/tokens", {"name": prefix}, content_type="application/json")
        if response.status_code != 201:
            raise RuntimeError(f"POST /api/v1/tokens: {response.status_code} {response.content[:300]!r}")
        players.append(Player(user.email, response.json()["token"]))
    return players


def new_game(api: Api, players: Sequence[Player]) -> dict[str, Any]:
    """A started game of ``len(players)`` human players, over the API: the creator (seat 0)
    invites the others by email, they join (the last join deals). The game's body, as the creator sees it."""
    seats = [{"kind": "me"}] + [{"kind": "invite", "email": p.email} for p in players[1:]]
    body = {"options": {"players": len(players)}, "seats": seats}
    game_id = api.call("POST", "/api/v1/games", players[0].token, body, expect=201)["id"]
    for player in players[1:]:
        api.call("POST", f"/api/v1/games/{game_id}/join", player.token)
    game = dict(api.call("GET", f"/api/v1/games/{game_id}", players[0].token))
    if game["status"] == "lobby":  # code from before full games dealt themselves (--compare)
        game = dict(api.call("POST", f"/api/v1/games/{game_id}/start", players[0].token))
    return game


def choose_action(legal: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A random legal action from a legal-actions body: random pieces of the reserve, or
    a random placement."""
    selection = legal.get("selection")
    if selection:
        pool = [int(size) for size, n in selection["reserve"].items() for _ in range(n)]
        return {"type": "select", "pieces": sorted(rng.sample(pool, min(selection["count"], len(pool))))}
    card, option = rng.choice([(p["card"], o) for p in legal["placements"] for o in p["options"]])
    return {"type": "place", "card": card, "city": option["city"], "size": option["size"], "colour": option["colour"]}


def play(api: Api, game: dict[str, Any], players: Sequence[Player], rng: random.Random) -> int:
    """Play ``game`` to its end over the API (legal actions, then a random one of them,
    for whoever is to act): the number of moves."""
    url = f"/api/v1/games/{game['id']}"
    moves = 0
    while game["status"] == "active":
        token = players[game["to_act_seat"]].token
        legal = api.call("GET", f"{url}/legal-actions", token)
        action = choose_action(legal, rng)
        game = api.call("POST", f"{url}/actions", token, {"action": action, "expected_version": legal["version"]})
        game = game["game"]
        moves += 1
    return moves


# --- processes, figures and tables ---------------------------------------------------------


def process_cpu(pid: int) -> float:
    """CPU seconds (user + system) a process has used, from /proc."""
    raw = Path(f"/proc/{pid}/stat").read_text()
    fields = raw[raw.rindex(")") + 2 :].split()  # the command name may hold spaces
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


@contextlib.contextmanager
def subprocess_in_session(command: list[str], env: dict[str, str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """Run ``command`` in its own session (its output in ``log``) and stop its whole group after."""
    import signal

    with log.open("ab") as sink:
        process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=sink, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        yield process
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def wait_until(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.05)


def median(values: Sequence[float]) -> float:
    return float(statistics.median(values))


def ratio(a: float, b: float) -> float:
    return round(a / b, 2) if b else float("nan")


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A Markdown table, to paste into docs/benchmarks.md as it is."""
    lines = ["| " + " | ".join(headers) + " |", "|" + " --- |" * len(headers)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)
