"""Seat-balanced matches between bots, with each bot's win share, its 95%
confidence interval and an Elo difference.

A match deals each seed once per rotation of the line-up: with bots A, B, B, B
at four seats the same deal is played with A at seat 0, then 1, 2 and 3, so
every bot sits at every position and side, and starts as often, on the same
cards. A game pays its winners, a shared win split between them (a two-way
tie counts half).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from itertools import chain
from typing import Any

from .options import GameOptions
from .simulate import play_game

Z95 = 1.959963984540054


@dataclass
class Standing:
    """One bot kind's results over the seats it held."""

    kind: str
    seats: int = 0
    points: float = 0.0
    totals: list[int] = field(default_factory=list)

    @property
    def share(self) -> float:
        return self.points / self.seats if self.seats else 0.0

    def interval(self) -> tuple[float, float]:
        return wilson(self.points, self.seats)


def wilson(wins: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a win share (fractional wins, for ties, are allowed)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    # At a share of 0 or 1 the interval's end is exactly that share (rounding would make
    # 1e-17 of it, and an Elo bound of -7000 instead of -inf).
    low = 0.0 if wins <= 0 else max(0.0, centre - half)
    high = 1.0 if wins >= n else min(1.0, centre + half)
    return low, high


def elo_difference(share: float, players: int) -> float:
    """The rating difference of one bot against a field of ``players - 1`` equal others
    that gives it this win share, by the Bradley-Terry (Luce) model: it wins with
    probability ``q / (q + players - 1)`` where ``q = 10 ** (difference / 400)``.
    Two players: the usual ``400 log10(p / (1 - p))``. Infinite at a share of 0 or 1."""
    if share <= 0.0:
        return -math.inf
    if share >= 1.0:
        return math.inf
    return 400.0 * math.log10(share * (players - 1) / (1.0 - share))


def line_up(bots: Sequence[str], players: int) -> list[str]:
    """One bot per seat: as given, or the last one repeated to fill the table."""
    if not bots or len(bots) > players:
        raise ValueError(f"name 1 to {players} bots")
    return list(bots) + [bots[-1]] * (players - len(bots))


def rotations(seats: Sequence[str]) -> Iterator[list[str]]:
    for shift in range(len(seats)):
        yield list(seats[-shift:]) + list(seats[:-shift]) if shift else list(seats)


@dataclass(frozen=True)
class Outcome:
    """One game's result: who sat where, who won, each seat's final total."""

    lineup: tuple[str, ...]
    winners: frozenset[int]
    totals: tuple[int, ...]


def play_one(
    options: GameOptions, lineup: Sequence[str], seed: str, iterations: int | None, seconds: float | None
) -> Outcome:
    """One game of a match (a top-level function: worker processes run it too)."""
    state = play_game(options, lineup, seed, iterations=iterations, seconds=seconds).state
    return Outcome(tuple(lineup), frozenset(state.winners), tuple(state.player_totals()))


def play_match(
    options: GameOptions,
    bots: Sequence[str],
    games: int,
    seed: str,
    *,
    iterations: int | None = None,
    seconds: float | None = None,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
    played: Mapping[str, Outcome] | None = None,
    record: Callable[[str, Outcome], None] | None = None,
) -> dict[str, Standing]:
    """Play at least ``games`` games (a whole number of rotations) and tally each kind.
    With ``jobs`` > 1 the games run in that many processes, one core each: the games
    and the tally are the same as in one process (each game has its own seed).

    Resuming: ``played`` holds outcomes already known by their ``game_key`` (those games
    are not played again), and ``record`` is told each new game's key and outcome as it ends."""
    seats = line_up(bots, options.players)
    deals = -(-games // options.players)
    matches = [
        (options, lineup, f"{seed}:{deal}", iterations, seconds) for deal in range(deals) for lineup in rotations(seats)
    ]
    known = played or {}
    todo = [m for m in matches if game_key(m[2], m[1]) not in known]
    standings = {kind: Standing(kind) for kind in seats}
    earlier = [known[key] for m in matches if (key := game_key(m[2], m[1])) in known]

    def new_outcomes(outcomes: Iterable[Outcome]) -> Iterator[Outcome]:
        for match, outcome in zip(todo, outcomes, strict=True):
            if record is not None:
                record(game_key(match[2], match[1]), outcome)
            yield outcome

    if jobs > 1 and todo:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            fresh = pool.map(play_one, *zip(*todo, strict=True))
            _tally(standings, chain(earlier, new_outcomes(fresh)), len(matches), progress)
    else:
        fresh_here = (play_one(*match) for match in todo)
        _tally(standings, chain(earlier, new_outcomes(fresh_here)), len(matches), progress)
    return standings


def game_key(deal_seed: str, lineup: Sequence[str]) -> str:
    """A game of a match, by its deal and its line-up: the key a resumed match skips by."""
    return f"{deal_seed}|{','.join(lineup)}"


def outcome_json(key: str, outcome: Outcome) -> dict[str, object]:
    return {
        "key": key,
        "lineup": list(outcome.lineup),
        "winners": sorted(outcome.winners),
        "totals": list(outcome.totals),
    }


def outcome_from_json(data: Mapping[str, Any]) -> tuple[str, Outcome]:
    return str(data["key"]), Outcome(
        tuple(data["lineup"]), frozenset(int(w) for w in data["winners"]), tuple(int(t) for t in data["totals"])
    )


def _tally(
    standings: dict[str, Standing],
    outcomes: Iterable[Outcome],
    total: int,
    progress: Callable[[int, int], None] | None,
) -> None:
    for played, outcome in enumerate(outcomes, start=1):
        for seat, kind in enumerate(outcome.lineup):
            standing = standings[kind]
            standing.seats += 1
            standing.totals.append(outcome.totals[seat])
            if seat in outcome.winners:
                standing.points += 1.0 / len(outcome.winners)
        if progress is not None:
            progress(played, total)


def report(standings: dict[str, Standing], players: int) -> list[str]:
    """The table the arena prints: per kind, its win share with a 95% interval and, for a
    kind that held one seat a game against a field of one other kind, the Elo difference
    (with the interval's ends)."""
    games = sum(s.seats for s in standings.values()) // players
    lines = [f"{'bot':<10} {'seats':>6} {'win share':>10} {'95% CI':>17} {'mean total':>11} {'Elo vs field':>20}"]
    for standing in standings.values():
        low, high = standing.interval()
        mean = sum(standing.totals) / len(standing.totals) if standing.totals else 0.0
        elo = ""
        if len(standings) == 2 and standing.seats == games:
            elo = (
                f"{elo_difference(standing.share, players):+.0f} "
                f"[{elo_difference(low, players):+.0f}, {elo_difference(high, players):+.0f}]"
            )
        lines.append(
            f"{standing.kind:<10} {standing.seats:>6} {standing.share:>10.3f} "
            f"[{low:.3f}, {high:.3f}] {mean:>11.1f} {elo:>20}"
        )
    return lines
