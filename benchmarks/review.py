"""What a post-game review costs, and how noisy its estimates are.

Cost: the review (``games.engine.review.review_game``) of one greedy game, heads-up and at
four players, in CPU time of this thread (``time.thread_time``), with the number of moves
reviewed and marked. Noise: at a few positions of such games, the same move reviewed with
``--seeds`` different seeds; the standard deviation of the estimate before the move and of
the move's cost (for the last of the sensible moves, seldom the bot's own choice), which the
thresholds for marking a move must lie above.

    python -m benchmarks.review                 # a few minutes of CPU
    python -m benchmarks.review --only noise    # just the noise
    python -m benchmarks.review --iterations 100
    python -m benchmarks.review --quick --json  # a smoke run
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from typing import Any

from games.engine import GameOptions
from games.engine.review import REVIEW_ITERATIONS, estimate_noise, played_key, review_game, reviewable_moves
from games.engine.search import sensible_moves
from games.engine.simulate import play_game


def cost(players: int, iterations: int, every: int = 1) -> dict[str, Any]:
    """The CPU time of the game's review; with ``every`` > 1 only every such move is reviewed
    and the time is scaled up to all of them (an estimate, said so in the output)."""
    events = play_game(GameOptions(players=players), ["greedy"] * players, f"review-cost:{players}").events
    indexes = [index for index, _ in reviewable_moves(events)]
    chosen = set(indexes[::every])
    started = time.thread_time()
    reviews = review_game(events, iterations=iterations, only=chosen)
    seconds = (time.thread_time() - started) * len(indexes) / len(chosen)
    marks: dict[str, int] = {}
    for review in reviews:
        if review.mark:
            marks[review.mark] = marks.get(review.mark, 0) + 1
    return {"players": players, "moves": len(indexes), "reviewed": len(reviews), "cpu_s": seconds, "marks": marks}


def noise(players: int, iterations: int, seeds: int, positions: int) -> list[dict[str, Any]]:
    events = play_game(GameOptions(players=players), ["greedy"] * players, f"review-noise:{players}").events
    moves = reviewable_moves(events)
    rows = []
    for index, view in moves[5 :: max(1, len(moves) // positions)][:positions]:
        move = sensible_moves(view)[-1] if view.phase == "placement" else played_key(events[index])
        print(f"noise: {players}p, move {index} ...", file=sys.stderr, flush=True)
        rows.append({"index": index, "round": view.round} | estimate_noise(view, move, range(seeds), iterations))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--iterations", type=int, default=REVIEW_ITERATIONS)
    parser.add_argument("--seeds", type=int, default=6)
    parser.add_argument("--positions", type=int, default=5)
    parser.add_argument("--only", choices=("cost", "noise"))
    parser.add_argument("--players", type=int, choices=(2, 4), help="the cost of this player count only")
    parser.add_argument("--every", type=int, default=1, help="cost: review every Nth move only and scale up")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 5 iterations, 2 seeds, 1 position")
    args = parser.parse_args(argv)
    if args.quick:
        args.iterations, args.seeds, args.positions = 5, 2, 1
    results: dict[str, Any] = {"iterations": args.iterations}
    if args.only != "cost":
        results["noise"] = {f"{p}p": noise(p, args.iterations, args.seeds, args.positions) for p in (2, 4)}
    if args.only != "noise":
        results["cost"] = []
        for players in (args.players,) if args.players else (2, 4):
            print(f"cost: reviewing a {players}-player game ...", file=sys.stderr, flush=True)
            results["cost"].append(cost(players, args.iterations, args.every))
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"Review at {args.iterations} iterations a search")
    for players, rows in results.get("noise", {}).items():
        for row in rows:
            print(
                f"noise {players} move {row['index']:>3} (round {row['round']}): "
                f"sd before {row['before_sd']:.3f}, sd cost {row['cost_sd']:.3f}, mean cost {row['cost_mean']:+.3f}"
            )
        print(
            f"noise {players}: largest sd of a cost {max(r['cost_sd'] for r in rows):.3f}, "
            f"median {statistics.median(r['cost_sd'] for r in rows):.3f}"
        )
    for row in results.get("cost", []):
        print(
            f"cost {row['players']}p: {row['moves']} moves in {row['cpu_s']:.1f} s of CPU "
            f"({row['cpu_s'] / row['moves']:.2f} s a move), marks {row['marks']}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
