"""Benchmark the rules engine against the engine it replaced, side by side in one run.

The baseline is ``games/engine`` as of commit 126a99d, taken with ``git archive``
into a temporary directory and imported as the package ``baseline_engine`` (the
engine uses only relative imports). Both engines get the same inputs: the same
seeds, and the same stored logs (made by the baseline; today's engine makes
byte-identical ones, see tests/engine/test_baseline_equivalence.py).

Timing is plain ``time.perf_counter``: each figure is measured in batches,
alternating baseline and today's engine batch by batch (so a busy neighbour
slows both alike), and the median batch is reported. The speed-up is the ratio
of the two medians. GC is on, as in production; one process, one core.

1. Random four-player games: ``simulate.play_game`` with four random bots
   (views, bots, commands, events). Today's simulator takes the trusted path
   for its own bots; the same loop through the validating ``execute`` is shown
   too. Target: 4x.
2. Fold of a finished four-player game: ``fold(events)``. Target: 4x.
3. A greedy decision: ``greedy_bot(player_view(state, seat))`` in rounds 2-3. Target: 5x.
4. Legal-action listing: ``legal_actions(player_view(state, seat))``, same positions. Target: 2x.
Each batch of 2-4 passes over its inputs eight times (a batch of single decisions would
otherwise last a millisecond or two, too short to even out a neighbour's bursts).
And, for information, the strong bot's search iterations per second.

    python -m benchmarks.engine            # under a minute on a quiet machine
    python -m benchmarks.engine --quick    # a smoke run of a few seconds
    python -m benchmarks.engine --json     # the figures as JSON
    python -m benchmarks.engine --only fold,games  # just those figures (while iterating)
"""

from __future__ import annotations

import argparse
import importlib
import io
import json
import random
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import games.engine as engine
from games.engine import bots, search, simulate

ROOT = Path(__file__).resolve().parent.parent
BASELINE_COMMIT = "126a99d"
TARGETS = {"games": 4.0, "fold": 4.0, "greedy": 5.0, "legal": 2.0}


def load_baseline(where: Path) -> ModuleType | None:
    """The engine of ``BASELINE_COMMIT`` as the package ``baseline_engine``, or None without git."""
    try:
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", BASELINE_COMMIT, "games/engine"], capture_output=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    package = where / "baseline_engine"
    package.mkdir()
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        for member in tar.getmembers():
            if member.isfile() and member.name.endswith(".py"):
                source = tar.extractfile(member)
                assert source is not None
                (package / Path(member.name).name).write_bytes(source.read())
    sys.path.insert(0, str(where))
    baseline = importlib.import_module("baseline_engine")
    for name in ("bots", "events", "simulate"):
        importlib.import_module(f"baseline_engine.{name}")
    return baseline


def batches(runs: dict[str, Callable[[], int]], repeat: int) -> dict[str, float]:
    """Median seconds per item of each run, batches interleaved; a run returns its item count."""
    times: dict[str, list[float]] = {name: [] for name in runs}
    for warm_up in runs.values():
        warm_up()
    for _ in range(repeat):
        for name, run in runs.items():
            start = time.perf_counter()
            items = run()
            times[name].append((time.perf_counter() - start) / items)
    return {name: statistics.median(values) for name, values in times.items()}


def random_games(eng: ModuleType, seeds: list[str]) -> Callable[[], int]:
    options = eng.GameOptions(players=4)

    def run() -> int:
        for seed in seeds:
            eng.simulate.play_game(options, ["random"] * 4, seed)
        return len(seeds)

    return run


def validated_games(seeds: list[str]) -> Callable[[], int]:
    """Today's engine playing the simulator's games through the validating ``execute``."""
    options = engine.GameOptions(players=4)

    def run() -> int:
        for seed in seeds:
            rng, bot_rng = random.Random(f"{seed}:game"), random.Random(f"{seed}:bots")
            state = engine.initial_state(engine.create_game(options, rng))
            while not state.is_finished:
                seat = state.to_act
                action = bots.random_bot(engine.player_view(state, seat), bot_rng)
                state, _ = engine.execute(state, seat, action, rng, in_place=True)
        return len(seeds)

    return run


