"""Races over HTTP: 32 concurrent clients send the same next action at the same version, 1,000 times.

The long version of ``tests/reliability/test_races.py`` (docs/reliability.md, "Races"). Everything
runs against 127.0.0.1, bounded in count and time; the subprocesses are stopped whatever happens.

1. **Database.** Drops and re-creates a PostgreSQL database (``rel_races`` on 127.0.0.1 by default;
   its name must start with ``rel_`` because it is dropped) and migrates it (``manage.py migrate``
   in a subprocess).
2. **Games.** In this process (``django.setup()`` on the same database), ``--games`` two-player
   games are created and started through ``games.services``, each between two new users holding
   32 API tokens each (one per client: every client is a separate device of the player).
3. **Server.** ``gunicorn manhattan_site.wsgi -k gthread -w 4 --threads 8`` on a free port: 32
   requests can be inside Django (and inside a database transaction) at once. The per-user throttle
   is lifted (``THROTTLE_USER``), since 32 devices of one player post together every round.
4. **Rounds.** For round ``r`` the game ``r % games`` is read in this process, one legal action of
   the seat to act is chosen at random (a selection of random pieces, or a random placement), and
   32 threads, each with its own keep-alive HTTP connection and its own token, are released by a
   barrier to POST that action at that version:

   * ``plain`` rounds (``--rounds``, 1,000): half send ``expected_version`` in the body, half an
     ``If-Match`` header. Exactly one must get 200; the others 409 ``stale_version`` or 412
     ``precondition_failed``, each naming the new version.
   * ``same-key`` rounds (``--key-rounds``): all 32 send one ``Idempotency-Key`` (a client's
     retries racing each other): all must get 200 with the same body, and one event be added.
   * ``two-keys`` rounds (``--key-rounds``): 16 send key A and 16 key B: one key's requests all
     get the stored success, the other's all 409, and one event is added.

   After every round the game's log is read back: the winner's version must be the game's, the
   events numbered 1..version with no gap and no duplicate. A finished game is replaced by a new one.
5. **Final check.** Over every game in the database: events per game = version = highest seq =
   distinct seqs, and the log folds (``games.engine.fold``) to the stored version and turn.

Figures: accepted-per-round distribution, statuses, gaps and duplicates found, time per round
(release to last answer, p50/p99) and in all.

    PYTHONPATH=. .venv/bin/python benchmarks/races.py            # 1,000 plain + 2 × 250 key rounds
    PYTHONPATH=. .venv/bin/python benchmarks/races.py --quick    # 50 + 2 × 10 rounds, a smoke run
    PYTHONPATH=. .venv/bin/python benchmarks/races.py --json     # the results as JSON on stdout
"""

from __future__ import annotations

import argparse
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/rel_races"
TOKENS_PER_PLAYER = 32
MAX_SECONDS = 3600.0  # the whole run stops after this, whatever is left


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@dataclass
class Config:
    database_url: str
    rounds: int
    key_rounds: int
    clients: int
    games: int
    workers: int
    threads: int
    seed: int
    as_json: bool
    keep_database: bool


def parse_args(argv: list[str] | None) -> Config:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL, help="PostgreSQL database (dropped first)")
    parser.add_argument("--rounds", type=int, help="plain rounds (1,000; 50 with --quick)")
    parser.add_argument("--key-rounds", type=int, help="rounds of each Idempotency-Key kind (250; 10 with --quick)")
    parser.add_argument("--clients", type=int, default=32, help="concurrent clients per round (at most 32)")
    parser.add_argument("--games", type=int, default=20, help="games the rounds go round")
    parser.add_argument("--workers", type=int, default=4, help="gunicorn workers")
    parser.add_argument("--threads", type=int, default=8, help="threads per gunicorn worker (gthread)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--keep-database", action="store_true")
    args = parser.parse_args(argv)
    if not 2 <= args.clients <= TOKENS_PER_PLAYER:
        parser.error(f"--clients must be 2..{TOKENS_PER_PLAYER}")
    return Config(
        database_url=args.database_url,
        rounds=args.rounds if args.rounds is not None else (50 if args.quick else 1000),
        key_rounds=args.key_rounds if args.key_rounds is not None else (10 if args.quick else 250),
        clients=args.clients,
        games=args.games,
        workers=args.workers,
        threads=args.threads,
        seed=args.seed,
        as_json=args.json,
        keep_database=args.keep_database,
    )


# --- games ---------------------------------------------------------------------------------------


