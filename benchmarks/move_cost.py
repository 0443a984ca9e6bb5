"""The move-cost benchmark: the performance budget of a move, as ratios measured in one run.

In one process, through Django's test client (a real ``Authorization: Bearer`` API token on
every request, so token authentication is on the path), on a scratch PostgreSQL database:

* four players get API tokens over the API; each game is created over the API (four human
  seats: the creator invites three by email, they join, the creator starts), so no bot move
  is ever queued. Celery is not eager: tasks (the emails) are published on commit to the
  in-memory broker, as cheap as publishing gets, and never run;
* games are played to their end: for the player to act, ``GET /api/v1/me`` (the floor: the
  framework, the token and nothing else), then a **move**: ``GET …/legal-actions`` and
  ``POST …/actions`` with a random legal action and ``expected_version``;
* each request's server CPU is this thread's CPU clock (``time.thread_time_ns``) around
  the test client's WSGI handler, so it leaves out the client and PostgreSQL's own process;
* the first game is played untimed, to warm every path up, counting each request's queries
  with ``CaptureQueriesContext`` instead (counting would skew the timing).

Figures (medians over every move of the timed games):

* move CPU ÷ ``GET /me`` CPU (budget ≤ 4);
* queries per move, and per request (budget ≤ 10 per move);
* moves of a game's last round ÷ moves of its first round, on CPU (budget ≤ 1.2).

``--compare REV`` measures the project at commit REV too, in the same run: its tree is
exported (``git archive``, without benchmarks/ and tests/) to a temporary directory and
this script runs as a subprocess there, product code from REV and this benchmark from the
working tree, on a database of its own; old and new alternate ``--alternations`` times, and
each column is the median of its runs.

    python -m benchmarks.move_cost                  # 6 timed games, about 2 minutes
    python -m benchmarks.move_cost --quick --json   # 1 timed game
    python -m benchmarks.move_cost --compare        # before (126a99d) and after, 3 runs each
    python -m benchmarks.move_cost --show-queries   # and the SQL of one mid-game move
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from typing import Any

from benchmarks.harness import (
    DEFAULT_DATABASE,
    ROOT,
    Api,
    choose_action,
    drop_database,
    log,
    median,
    new_game,
    new_players,
    ratio,
    recreate_database,
    setup_django,
    site_env,
    table,
)

DEFAULT_REV = "126a99d"  # main before the restructure: reads and writes of a move in hand-written SQL
BUDGET = {"move_vs_me": 4.0, "queries_per_move": 10, "last_vs_first": 1.2}
KINDS = ("me", "legal", "post")


def measure(timed_games: int, seed: int, show_queries: bool) -> dict[str, Any]:
    """Play one counting game and ``timed_games`` timed games; the figures."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    api, rng = Api(), random.Random(seed)
    players = new_players(4)
    queries: dict[str, list[int]] = {kind: [] for kind in KINDS}
    sql: dict[str, list[str]] = {}
    moves: list[dict[str, Any]] = []  # per timed move: game, round, CPU and wall per request

    def request(move: dict[str, Any] | None, kind: str, token: str, method: str, path: str, body: Any = None) -> Any:
        """Timed into ``move``; in the counting game (no ``move``), its queries counted instead."""
        if move is not None:
            result = api.call(method, path, token, body)
            move[kind], move[kind + "_wall"] = api.cpu_ns, api.wall_ns
            return result
        shown = show_queries and len(queries["post"]) == 40  # a move in the middle of round 2
        with CaptureQueriesContext(connection) as captured:
            result = api.call(method, path, token, body)
        queries[kind].append(len(captured))
        if shown:
            sql[kind] = [q["sql"] for q in captured.captured_queries]
        return result

    for number in range(timed_games + 1):
        game = new_game(api, players)
        url = f"/api/v1/games/{game['id']}"
        while game["status"] == "active":
            token = players[game["to_act_seat"]].token
            move = {"game": number, "round": game["round"]} if number else None
            request(move, "me", token, "GET", "/api/v1/me")
            legal = request(move, "legal", token, "GET", f"{url}/legal-actions")
            body = {"action": choose_action(legal, rng), "expected_version": legal["version"]}
            game = request(move, "post", token, "POST", f"{url}/actions", body)["game"]
            if move is not None:
                moves.append(move)
    import games  # where the product code came from: --compare checks it is the tree it meant

    return {**summarise(moves, queries, sql), "code": os.path.dirname(os.path.dirname(games.__file__))}


