"""Command line.

python -m games.engine simulate --players 4 --games 10 --seed 1 [--bots strong,greedy --iterations 200]
python -m games.engine arena --players 2 --bots strong,greedy --games 200 [--iterations N | --seconds S]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence

from .arena import Outcome, line_up, outcome_from_json, outcome_json, play_match, report
from .bots import SEARCH_BOTS, VARIANTS, bot_kinds
from .errors import RuleError
from .options import GameOptions
from .record import game_record
from .simulate import simulate


def _bots(value: str) -> list[str]:
    kinds = [k.strip() for k in value.split(",") if k.strip()]
    for kind in kinds:
        if kind not in bot_kinds():
            raise argparse.ArgumentTypeError(f"unknown bot {kind!r}; choose from {', '.join(bot_kinds())}")
    return kinds


def _positive_int(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number") from None
    if number < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return number


def _positive_float(value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number") from None
    if not number > 0:
        raise argparse.ArgumentTypeError("must be more than 0")
    return number


def _budget_arguments(parser: argparse.ArgumentParser) -> None:
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument(
        "--iterations",
        type=_positive_int,
        help="search bots (strong) search this many iterations a decision: deterministic for a seed",
    )
    budget.add_argument("--seconds", type=_positive_float, help="search bots search this long a decision (1 s)")


def _progress(done: int, total: int) -> None:
    width = 30
    filled = width * done // total
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} games")
    if done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m games.engine", description="Manhattan engine tools.")
    commands = parser.add_subparsers(dest="command", required=True)
    sim = commands.add_parser("simulate", help="play bot games and print one game record per line (JSON Lines)")
    sim.add_argument("--players", type=int, choices=(2, 3, 4), required=True)
    sim.add_argument("--six-rounds", action="store_true", help="4 players: six rounds of four pieces")
    sim.add_argument("--copies-per-position", type=int, default=5)
    sim.add_argument("--games", type=int, required=True)
    sim.add_argument("--seed", required=True, help="the same seed gives the same games")
    sim.add_argument(
        "--bots", type=_bots, default=["random"], help="one kind for every seat, or one per seat: random,greedy,..."
    )
    sim.add_argument("--no-progress", action="store_true", help="never draw the progress bar")
    _budget_arguments(sim)
    arena = commands.add_parser("arena", help="seat-balanced bot matches: win shares, 95%% intervals and Elo")
    arena.add_argument("--players", type=int, choices=(2, 3, 4), required=True)
    arena.add_argument("--six-rounds", action="store_true", help="4 players: six rounds of four pieces")
    arena.add_argument("--bots", type=_bots, required=True, help="one kind per seat; the last fills the rest")
    arena.add_argument("--games", type=_positive_int, required=True, help="rounded up to whole rotations of seats")
    arena.add_argument("--seed", default="arena", help="the deals (default: arena)")
    arena.add_argument("--no-progress", action="store_true", help="never print progress")
    arena.add_argument(
        "--save",
        help="a file (JSON Lines) each finished game is added to; run again with it to resume a stopped match",
    )
    arena.add_argument(
        "--jobs", type=_positive_int, default=1, help="play in this many processes, one core each (same results)"
    )
    _budget_arguments(arena)
    args = parser.parse_args(argv)
    if args.command == "arena":
        return _arena(parser, args)

    bots: list[str] = args.bots
    if len(bots) == 1:
        bots = bots * args.players
    if len(bots) != args.players:
        parser.error(f"--bots names {len(bots)} bots for {args.players} players")
    if args.games < 0:
        parser.error("--games must not be negative")
    try:
        options = GameOptions(
            players=args.players, six_rounds=args.six_rounds, copies_per_position=args.copies_per_position
        )
    except RuleError as error:
        parser.error(error.message)
    # Long runs only: a bar for three games would be noise in scripts.
    show_progress = not args.no_progress and args.games >= 20 and sys.stderr.isatty()
    out = sys.stdout
    try:
        games = simulate(options, bots, args.games, args.seed, iterations=args.iterations, seconds=args.seconds)
        for done, game in enumerate(games, start=1):
            out.write(json.dumps(game_record(game.events), separators=(",", ":")) + "\n")
            if show_progress and (done % max(1, args.games // 100) == 0 or done == args.games):
                _progress(done, args.games)
        out.flush()
    except BrokenPipeError:  # e.g. piped into `head`: stop quietly like other Unix tools
        sys.stderr.close()
        return 0
    return 0


def _arena(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    try:
        options = GameOptions(players=args.players, six_rounds=args.six_rounds)
        seats = line_up(args.bots, args.players)
    except (RuleError, ValueError) as error:
        parser.error(str(error))
    budget = f"{args.iterations} iterations" if args.iterations else f"{args.seconds or 1.0:g} s"
    searching = f", search budget {budget} a decision" if SEARCH_BOTS.union(VARIANTS).intersection(seats) else ""
    print(f"arena: {args.players} players, seats {','.join(seats)}{searching}, seed {args.seed}")
    played: dict[str, Outcome] = {}
    if args.save and os.path.exists(args.save):
        with open(args.save, encoding="utf-8") as saved:
            played = dict(outcome_from_json(json.loads(line)) for line in saved if line.strip())
    save = open(args.save, "a", encoding="utf-8") if args.save else None  # noqa: SIM115 (closed below)
    started = time.monotonic()
    first_new: list[int] = []

    def record(key: str, outcome: Outcome) -> None:
        if save is not None:
            save.write(json.dumps(outcome_json(key, outcome)) + "\n")
            save.flush()

    def progress(done: int, total: int) -> None:
        if args.no_progress:
            return
        elapsed = time.monotonic() - started
        if not first_new and elapsed > 0.5:
            first_new.append(done - 1)  # games resumed from the file came at once
        fresh = done - (first_new[0] if first_new else done)
        eta = f", about {_duration(elapsed / fresh * (total - done))} left" if fresh > 0 and done < total else ""
        print(f"  {done}/{total} games, {_duration(elapsed)} so far{eta}", file=sys.stderr, flush=True)

    standings = play_match(
        options,
        seats,
        args.games,
        args.seed,
        iterations=args.iterations,
        seconds=args.seconds,
        jobs=args.jobs,
        progress=progress,
        played=played,
        record=record,
    )
    if save is not None:
        save.close()
    for line in report(standings, args.players):
        print(line)
    return 0


def _duration(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s"


if __name__ == "__main__":
    raise SystemExit(main())