def folds(
    eng: ModuleType, logs: list[list[dict[str, Any]]], *, from_json: bool = False, passes: int = 1
) -> Callable[[], int]:
    texts = [json.dumps(log) for log in logs]

    def run() -> int:
        for _ in range(passes):
            for log, text in zip(logs, texts, strict=True):
                eng.fold(json.loads(text) if from_json else log)
        return len(logs) * passes

    return run


def positions(eng: ModuleType, logs: list[list[dict[str, Any]]]) -> list[tuple[Any, int]]:
    """Each placement turn of rounds 2-3 of ``logs``, folded by ``eng``: (state, seat to act)."""
    found = []
    for log in logs:
        state = eng.initial_state(log[0])
        for event in log[1:]:
            if event["type"] == "piece_placed" and state.round in (2, 3):
                found.append((state.copy(), state.to_act))
            eng.events.apply_in_place(state, event)
    return found


def per_position(eng: ModuleType, turns: list[tuple[Any, int]], what: str, passes: int) -> Callable[[], int]:
    rng = random.Random(1)

    def run() -> int:
        for _ in range(passes):
            for state, seat in turns:
                view = eng.player_view(state, seat)
                if what == "greedy":
                    eng.bots.greedy_bot(view, rng)
                else:
                    eng.legal_actions(view)
        return len(turns) * passes

    return run


def search_rate(players: int, iterations: int) -> float:
    """Iterations per second of the strong bot's search, at a placement of round 2."""
    rng, bot_rng = random.Random(5), random.Random(6)
    state = engine.initial_state(engine.create_game(engine.GameOptions(players=players), rng))
    while state.round < 2 or state.phase != "placement":
        seat = state.to_act
        state, _ = engine.execute(state, seat, bots.greedy_bot(engine.player_view(state, seat), bot_rng), rng)
    view = engine.player_view(state, state.to_act)
    start = time.perf_counter()
    search.choose(view, random.Random(1), search.Budget(iterations=iterations, seconds=None))
    return iterations / (time.perf_counter() - start)