def summarise(moves: list[dict[str, Any]], queries: dict[str, list[int]], sql: dict[str, list[str]]) -> dict[str, Any]:
    def us(values: list[float]) -> float:
        return round(median(values) / 1000, 1)

    cpu = {kind: us([m[kind] for m in moves]) for kind in KINDS}
    cpu["move"] = us([m["legal"] + m["post"] for m in moves])
    wall = {kind: us([m[kind + "_wall"] for m in moves]) for kind in KINDS}
    wall["move"] = us([m["legal_wall"] + m["post_wall"] for m in moves])
    rounds: dict[int, tuple[int, int]] = {}
    for m in moves:
        low, high = rounds.get(m["game"], (m["round"], m["round"]))
        rounds[m["game"]] = (min(low, m["round"]), max(high, m["round"]))
    first = us([m["legal"] + m["post"] for m in moves if m["round"] == rounds[m["game"]][0]])
    last = us([m["legal"] + m["post"] for m in moves if m["round"] == rounds[m["game"]][1]])
    per_move = [a + b for a, b in zip(queries["legal"], queries["post"], strict=True)]
    return {
        "moves": len(moves),
        "games": len(rounds),
        "cpu_us": cpu,
        "wall_us": wall,
        "move_vs_me": ratio(cpu["move"], cpu["me"]),
        "legal_vs_me": ratio(cpu["legal"], cpu["me"]),
        "post_vs_me": ratio(cpu["post"], cpu["me"]),
        "wall_move_vs_me": ratio(wall["move"], wall["me"]),
        "first_round_move_us": first,
        "last_round_move_us": last,
        "last_vs_first": ratio(last, first),
        "queries": {kind: {"median": median(n), "max": max(n)} for kind, n in queries.items()},
        "queries_per_move": {"median": median(per_move), "max": max(per_move)},
        "sql": sql,
    }


# --- one measurement in this process, or several in subprocesses on two trees ---------------


def run_here(args: argparse.Namespace) -> dict[str, Any]:
    """Set Django up on ``args.database_url`` (migrated, not recreated) and measure."""
    with tempfile.TemporaryDirectory(prefix="bench-move-cost-") as var_dir:
        # Tasks are published to the in-memory broker on commit and never run: publishing
        # is on the path of a move, the work of a worker is not (benchmarks/emails.py has it).
        setup_django(
            site_env(args.database_url, var_dir),
            CELERY_BROKER_URL="memory://",
            CELERY_TASK_ALWAYS_EAGER=False,
        )
        from manhattan_site.celery import app

        assert app.conf.broker_url == "memory://", "Celery read its settings before they were set"
        assert not app.conf.task_always_eager
        return measure(args.games, args.seed, args.show_queries)


def export_tree(rev: str, into: str) -> str:
    """The project's files at ``rev`` (its product code, settings and templates) in ``into``."""
    archive = subprocess.run(["git", "archive", rev], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", into], input=archive, check=True)
    for own in ("benchmarks", "tests"):  # this run's benchmark, never REV's, must be imported
        shutil.rmtree(os.path.join(into, own), ignore_errors=True)
    return subprocess.run(["git", "rev-parse", "--short", rev], cwd=ROOT, capture_output=True, text=True).stdout.strip()


def run_child(tree: str, database_url: str, args: argparse.Namespace) -> dict[str, Any]:
    """This script, as a subprocess whose product code comes from ``tree`` (first on the path)."""
    command = [sys.executable, "-m", "benchmarks.move_cost", "--child", "--json"]
    command += ["--games", str(args.games), "--seed", str(args.seed), "--database-url", database_url]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(dict.fromkeys([tree, str(ROOT)])))
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"the run in {tree} failed:\n{done.stderr[-3000:]}")
    results = dict(json.loads(done.stdout))
    assert os.path.samefile(results["code"], tree), f"measured the code in {results['code']}, not in {tree}"
    return results


def compare(args: argparse.Namespace) -> dict[str, Any]:
    described = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=ROOT, capture_output=True, text=True)
    urls = {side: f"{args.database_url}_{side}" for side in ("old", "new")}
    runs: dict[str, list[dict[str, Any]]] = {"old": [], "new": []}
    with tempfile.TemporaryDirectory(prefix="bench-move-cost-old-") as old_tree:
        label = {"old": export_tree(args.compare, old_tree), "new": described.stdout.strip()}
        trees = {"old": old_tree, "new": str(ROOT)}
        for url in urls.values():
            recreate_database(url)
        try:
            for turn in range(args.alternations):
                for side in ("old", "new") if turn % 2 == 0 else ("new", "old"):
                    log(f"run {turn + 1}/{args.alternations}: {side} ({label[side]})")
                    runs[side].append(run_child(trees[side], urls[side], args))
        finally:
            for url in urls.values():
                drop_database(url)
    return {"labels": label, "runs": runs, "old": combine(runs["old"]), "new": combine(runs["new"])}