@dataclass
class Table:
    public_id: str
    pk: int
    tokens: dict[int, list[str]]  # seat -> the player's tokens


def new_table(number: int) -> Table:
    from accounts.models import User
    from accounts.services import create_api_token
    from games import services

    stamp = f"{os.getpid()}-{number}-{time.monotonic_ns()}"
    users = [User.objects.create_user(email=f"race-{stamp}-{seat}@example.com") for seat in (0, 1)]
    game = services.create_game(
        creator=users[0],
        options={"players": 2},
        seats=[services.SeatSpec("me"), services.SeatSpec("invite", email=users[1].email)],
    )
    services.join_game(game=game, user=users[1])
    game = services.start_game(game=game, user=users[0])
    tokens = {
        seat: [create_api_token(user=user, name=f"race {i}").raw for i in range(TOKENS_PER_PLAYER)]
        for seat, user in enumerate(users)
    }
    return Table(public_id=str(game.public_id), pk=game.pk, tokens=tokens)


def next_action(table: Table, rng: random.Random) -> tuple[int, int, dict[str, Any]] | None:
    """(seat to act, version, a random legal action in JSON), or None if the game is over."""
    from tests.reliability.faultkit import legal_move

    return legal_move(table.pk, rng)


def log_of(pk: int) -> list[int]:
    from games.models import GameEvent

    return list(GameEvent.objects.filter(game_id=pk).order_by("seq").values_list("seq", flat=True))


# --- rounds -----------------------------------------------------------------------------------------


@dataclass
class Results:
    accepted_per_round: dict[str, Counter[int]] = field(default_factory=dict)
    statuses: dict[str, Counter[str]] = field(default_factory=dict)
    round_s: dict[str, list[float]] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    events_added: int = 0
    games_used: int = 0
    games_finished: int = 0

    def note(self, kind: str, accepted: int, statuses: list[str], seconds: float) -> None:
        self.accepted_per_round.setdefault(kind, Counter())[accepted] += 1
        self.statuses.setdefault(kind, Counter()).update(statuses)
        self.round_s.setdefault(kind, []).append(seconds)


def fire(clients: list[Any], calls: list[tuple[str, dict[str, Any], dict[str, str]]]) -> list[tuple[int, Any]]:
    """Each client sends its (path, body, headers) at the same moment; [(status, parsed body)]."""
    barrier = threading.Barrier(len(calls))
    answers: list[Any] = [None] * len(calls)

    def run(i: int) -> None:
        path, body, headers = calls[i]
        try:
            barrier.wait(timeout=60)
            status, _, content = clients[i].request("POST", path, body, headers)
            try:
                parsed = json.loads(content)
            except ValueError:
                parsed = {"raw": content[:200].decode(errors="replace")}
            answers[i] = (status, parsed)
        except Exception as error:
            answers[i] = (0, {"error": repr(error)})

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    return [a if a is not None else (0, {"error": "no answer within 120 s"}) for a in answers]


def label(status: int, body: Any) -> str:
    code = body.get("code") if isinstance(body, dict) else None
    return f"{status} {code}" if code else str(status)


