"""Search iterations per CPU-second at a round's first placement: the strong bot of commit
9d02d1d (greedy playouts) against today's (sampled playouts), side by side in one run.

The old engine is ``games/engine`` at ``OLD_COMMIT``, taken with ``git archive`` into a
temporary directory and imported as the package ``old_engine`` (the engine uses only
relative imports). Both engines make the same games from the same seeds (their logs are
byte-identical), so each position — the first placement of every round of a greedy game,
heads-up and at four players — is the same for both. At each position the old search
runs ``--old`` iterations and today's ``--new`` (both in ``time.thread_time``, CPU time
of this thread, as the bot's own budget counts it), alternating old and new so that a busy
neighbour slows both alike. The figure is iterations per CPU-second: the median over the
positions for each engine, and the median of the per-position ratios.

    python -m benchmarks.search_rate            # about a minute of CPU
    python -m benchmarks.search_rate --quick    # a smoke run of a few seconds
    python -m benchmarks.search_rate --json
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
from pathlib import Path
from types import ModuleType
from typing import Any

import games.engine as engine
import games.engine.bots
import games.engine.search  # noqa: F401  (so both engines are used alike: engine.bots, engine.search)

ROOT = Path(__file__).resolve().parent.parent
OLD_COMMIT = "9d02d1d"
TARGET = 3.0


def load_engine(commit: str, where: Path, package: str = "old_engine") -> ModuleType | None:
    """``games/engine`` at ``commit`` as the package ``package``, or None without git."""
    try:
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", commit, "games/engine"], capture_output=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    folder = where / package
    folder.mkdir()
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        for member in tar.getmembers():
            if member.isfile() and member.name.endswith(".py"):
                source = tar.extractfile(member)
                assert source is not None
                (folder / Path(member.name).name).write_bytes(source.read())
    sys.path.insert(0, str(where))
    loaded = importlib.import_module(package)
    for name in ("bots", "search"):
        importlib.import_module(f"{package}.{name}")
    return loaded


def first_placements(eng: ModuleType, players: int, seed: int) -> list[Any]:
    """The view of the seat to act at the first placement of every round of a greedy game."""
    rng, bot_rng = random.Random(seed), random.Random(seed + 1)
    state = eng.initial_state(eng.create_game(eng.GameOptions(players=players), rng))
    views = []
    seen_round = 0
    while not state.is_finished:
        seat = state.to_act
        view = eng.player_view(state, seat)
        if state.phase == "placement" and state.round != seen_round:
            seen_round = state.round
            views.append(view)
        state, _ = eng.execute(state, seat, eng.bots.greedy_bot(view, bot_rng), rng)
    return views


def rate(eng: ModuleType, view: Any, iterations: int, seed: int) -> float:
    """Iterations per CPU-second of one search of ``view``."""
    budget = eng.search.Budget(iterations=iterations, seconds=None)
    started = time.thread_time()
    eng.search.choose(view, random.Random(seed), budget)
    return iterations / (time.thread_time() - started)


def run(quick: bool, old_iterations: int, new_iterations: int) -> dict[str, Any]:
    seeds = [5] if quick else [5, 6, 7]
    if quick:
        old_iterations, new_iterations = 20, 60
    results: dict[str, Any] = {
        "method": f"time.thread_time; old = games/engine at {OLD_COMMIT}; positions interleaved",
        "quick": quick,
        "iterations": {"old": old_iterations, "new": new_iterations},
        "players": {},
    }
    with tempfile.TemporaryDirectory() as where:
        old = load_engine(OLD_COMMIT, Path(where))
        if old is None:
            raise SystemExit(f"needs git and commit {OLD_COMMIT}")
        for players in (2, 4):
            rows = []
            for seed in seeds:
                old_views, new_views = first_placements(old, players, seed), first_placements(engine, players, seed)
                for round_number, (old_view, new_view) in enumerate(zip(old_views, new_views, strict=True), 1):
                    print(f"{players}p seed {seed} round {round_number} ...", file=sys.stderr, flush=True)
                    old_rate = rate(old, old_view, old_iterations, seed)
                    new_rate = rate(engine, new_view, new_iterations, seed)
                    rows.append({"seed": seed, "round": round_number, "old": old_rate, "new": new_rate})
            results["players"][f"{players}p"] = {
                "positions": rows,
                "old_median": statistics.median(r["old"] for r in rows),
                "new_median": statistics.median(r["new"] for r in rows),
                "ratio_median": statistics.median(r["new"] / r["old"] for r in rows),
                "ratio_min": min(r["new"] / r["old"] for r in rows),
            }
    return results


def print_report(results: dict[str, Any]) -> None:
    print(f"Search rate at a round's first placement ({results['method']})")
    if results["quick"]:
        print("quick run: rough figures, not for comparison")
    header = f"{'players':<8} {'positions':>9} {'old it/CPU-s':>13} {'new it/CPU-s':>13}"
    print(f"{header} {'ratio (median)':>15} {'lowest':>7}")
    for players, r in results["players"].items():
        print(
            f"{players:<8} {len(r['positions']):>9} {r['old_median']:>13.0f} {r['new_median']:>13.0f} "
            f"{r['ratio_median']:>14.2f}x {r['ratio_min']:>6.2f}x"
        )
    print(f"target: {TARGET:.0f}x")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a smoke run of a few seconds (figures are rough)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON only")
    parser.add_argument("--old", type=int, default=150, help="iterations of the old search per position")
    parser.add_argument("--new", type=int, default=600, help="iterations of today's search per position")
    args = parser.parse_args(argv)
    results = run(args.quick, args.old, args.new)
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print_report(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