def combine(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The median of each figure over the runs (the first run's, for what is not a number)."""
    if len(runs) == 1:
        return runs[0]

    def merge(values: list[Any]) -> Any:
        if isinstance(values[0], dict):
            return {key: merge([v[key] for v in values]) for key in values[0]}
        return round(median(values), 2) if isinstance(values[0], int | float) else values[0]

    return dict(merge(runs))


# --- the report ---------------------------------------------------------------------------


def budget_rows(r: dict[str, Any]) -> list[list[Any]]:
    q = r["queries"]
    per_move = f"{r['queries_per_move']['median']:g} ({q['legal']['median']:g} + {q['post']['median']:g})"
    return [
        [
            "move CPU ÷ GET /me CPU",
            f"{r['move_vs_me']:.2f}×",
            f"≤ {BUDGET['move_vs_me']:g}×",
            _met(r["move_vs_me"] <= BUDGET["move_vs_me"]),
        ],
        [
            "queries per move (legal-actions + action)",
            per_move,
            "≤ 10",
            _met(r["queries_per_move"]["max"] <= BUDGET["queries_per_move"]),
        ],
        [
            "last round ÷ first round, move CPU",
            f"{r['last_vs_first']:.2f}",
            "≤ 1.2",
            _met(r["last_vs_first"] <= BUDGET["last_vs_first"]),
        ],
    ]


def _met(ok: bool) -> str:
    return "yes" if ok else "**no**"


def request_rows(r: dict[str, Any]) -> list[list[Any]]:
    names = {"me": "GET /me", "legal": "GET legal-actions", "post": "POST actions", "move": "move (both)"}
    q = {**r["queries"], "move": r["queries_per_move"]}
    return [
        [name, f"{r['cpu_us'][k]:,.0f} µs", f"{ratio(r['cpu_us'][k], r['cpu_us']['me']):.2f}",
         f"{r['wall_us'][k]:,.0f} µs", f"{q[k]['median']:g} (max {q[k]['max']:g})"]
        for k, name in names.items()
    ]  # fmt: skip


def report(results: dict[str, Any]) -> str:
    if "old" not in results:
        r = results
        head = f"Move cost: {r['moves']} moves of {r['games']} games (medians)"
        return "\n\n".join([
            head,
            table(["Figure", "Measured", "Budget", "Met?"], budget_rows(r)),
            table(["Request", "server CPU", "÷ GET /me", "wall", "queries"], request_rows(r)),
            *(f"{kind}:\n" + "\n".join("  " + s[:200] for s in statements) for kind, statements in r["sql"].items()),
        ])  # fmt: skip
    old, new, label = results["old"], results["new"], results["labels"]
    figures = [  # name, key, sub-key, format
        ("move CPU ÷ GET /me CPU (≤ 4)", "move_vs_me", None, "{:.2f}×"),
        ("queries per move (≤ 10)", "queries_per_move", "median", "{:g}"),
        ("last round ÷ first round (≤ 1.2)", "last_vs_first", None, "{:.2f}"),
        ("GET /me, server CPU", "cpu_us", "me", "{:,.0f} µs"),
        ("GET legal-actions, server CPU", "cpu_us", "legal", "{:,.0f} µs"),
        ("POST actions, server CPU", "cpu_us", "post", "{:,.0f} µs"),
        ("move, server CPU", "cpu_us", "move", "{:,.0f} µs"),
        ("move, wall", "wall_us", "move", "{:,.0f} µs"),
    ]
    rows = []
    for name, key, sub, form in figures:
        a, b = (old[key], new[key]) if sub is None else (old[key][sub], new[key][sub])
        rows.append([name, form.format(a), form.format(b), f"{ratio(b, a):.2f}"])
    head = f"Move cost, before and after ({len(results['runs']['new'])} alternating runs each, medians)"
    headers = ["Figure", f"before ({label['old']})", f"after ({label['new']})", "after ÷ before"]
    return head + "\n\n" + table(headers, rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--games", type=int, help="timed games per run (6; 1 with --quick)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="a smoke run")
    parser.add_argument("--json", action="store_true", help="the results as JSON on stdout")
    parser.add_argument("--compare", nargs="?", const=DEFAULT_REV, metavar="REV", help=f"also REV ({DEFAULT_REV})")
    parser.add_argument("--alternations", type=int, help="runs of each side with --compare (3; 1 with --quick)")
    parser.add_argument("--show-queries", action="store_true", help="print the SQL of one mid-game move")
    parser.add_argument("--database-url", default=DEFAULT_DATABASE + "_move_cost", help="scratch (dropped)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)  # one run on a database made for it
    args = parser.parse_args(argv)
    args.games = args.games or (1 if args.quick else 6)
    args.alternations = args.alternations or (1 if args.quick else 3)
    if args.child:
        results = run_here(args)
    elif args.compare:
        results = compare(args)
    else:
        recreate_database(args.database_url)
        try:
            results = run_here(args)
        finally:
            from django.db import connections

            connections.close_all()
            drop_database(args.database_url)
    print(json.dumps(results, indent=1) if args.json else report(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