def play_round(kind: str, number: int, table: Table, clients: list[Any], rng: random.Random, results: Results) -> bool:
    """One round; False if the table's game is over (nothing was sent)."""
    move = next_action(table, rng)
    if move is None:
        return False
    seat, version, action = move
    tokens = table.tokens[seat][: len(clients)]
    path = f"/api/v1/games/{table.public_id}/actions"
    calls = []
    for i, token in enumerate(tokens):
        headers = {"Authorization": f"Bearer {token}"}
        body: dict[str, Any] = {"action": action, "expected_version": version}
        if kind == "plain" and i % 2:
            body = {"action": action}
            headers["If-Match"] = f'"{version}"'
        elif kind == "same-key":
            headers["Idempotency-Key"] = f"race-{number}"
        elif kind == "two-keys":
            headers["Idempotency-Key"] = f"race-{number}-{'ab'[i % 2]}"
        calls.append((path, body, headers))

    started = time.perf_counter()
    answers = fire(clients, calls)
    seconds = time.perf_counter() - started

    winners = [body for status, body in answers if status == 200]
    results.note(kind, len(winners), [label(s, b) for s, b in answers], seconds)
    seqs = log_of(table.pk)
    from games.models import Game

    stored_version = Game.objects.values_list("version", flat=True).get(pk=table.pk)
    problem = ""
    if seqs != list(range(1, stored_version + 1)):
        problem = f"log of {table.public_id} is not 1..{stored_version}: {seqs[-10:]}"
    elif stored_version <= version:
        problem = f"no event was added at version {version}"
    elif kind == "plain":
        if len(winners) != 1:
            problem = f"{len(winners)} accepted"
        else:
            expected = {"200", "409 stale_version", "412 precondition_failed"}
            odd = [label(s, b) for s, b in answers if label(s, b) not in expected]
            stale = [b.get("current_version") for s, b in answers if s in (409, 412)]
            if odd:
                problem = f"unexpected answers {Counter(odd)}"
            elif winners[0]["version"] != stored_version or any(v != stored_version for v in stale):
                problem = f"versions disagree: stored {stored_version}, winner {winners[0]['version']}, stale {stale}"
    elif kind == "same-key":
        if len(winners) != len(answers) or any(w != winners[0] for w in winners):
            problem = f"not every retry got the one stored answer: {Counter(label(s, b) for s, b in answers)}"
        elif winners[0]["version"] != stored_version:
            problem = "the stored answer is not the stored version"
    else:  # two-keys
        by_key: dict[str, list[tuple[int, Any]]] = {"a": [], "b": []}
        for i, answer in enumerate(answers):
            by_key["ab"[i % 2]].append(answer)
        outcome = sorted(
            (
                "won" if all(s == 200 and b == group[0][1] for s, b in group) else
                "lost" if all(s == 409 for s, _ in group) else "mixed"
            )
            for group in by_key.values()
        )  # fmt: skip
        if outcome != ["lost", "won"]:
            problem = f"keys {outcome}: {Counter(label(s, b) for s, b in answers)}"
    if problem:
        results.failures.append(f"round {number} ({kind}, game {table.public_id} v{version}): {problem}")
        log(f"  FAIL {results.failures[-1]}")
    results.events_added += stored_version - version
    return True