def run(quick: bool, only: frozenset[str] = frozenset(TARGETS)) -> dict[str, Any]:
    n_games, n_logs, repeat = (4, 3, 3) if quick else (40, 24, 9)
    # A batch of folds or of single decisions lasts a few milliseconds; passing over the same
    # inputs several times a batch makes it long enough that a busy neighbour's bursts even out.
    passes = 1 if quick else 8
    with tempfile.TemporaryDirectory() as where:
        baseline = load_baseline(Path(where))
        make = baseline.simulate.play_game if baseline else simulate.play_game
        options = (baseline or engine).GameOptions(players=4)
        logs = [make(options, ["random"] * 4, f"bench:log:{i}").events for i in range(n_logs)]
        seeds = [f"bench:game:{i}" for i in range(n_games)]
        engines = {"new": engine} | ({"old": baseline} if baseline else {})
        turns = {name: positions(eng, logs[: max(2, n_logs // 4)]) for name, eng in engines.items()}
        measured: dict[str, dict[str, float]] = {}
        for figure, runs in {
            "games": {name: random_games(eng, seeds) for name, eng in engines.items()}
            | {"new, validated": validated_games(seeds)},
            "fold": {name: folds(eng, logs, passes=passes) for name, eng in engines.items()},
            "greedy": {name: per_position(eng, turns[name], "greedy", passes) for name, eng in engines.items()},
            "legal": {name: per_position(eng, turns[name], "legal", passes) for name, eng in engines.items()},
        }.items():
            if figure not in only:
                continue
            print(f"measuring {figure} ...", file=sys.stderr, flush=True)
            measured[figure] = batches(runs, repeat)
        fold_json = batches({"new": folds(engine, logs, from_json=True)}, repeat)["new"] if "fold" in only else None
        rates = {f"{p}p": search_rate(p, 10 if quick else 200) for p in (2, 4)} if only == set(TARGETS) else {}
    comparisons = {
        figure: {
            "old_s": times.get("old"),
            "new_s": times["new"],
            **({"new_validated_s": times["new, validated"]} if "new, validated" in times else {}),
            "speedup": times["old"] / times["new"] if "old" in times else None,
            "target": TARGETS[figure],
        }
        for figure, times in measured.items()
    }
    return {
        "method": "time.perf_counter; median of interleaved batches; baseline = games/engine at " + BASELINE_COMMIT,
        "quick": quick,
        "python": sys.version.split()[0],
        "comparisons": comparisons,
        "search_iterations_per_s": rates,
        # The three figures the repository's smoke test reads (today's engine).
        "figures": {
            name: {"value": scale * seconds, "unit": unit}
            for name, seconds, scale, unit in (
                ("games_per_s_4p", 1.0 / measured["games"]["new"] if "games" in measured else None, 1, "games/s"),
                ("fold_json_ms", fold_json, 1e3, "ms"),
                ("legal_actions_us", measured["legal"]["new"] if "legal" in measured else None, 1e6, "µs"),
            )
            if seconds is not None
        },
    }


def print_report(results: dict[str, Any]) -> None:
    print(f"Engine benchmark ({results['method']}; Python {results['python']})")
    if results["quick"]:
        print("quick run: rough figures, not for comparison")
    units = {"games": ("games/s", lambda s: 1 / s), "fold": ("µs", lambda s: s * 1e6)}
    print(f"{'figure':<34} {'baseline':>12} {'today':>12} {'speed-up':>9} {'target':>7}  met")
    for figure, c in results["comparisons"].items():
        unit, show = units.get(figure, ("µs", lambda s: s * 1e6))
        old = f"{show(c['old_s']):.1f}" if c["old_s"] else "-"
        speedup = f"{c['speedup']:.2f}x" if c["speedup"] else "-"
        met = "yes" if c["speedup"] and c["speedup"] >= c["target"] else "NO"
        label = {"games": "random 4-player games", "fold": "fold a finished 4-player game"}.get(figure, figure)
        label = {"greedy": "greedy decision", "legal": "legal_actions(player_view(...))"}.get(figure, label)
        print(
            f"{label + ' (' + unit + ')':<34} {old:>12} {show(c['new_s']):>12.1f} {speedup:>9} {c['target']:>6}x  {met}"
        )
        if "new_validated_s" in c:
            validated = c["new_validated_s"]
            ratio = f"{c['old_s'] / validated:.2f}x" if c["old_s"] else "-"
            print(f"{'  ... through the validating execute':<34} {'':>12} {show(validated):>12.1f} {ratio:>9}")
    if "fold_json_ms" in results["figures"]:
        print(f"fold(json.loads(text)) today: {results['figures']['fold_json_ms']['value']:.3f} ms")
    if results["search_iterations_per_s"]:
        rates = ", ".join(f"{k}: {v:.0f}" for k, v in results["search_iterations_per_s"].items())
        print(f"strong bot search, iterations/s at a round-2 placement: {rates}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a smoke run of a few seconds (figures are rough)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON only")
    parser.add_argument(
        "--only",
        default=",".join(TARGETS),
        help=f"comma-separated figures to measure, of {', '.join(TARGETS)} (the search rate only with all)",
    )
    args = parser.parse_args(argv)
    only = frozenset(args.only.split(","))
    if not only <= set(TARGETS):
        parser.error(f"--only takes figures of {', '.join(TARGETS)}")
    results = run(args.quick, only)
    if args.json:
        print(json.dumps(results, indent=2, ensure_ascii=False))
    else:
        print_report(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
