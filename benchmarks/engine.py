"""Benchmark the rules engine (``games.engine``): three figures, each against its target.

1. **Random games per second.** Complete 4-player games between ``random``
   bots through ``games.engine.simulate.play_game`` (bot decisions, player
   views, validation, events and the in-place fold all included). Target
   >= 2,000 games/s. The 2-player, 3-player and 4-player six-round games are
   measured the same way for information, and each batch's time is also
   divided by its decisions (``execute`` calls: placements plus the
   selections that are not forced) to give a cost per action in µs.
2. **Folding a stored log.** A finished 4-player game's events are
   ``json.dumps``-ed once, as the database stores them; then
   ``fold(json.loads(text))`` is timed, which is what rebuilding a game's state
   from storage costs. Target <= 1 ms (median). ``fold`` of already parsed
   events is reported too, to separate the JSON cost from the fold.
3. **Listing legal placements.** Positions where a player is to place in
   rounds 2-3 of random 4-player games (the states a client sees between two
   commands), timed through the API path ``legal_actions(player_view(state,
   seat))`` and through ``rules.legal_placements`` directly. Target <= 50 µs
   (median, API path).

Everything runs in this one process on one core, with garbage collection on
as in production. Seeds are fixed, so every run measures the same games and
positions. The machine may be shared, so the figures are medians (over
repeated batches for throughput, over individual calls for latencies), with
the p95 next to them to show the tail; a single noisy neighbour moves a median
much less than a mean. Each figure is also given on this thread's CPU time
(``time.thread_time_ns``), which leaves out the time spent waiting while other
processes have the CPU; the targets are judged on the wall clock, and the CPU
verdict is printed beside them.

From the repository root (the engine is imported as ``games.engine``)::

    PYTHONPATH=. python benchmarks/engine.py            # full run, about 40 s on a quiet machine
    PYTHONPATH=. python benchmarks/engine.py --quick    # smoke run, a few seconds
    PYTHONPATH=. python benchmarks/engine.py --json     # machine-readable results
    PYTHONPATH=. python benchmarks/engine.py --profile  # cProfile of 200 random 4-player games instead
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import json
import os
import platform
import pstats
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from games.engine import GameOptions, GameState, fold, initial_state, legal_actions, legal_placements, player_view
from games.engine.events import PIECE_PLACED, PIECES_SELECTED, ROUND_STARTED, Event, apply_in_place
from games.engine.simulate import play_game
from games.engine.state import PLACEMENT

TARGET_GAMES_PER_S = 2_000.0
TARGET_FOLD_MS = 1.0
TARGET_LEGAL_US = 50.0
SEED = "bench"


@dataclass(frozen=True)
class Sizes:
    """How much work each part does; ``--quick`` shrinks everything."""

    main_games: int  # 4-player games per throughput batch
    main_batches: int
    other_games: int  # games per batch for the information-only variants
    other_batches: int
    fold_games: int
    fold_reps: int
    legal_games: int
    legal_reps: int


FULL = Sizes(
    main_games=500,
    main_batches=9,
    other_games=200,
    other_batches=5,
    fold_games=200,
    fold_reps=10,
    legal_games=100,
    legal_reps=3,
)
QUICK = Sizes(
    main_games=25,
    main_batches=3,
    other_games=8,
    other_batches=2,
    fold_games=20,
    fold_reps=2,
    legal_games=10,
    legal_reps=2,
)


# --- statistics -----------------------------------------------------------------------------------------------


def percentile(values: Sequence[float], pct: float) -> float:
    """Nearest-rank percentile (``pct`` in 0-100) of a non-empty sample."""
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * pct // 100))
    return ordered[int(rank) - 1]


def summary(values: Sequence[float]) -> dict[str, float]:
    return {
        "median": statistics.median(values),
        "p95": percentile(values, 95),
        "min": min(values),
        "max": max(values),
        "n": len(values),
    }


# --- 1. throughput ----------------------------------------------------------------------------------------------


def decisions(options: GameOptions, events: Sequence[Event]) -> int:
    """The ``execute`` calls a game took: placements, and selections outside the last (forced) round."""
    count = 0
    round_ = 1
    for e in events:
        kind = e["type"]
        if kind == PIECE_PLACED:
            count += 1
        elif kind == PIECES_SELECTED:
            count += round_ < options.rounds
        elif kind == ROUND_STARTED:
            round_ = e["round"]
    return count


def throughput(options: GameOptions, games: int, batches: int, label: str) -> dict[str, Any]:
    """Play the same ``games`` seeded games ``batches`` times; the median batch gives games/s."""
    bots = ["random"] * options.players
    seeds = [f"{SEED}:{label}:{i}" for i in range(games)]
    actions = events = 0
    for seed in seeds[: max(1, games // 10)]:  # warm-up
        play_game(options, bots, seed)
    batch_s: list[float] = []
    batch_cpu_s: list[float] = []
    for _ in range(batches):
        actions = events = 0
        start, start_cpu = time.perf_counter_ns(), time.thread_time_ns()
        for seed in seeds:
            game = play_game(options, bots, seed)
            events += len(game.events)
            actions += decisions(options, game.events)
        # Counting decisions is inside the timed loop; it costs well under 1% of a game.
        batch_cpu_s.append((time.thread_time_ns() - start_cpu) / 1e9)
        batch_s.append((time.perf_counter_ns() - start) / 1e9)
    rates = [games / s for s in batch_s]
    us_per_action = [s * 1e6 / actions for s in batch_s]
    return {
        "label": label,
        "games_per_batch": games,
        "batches": batches,
        "games_per_s": summary(rates),
        # The same on this thread's CPU time: time spent waiting for a busy machine's CPU is left out.
        "games_per_s_cpu": summary([games / s for s in batch_cpu_s]),
        "us_per_action": summary(us_per_action),
        "actions_per_game": actions / games,
        "events_per_game": events / games,
    }


# --- 2. fold ----------------------------------------------------------------------------------------------------


def clock_overhead_ns(clock: Callable[[], int], samples: int = 20_000) -> float:
    """The median time ``clock`` measures around an empty call: its own cost, to subtract."""
    empty = lambda: None  # noqa: E731
    values = []
    for _ in range(samples):
        start = clock()
        empty()
        values.append(clock() - start)
    return statistics.median(values)


def time_calls(calls: Sequence[Callable[[], object]], reps: int) -> tuple[list[float], list[float]]:
    """Each call timed on its own, in ns: ``reps`` passes over all of them on the wall clock, then
    ``reps`` on this thread's CPU clock, after one untimed pass.

    The CPU clock leaves out time spent waiting for a busy machine's CPU; it costs about 1 µs to
    read, so an empty call's median is subtracted. The wall clock's own ~0.1 µs is left in.
    """
    for call in calls:
        call()
    samples: dict[str, list[float]] = {"wall": [], "cpu": []}
    for name, clock in (("wall", time.perf_counter_ns), ("cpu", time.thread_time_ns)):
        overhead = clock_overhead_ns(clock) if name == "cpu" else 0.0
        out = samples[name]
        for _ in range(reps):
            for call in calls:
                start = clock()
                call()
                out.append(clock() - start - overhead)
    return samples["wall"], samples["cpu"]


def fold_latency(games: int, reps: int) -> dict[str, Any]:
    options = GameOptions(players=4)
    texts: list[str] = []
    for i in range(games):
        game = play_game(options, ["random"] * 4, f"{SEED}:fold:{i}")
        text = json.dumps(game.events)
        replayed = fold(json.loads(text))
        if replayed.scores != game.state.scores or not replayed.is_finished:
            raise AssertionError(f"fold of game {i} does not reproduce its final state")
        texts.append(text)
    parsed = [json.loads(t) for t in texts]  # ``fold`` reads events and never changes them

    def with_json(text: str) -> Callable[[], object]:
        return lambda: fold(json.loads(text))

    def without_json(events: list[Event]) -> Callable[[], object]:
        return lambda: fold(events)

    with_ns, with_cpu_ns = time_calls([with_json(t) for t in texts], reps)
    without_ns, without_cpu_ns = time_calls([without_json(e) for e in parsed], reps)
    return {
        "games": games,
        "reps": reps,
        "events_per_game": statistics.mean(len(e) for e in parsed),
        "json_chars_per_game": statistics.mean(len(t) for t in texts),
        "fold_json_ms": summary([ns / 1e6 for ns in with_ns]),
        "fold_only_ms": summary([ns / 1e6 for ns in without_ns]),
        "fold_json_cpu_ms": summary([ns / 1e6 for ns in with_cpu_ns]),
        "fold_only_cpu_ms": summary([ns / 1e6 for ns in without_cpu_ns]),
    }


# --- 3. legal placements ----------------------------------------------------------------------------------------


def placement_positions(games: int, rounds: tuple[int, ...] = (2, 3)) -> list[GameState]:
    """Every state, in ``rounds`` of random 4-player games, in which a player is about to place a piece.

    These are the states stored between two commands (the engine settles R16
    redraws and lost pieces inside a command), i.e. what a client asks about.
    """
    positions: list[GameState] = []
    options = GameOptions(players=4)
    for i in range(games):
        events = play_game(options, ["random"] * 4, f"{SEED}:legal:{i}").events
        state = initial_state(events[0])
        for e in events[1:]:
            if e["type"] == PIECE_PLACED and state.round in rounds:
                assert state.phase == PLACEMENT
                assert state.to_act == e["player"]
                positions.append(state.copy())
            apply_in_place(state, e)
    return positions


def legal_latency(games: int, reps: int) -> dict[str, Any]:
    positions = placement_positions(games)

    def via_view(state: GameState, seat: int) -> Callable[[], object]:
        return lambda: legal_actions(player_view(state, seat))

    def direct(state: GameState, seat: int) -> Callable[[], object]:
        board, hand, side = state.board, state.hands[seat], state.sides[seat]
        selections = {c: state.selection[c] for c in state.colours[seat]}
        return lambda: legal_placements(board, hand, side, selections)

    turns: list[tuple[GameState, int]] = []
    for state in positions:
        assert state.to_act is not None
        turns.append((state, state.to_act))
    counts = [len(legal_actions(player_view(state, seat)).placements) for state, seat in turns]
    api_ns, api_cpu_ns = time_calls([via_view(state, seat) for state, seat in turns], reps)
    direct_ns, direct_cpu_ns = time_calls([direct(state, seat) for state, seat in turns], reps)
    return {
        "games": games,
        "positions": len(positions),
        "reps": reps,
        "placements_per_position": summary(counts),
        "legal_actions_us": summary([ns / 1e3 for ns in api_ns]),
        "legal_placements_us": summary([ns / 1e3 for ns in direct_ns]),
        "legal_actions_cpu_us": summary([ns / 1e3 for ns in api_cpu_ns]),
        "legal_placements_cpu_us": summary([ns / 1e3 for ns in direct_cpu_ns]),
    }


# --- profile ----------------------------------------------------------------------------------------------------


def profile(games: int, top: int) -> str:
    """cProfile over ``games`` random 4-player games; the ``top`` functions by own time."""
    options = GameOptions(players=4)
    profiler = cProfile.Profile()
    profiler.enable()
    for i in range(games):
        play_game(options, ["random"] * 4, f"{SEED}:profile:{i}")
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.strip_dirs().sort_stats(pstats.SortKey.TIME).print_stats(top)
    return out.getvalue()


# --- report -----------------------------------------------------------------------------------------------------


def environment() -> dict[str, Any]:
    try:
        load: list[float] | None = [round(x, 2) for x in os.getloadavg()]
    except OSError:  # pragma: no cover - not on every platform
        load = None
    return {
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "load_average": load,
        "gc_enabled": gc.isenabled(),
    }


def figure(value: float, cpu_value: float, unit: str, target: float, at_least: bool) -> dict[str, Any]:
    """A headline figure (wall clock) beside its target, and the same on CPU time (for a busy machine)."""

    def meets(v: float) -> bool:
        return v >= target if at_least else v <= target

    return {
        "value": value,
        "cpu_value": cpu_value,
        "unit": unit,
        "target": target,
        "comparison": ">=" if at_least else "<=",
        "met": meets(value),
        "met_on_cpu_time": meets(cpu_value),
    }


def run(sizes: Sizes, quick: bool, progress: Callable[[str], None]) -> dict[str, Any]:
    started = time.perf_counter()
    progress("throughput: 4 players ...")
    main = throughput(GameOptions(players=4), sizes.main_games, sizes.main_batches, "4p")
    others = []
    for label, options in (
        ("2p", GameOptions(players=2)),
        ("3p", GameOptions(players=3)),
        ("4p-six-rounds", GameOptions(players=4, six_rounds=True)),
    ):
        progress(f"throughput: {label} ...")
        others.append(throughput(options, sizes.other_games, sizes.other_batches, label))
    progress("fold ...")
    folded = fold_latency(sizes.fold_games, sizes.fold_reps)
    progress("legal placements ...")
    legal = legal_latency(sizes.legal_games, sizes.legal_reps)
    return {
        "environment": environment(),
        "quick": quick,
        "seconds": time.perf_counter() - started,
        "figures": {
            "games_per_s_4p": figure(
                main["games_per_s"]["median"],
                main["games_per_s_cpu"]["median"],
                "games/s",
                TARGET_GAMES_PER_S,
                at_least=True,
            ),
            "fold_json_ms": figure(
                folded["fold_json_ms"]["median"],
                folded["fold_json_cpu_ms"]["median"],
                "ms",
                TARGET_FOLD_MS,
                at_least=False,
            ),
            "legal_actions_us": figure(
                legal["legal_actions_us"]["median"],
                legal["legal_actions_cpu_us"]["median"],
                "µs",
                TARGET_LEGAL_US,
                at_least=False,
            ),
        },
        "throughput": [main, *others],
        "fold": folded,
        "legal": legal,
    }


def verdict(fig: dict[str, Any]) -> str:
    def word(met: bool) -> str:
        return "met" if met else "NOT MET"

    return (
        f"target {fig['comparison']} {fig['target']:,g} {fig['unit']}: {word(fig['met'])}"
        f" (on CPU time: {word(fig['met_on_cpu_time'])})"
    )


def print_report(r: dict[str, Any]) -> None:
    env = r["environment"]
    print(f"Python {env['python']} ({env['implementation']}) on {env['platform']}")
    print(f"{env['cpu_count']} CPUs, load average {env['load_average']}; one process, one core, GC on")
    print("Medians on the wall clock; 'cpu' is the same median on this thread's CPU time (no waiting for the CPU)")
    print(f"{'quick (smoke) run: not for comparison' if r['quick'] else 'full run'}; {r['seconds']:.1f} s")
    figs = r["figures"]

    print("\n1. Random-bot games per second (play_game; median batch [min-max; cpu])")
    for t in r["throughput"]:
        g, a, c = t["games_per_s"], t["us_per_action"], t["games_per_s_cpu"]
        line = (
            f"   {t['label']:<14} {g['median']:6,.0f} games/s [{g['min']:,.0f}-{g['max']:,.0f}; cpu {c['median']:,.0f}]"
            f"   {a['median']:6.1f} µs/action ({t['actions_per_game']:.0f} actions, {t['events_per_game']:.0f} events"
            f" per game; {t['batches']} x {t['games_per_batch']} games)"
        )
        print(line)
    print(f"   {verdict(figs['games_per_s_4p'])}")

    f = r["fold"]
    fj, fo = f["fold_json_ms"], f["fold_only_ms"]
    fjc, foc = f["fold_json_cpu_ms"], f["fold_only_cpu_ms"]
    print(
        f"\n2. Fold a finished 4-player game from its stored JSON ({f['games']} games x {f['reps']} reps,"
        f" {f['events_per_game']:.0f} events, {f['json_chars_per_game']:,.0f} chars)"
    )
    print(
        f"   fold(json.loads(text)): median {fj['median']:.3f} ms, p95 {fj['p95']:.3f} ms, cpu {fjc['median']:.3f} ms"
    )
    print(
        f"   fold(events) only:      median {fo['median']:.3f} ms, p95 {fo['p95']:.3f} ms, cpu {foc['median']:.3f} ms"
    )
    print(f"   {verdict(figs['fold_json_ms'])}")

    lg = r["legal"]
    la, lp, n = lg["legal_actions_us"], lg["legal_placements_us"], lg["placements_per_position"]
    lac, lpc = lg["legal_actions_cpu_us"], lg["legal_placements_cpu_us"]
    print(
        f"\n3. Legal placements of a mid-game position ({lg['positions']} placement turns in rounds 2-3"
        f" of {lg['games']} games x {lg['reps']} reps; {n['median']:.0f} placements median, {n['max']:.0f} max)"
    )
    print(
        f"   legal_actions(player_view(state, seat)): median {la['median']:.1f} µs, p95 {la['p95']:.1f} µs,"
        f" cpu {lac['median']:.1f} µs"
    )
    print(
        f"   rules.legal_placements(...) directly:    median {lp['median']:.1f} µs, p95 {lp['p95']:.1f} µs,"
        f" cpu {lpc['median']:.1f} µs"
    )
    print(f"   {verdict(figs['legal_actions_us'])}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a smoke run of a few seconds (figures are rough)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON only")
    parser.add_argument("--profile", action="store_true", help="instead of timing, cProfile random 4-player games")
    parser.add_argument("--profile-games", type=int, default=200, metavar="N", help="games to profile (200)")
    parser.add_argument("--top", type=int, default=8, metavar="N", help="functions listed by --profile (8)")
    args = parser.parse_args(argv)

    if args.profile:
        print(profile(args.profile_games, args.top))
        return 0

    def progress(message: str) -> None:
        if not args.json:
            print(message, file=sys.stderr, flush=True)

    results = run(QUICK if args.quick else FULL, args.quick, progress)
    if args.json:
        print(json.dumps(results, indent=2, ensure_ascii=False))
    else:
        print_report(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