def final_check() -> dict[str, Any]:
    """Every game in the database: no gap, no duplicate, and the log folds to the stored game."""
    from django.db import connection

    from games import services
    from games.models import Game

    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT g.id, g.version, count(e.id), coalesce(max(e.seq), 0), count(DISTINCT e.seq)
            FROM games_game g LEFT JOIN games_gameevent e ON e.game_id = g.id
            GROUP BY g.id, g.version
            """
        )
        rows = cursor.fetchall()
    gaps = [pk for pk, version, n, top, distinct in rows if not (n == distinct == top == version)]
    duplicates = [pk for pk, _, n, _, distinct in rows if n != distinct]
    unfolded = []
    for game in Game.objects.exclude(status=Game.Status.LOBBY):
        state = services.load_state(game)
        if state is None or state.seq != game.version or state.to_act != game.to_act_seat:
            unfolded.append(game.pk)
    events = sum(n for _, _, n, _, _ in rows)
    return {"games": len(rows), "events": events, "gaps": gaps, "duplicates": duplicates, "fold_mismatch": unfolded}


# --- main --------------------------------------------------------------------------------------------


def percentile(values: list[float], share: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def run(cfg: Config) -> dict[str, Any]:
    from tests.reliability.faultkit import Gunicorn, Http, migrate, recreate_database

    load_before = os.getloadavg()[0]
    var_dir = tempfile.mkdtemp(prefix="rel-races-")
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DJANGO_SETTINGS_MODULE")}
    env.update(
        DATABASE_URL=cfg.database_url,
        DJANGO_SETTINGS_MODULE="manhattan_site.settings",
        DJANGO_ENV="development",
        DEBUG="false",
        VAR_DIR=var_dir,
        LOG_LEVEL="WARNING",
        THROTTLE_USER="10000000/minute",
        PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep),
    )
    log(f"database {cfg.database_url}: re-creating and migrating")
    recreate_database(cfg.database_url)
    migrate(env)
    os.environ.update({k: env[k] for k in ("DATABASE_URL", "DJANGO_SETTINGS_MODULE", "DJANGO_ENV", "VAR_DIR")})
    os.environ["LOG_LEVEL"] = "WARNING"
    import django

    django.setup()
    from manhattan_site.celery import app

    app.conf.broker_url = "memory://"  # on-commit tasks of this process go nowhere (no bots in these games)

    rng = random.Random(cfg.seed)
    tables = [new_table(i) for i in range(cfg.games)]
    results = Results(games_used=len(tables))
    schedule = ["plain"] * cfg.rounds + ["same-key"] * cfg.key_rounds + ["two-keys"] * cfg.key_rounds
    rng.shuffle(schedule)
    server = Gunicorn(env, workers=cfg.workers, threads=cfg.threads)
    clients = [Http(server.port) for _ in range(cfg.clients)]
    started = time.perf_counter()
    deadline = time.monotonic() + MAX_SECONDS
    try:
        server.start()
        log(f"gunicorn -w {cfg.workers} --threads {cfg.threads} on port {server.port}; {len(schedule)} rounds")
        for number, kind in enumerate(schedule):
            if time.monotonic() > deadline:
                results.failures.append(f"stopped after {number} rounds: the run took over {MAX_SECONDS:.0f} s")
                break
            slot = number % len(tables)
            while not play_round(kind, number, tables[slot], clients, rng, results):
                results.games_finished += 1
                tables[slot] = new_table(len(tables) + results.games_finished)
                results.games_used += 1
            if (number + 1) % 100 == 0:
                log(f"  {number + 1} rounds, {time.perf_counter() - started:.0f} s, failures: {len(results.failures)}")
        elapsed = time.perf_counter() - started
        server_errors = [line for line in server.log().splitlines() if "Traceback" in line or "Error" in line]
    finally:
        for client in clients:
            client.close()
        server.stop()
    check = final_check()
    out = {
        "environment": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
            "load_before": load_before,
            "load_after": os.getloadavg()[0],
        },
        "config": {k: v for k, v in cfg.__dict__.items() if k != "as_json"},
        "rounds": {kind: sum(c.values()) for kind, c in results.accepted_per_round.items()},
        "accepted_per_round": {kind: dict(sorted(c.items())) for kind, c in results.accepted_per_round.items()},
        "statuses": {kind: dict(c.most_common()) for kind, c in results.statuses.items()},
        "round_ms": {
            kind: {
                "p50": round(statistics.median(v) * 1000, 1),
                "p99": round(percentile(v, 0.99) * 1000, 1),
                "max": round(max(v) * 1000, 1),
            }
            for kind, v in results.round_s.items()
        },
        "events_added": results.events_added,
        "games_used": results.games_used,
        "games_finished": results.games_finished,
        "elapsed_s": round(elapsed, 1),
        "final_check": {**check, "gaps": len(check["gaps"]), "duplicates": len(check["duplicates"]),
                        "fold_mismatch": len(check["fold_mismatch"])},
        "failures": results.failures[:50],
        "failure_count": len(results.failures),
        "server_error_lines": len(server_errors),
    }  # fmt: skip
    if not cfg.keep_database:
        from django.db import connections

        from tests.reliability.faultkit import drop_database

        connections.close_all()
        drop_database(cfg.database_url)
    shutil.rmtree(var_dir, ignore_errors=True)
    return out


def report(r: dict[str, Any]) -> str:
    lines = [
        f"Races: {r['config']['clients']} clients per round, gunicorn -w {r['config']['workers']} "
        f"--threads {r['config']['threads']}, {r['elapsed_s']} s in all "
        f"(load average {r['environment']['load_before']:.1f} before, {r['environment']['load_after']:.1f} after, "
        f"{r['environment']['cpus']} CPUs)",
    ]
    for kind in ("plain", "same-key", "two-keys"):
        if kind not in r["rounds"]:
            continue
        ms = r["round_ms"][kind]
        lines.append(
            f"  {kind:9} {r['rounds'][kind]:5} rounds; 200s per round {r['accepted_per_round'][kind]}; "
            f"round p50 {ms['p50']} ms, p99 {ms['p99']} ms, max {ms['max']} ms"
        )
        lines.append(f"            answers {r['statuses'][kind]}")
    fc = r["final_check"]
    lines.append(
        f"  events added {r['events_added']}; final check over {fc['games']} games / {fc['events']} events: "
        f"gaps {fc['gaps']}, duplicates {fc['duplicates']}, fold mismatches {fc['fold_mismatch']}"
    )
    lines.append(f"  failed rounds {r['failure_count']}; gunicorn error lines {r['server_error_lines']}")
    lines.extend(f"    {f}" for f in r["failures"][:10])
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    here = str(Path(__file__).resolve().parent)
    sys.path[:] = [str(ROOT)] + [p for p in sys.path if p and str(Path(p).resolve()) not in (here, str(ROOT))]
    cfg = parse_args(argv)
    results = run(cfg)
    if cfg.as_json:
        print(json.dumps(results, indent=2))
    else:
        print(report(results))
    ok = (
        results["failure_count"] == 0
        and not any(results["final_check"][k] for k in ("gaps", "duplicates", "fold_mismatch"))
        and results["server_error_lines"] == 0
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
