"""The bot levels' ratings, from arena matches between them (``python -m games.engine arena
--save FILE``): OpenSkill as ``ratings.services`` rates people and bots (Plackett–Luce,
ranks by winners then totals), every level starting where a new player starts, the
games rated in the order the files list them. The number shown is the ratings app's
(``Rating.ordinal``: mu - 3 sigma). Only games between levels count: a level's rating
is always of the level itself, at its own budget, never of a bot at another one."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from games.engine.bots import LEVELS

from .services import MODEL


def read_match(path: Path) -> list[dict[str, Any]]:
    """The games of one saved match (JSON Lines); refuses a game of anything but levels."""
    games = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        game = json.loads(line)
        strangers = [kind for kind in game["lineup"] if kind not in LEVELS]
        if strangers:
            raise ValueError(f"{path}:{number}: {', '.join(strangers)} is not a level; only level matches rate levels")
        games.append(game)
    return games


def places(winners: Sequence[int], totals: Sequence[int]) -> list[int]:
    """``ratings.placing.ranks`` for an arena game: winners first, then by total (equal
    totals share a place); bots never resign."""
    won = set(winners)
    keys = [(seat not in won, -total) for seat, total in enumerate(totals)]
    return [1 + sum(other < mine for other in keys) for mine in keys]


def match_summary(source: str, games: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """What a match showed, beside the ratings: its games, each level's wins (a shared win
    split) and mean total, and the levels' budgets."""
    kinds = sorted({k for g in games for k in g["lineup"]}, key=list(LEVELS).index)
    wins = dict.fromkeys(kinds, 0.0)
    totals: dict[str, list[int]] = {k: [] for k in kinds}
    for game in games:
        for seat in game["winners"]:
            wins[game["lineup"][seat]] += 1 / len(game["winners"])
        for kind, total in zip(game["lineup"], game["totals"], strict=True):
            totals[kind].append(total)
    players = {len(g["lineup"]) for g in games}
    return {
        "source": source,
        "levels": kinds,
        "players": sorted(players),
        "games": len(games),
        "wins": {k: round(w, 1) for k, w in wins.items()},
        "mean_totals": {k: round(sum(t) / len(t), 1) for k, t in totals.items() if t},
        "budgets": {k: LEVELS[k].seconds for k in kinds},
    }


def rate_levels(matches: Iterable[tuple[str, Sequence[dict[str, Any]]]]) -> dict[str, Any]:
    """The levels' ratings from ``matches`` (name, games), rated in order; and the matches."""
    ratings: dict[str, Any] = {}
    counts: dict[str, int] = {}
    summaries = []
    players: set[int] = set()
    for source, games in matches:
        summaries.append(match_summary(source, games))
        for game in games:
            lineup = game["lineup"]
            players.add(len(lineup))
            teams = [[ratings.get(kind) or MODEL.rating()] for kind in lineup]
            new = MODEL.rate(teams, ranks=[float(p) for p in places(game["winners"], game["totals"])])
            by_kind: dict[str, list[Any]] = {}
            for kind, team in zip(lineup, new, strict=True):
                by_kind.setdefault(kind, []).append(team[0])
            for kind, rated in by_kind.items():  # a level in several seats: the mean of its seats
                mu = sum(r.mu for r in rated) / len(rated)
                sigma = sum(r.sigma for r in rated) / len(rated)
                ratings[kind] = MODEL.create_rating([mu, sigma])
                counts[kind] = counts.get(kind, 0) + 1
    if len(players) > 1:
        raise ValueError("the matches mix player counts; ratings are per number of players")
    return {
        "players": players.pop() if players else 2,
        "levels": {
            kind: {
                "rating": round(r.mu - 3 * r.sigma, 2),
                "mu": round(r.mu, 3),
                "sigma": round(r.sigma, 3),
                "games": counts[kind],
            }
            for kind, r in sorted(ratings.items(), key=lambda item: list(LEVELS).index(item[0]))
        },
        "not_rated": [kind for kind in LEVELS if kind not in ratings],
        "matches": summaries,
    }
