"""The arena (games/engine/arena.py, ``python -m games.engine arena``): seat-balanced
matches, Wilson intervals, Elo differences, and a command line that is
deterministic for a seed and an iteration budget."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from games.engine import GameOptions
from games.engine.arena import (
    Outcome,
    elo_difference,
    line_up,
    outcome_from_json,
    outcome_json,
    play_match,
    report,
    rotations,
    wilson,
)
from tests.support.processes import engine_cli


def test_wilson_interval_matches_the_textbook_values():
    low, high = wilson(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-4)
    assert high == pytest.approx(0.5962, abs=1e-4)
    low, high = wilson(0, 10)
    assert low == 0.0
    assert high == pytest.approx(0.2775, abs=1e-4)
    low, high = wilson(10, 10)
    assert high == 1.0
    assert low == pytest.approx(0.7225, abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)


def test_a_half_win_from_a_tie_narrows_like_any_share():
    low, high = wilson(2.5, 5)
    assert low < 0.5 < high
    assert (low, high) == pytest.approx(wilson(5, 10), abs=0.15)


def test_elo_difference_is_zero_at_chance_and_symmetric():
    assert elo_difference(0.5, 2) == pytest.approx(0.0)
    assert elo_difference(0.25, 4) == pytest.approx(0.0)
    assert elo_difference(1 / 3, 3) == pytest.approx(0.0)
    assert elo_difference(0.75, 2) == pytest.approx(400 * math.log10(3))
    assert elo_difference(0.75, 2) == pytest.approx(-elo_difference(0.25, 2))
    # Four players: a 50% share is as good as beating each of three equals 3 to 1.
    assert elo_difference(0.5, 4) == pytest.approx(400 * math.log10(3))
    assert elo_difference(0.0, 2) == -math.inf
    assert elo_difference(1.0, 4) == math.inf


def test_line_up_fills_the_table_with_the_last_bot():
    assert line_up(["strong", "greedy"], 4) == ["strong", "greedy", "greedy", "greedy"]
    assert line_up(["strong", "greedy"], 2) == ["strong", "greedy"]
    with pytest.raises(ValueError, match="name 1 to 2 bots"):
        line_up(["random", "random", "random"], 2)
    with pytest.raises(ValueError, match="name 1 to 3 bots"):
        line_up([], 3)


@pytest.mark.parametrize("seats", [["a", "b"], ["a", "b", "b"], ["a", "b", "b", "b"], ["a", "b", "c", "d"]])
def test_rotations_put_every_bot_at_every_seat_equally_often(seats):
    turns = list(rotations(seats))
    assert len(turns) == len(seats)
    for seat in range(len(seats)):
        assert Counter(lineup[seat] for lineup in turns) == Counter(seats)


@pytest.mark.parametrize("players", [2, 4])
def test_a_match_is_seat_balanced_and_pays_one_win_a_game(players):
    standings = play_match(GameOptions(players=players), ["random", "greedy"], 5, "t")
    games = -(-5 // players) * players  # rounded up to whole rotations
    assert standings["random"].seats == games
    assert standings["greedy"].seats == games * (players - 1)
    assert sum(s.points for s in standings.values()) == pytest.approx(games)
    assert len(standings["random"].totals) == games
    lines = report(standings, players)
    assert lines[0].split()[:3] == ["bot", "seats", "win"]
    assert lines[1].startswith("random")
    assert "[" in lines[1].split("]", 1)[1], "one bot against a field of another: an Elo interval"


def test_greedy_beats_random_heads_up():
    standings = play_match(GameOptions(players=2), ["random", "greedy"], 20, "strength")
    assert standings["greedy"].share > 0.8
    assert standings["greedy"].interval()[0] > 0.5


def test_cli_arena_with_the_strong_bot_is_deterministic_for_an_iteration_budget():
    args = ("arena", "--players", "2", "--bots", "strong,greedy", "--games", "2", "--iterations", "4", "--seed", "c")
    first = engine_cli(*args, "--no-progress")
    assert first.returncode == 0, first.stderr
    lines = first.stdout.splitlines()
    assert lines[0] == "arena: 2 players, seats strong,greedy, search budget 4 iterations a decision, seed c"
    assert [line.split()[0] for line in lines[1:]] == ["bot", "strong", "greedy"]
    assert all(line.split()[1] == "2" for line in lines[2:]), "each bot held one seat in each of two games"
    again = engine_cli(*args)
    assert again.stdout == first.stdout
    assert "2/2 games" in again.stderr, "progress goes to stderr, not into the table"


def test_a_match_in_several_processes_plays_the_same_games():
    one = play_match(GameOptions(players=3), ["random", "greedy"], 6, "jobs")
    two = play_match(GameOptions(players=3), ["random", "greedy"], 6, "jobs", jobs=2)
    assert {kind: (s.seats, s.points, s.totals) for kind, s in two.items()} == {
        kind: (s.seats, s.points, s.totals) for kind, s in one.items()
    }
    args = ("arena", "--players", "2", "--bots", "strong,greedy", "--games", "4", "--iterations", "3", "--no-progress")
    assert engine_cli(*args, "--jobs", "2").stdout == engine_cli(*args).stdout


@pytest.mark.parametrize(
    "args",
    [
        ["--players", "2", "--bots", "strong,greedy", "--games", "0"],
        ["--players", "2", "--bots", "clever", "--games", "2"],
        ["--players", "2", "--bots", "random,random,random", "--games", "2"],
        ["--players", "5", "--bots", "random", "--games", "2"],
        ["--players", "2", "--bots", "strong", "--games", "2", "--iterations", "5", "--seconds", "1"],
        ["--players", "2", "--bots", "strong", "--games", "2", "--iterations", "0"],
        ["--players", "2", "--bots", "strong", "--games", "2", "--seconds", "-1"],
        ["--players", "2", "--games", "2"],
        ["--players", "2", "--bots", "random", "--games", "2", "--jobs", "0"],
    ],
    ids=[
        "no-games",
        "unknown-bot",
        "too-many-bots",
        "five-players",
        "two-budgets",
        "zero-iterations",
        "negative-seconds",
        "no-bots",
        "no-jobs",
    ],
)
def test_cli_arena_bad_arguments_fail_cleanly(args):
    result = engine_cli("arena", *args)
    assert result.returncode != 0
    assert result.stdout == ""
    assert result.stderr.strip()
    assert "Traceback" not in result.stderr


def test_cli_arena_without_a_search_bot_names_no_budget():
    result = engine_cli("arena", "--players", "4", "--bots", "random,greedy", "--games", "4", "--no-progress")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "arena: 4 players, seats random,greedy,greedy,greedy, seed arena"
    assert lines[2].split()[:2] == ["random", "4"]
    assert lines[3].split()[:2] == ["greedy", "12"]


def test_a_stopped_match_resumes_from_its_saved_games(tmp_path):
    options = GameOptions(players=2)
    saved: dict[str, Outcome] = {}
    whole = play_match(options, ["greedy", "random"], 6, "resume", record=lambda key, o: saved.setdefault(key, o))
    assert len(saved) == 6
    part = dict(list(saved.items())[:4])  # as if stopped after four games
    new: list[str] = []
    resumed = play_match(options, ["greedy", "random"], 6, "resume", played=part, record=lambda key, o: new.append(key))
    assert sorted(new) == sorted(set(saved) - set(part))  # only the games not yet played
    assert report(resumed, 2) == report(whole, 2)
    key, outcome = next(iter(saved.items()))
    assert outcome_from_json(outcome_json(key, outcome)) == (key, outcome)


def test_cli_arena_saves_each_game_and_resumes_with_an_estimate_of_the_time_left(tmp_path):
    save = tmp_path / "match.jsonl"
    args = ("arena", "--players", "2", "--bots", "easy,greedy", "--games", "4", "--seed", "r", "--save", str(save))
    first = engine_cli(*args)
    assert first.returncode == 0, first.stderr
    assert len(save.read_text().splitlines()) == 4
    assert "4/4 games" in first.stderr
    again = engine_cli(*args)
    assert again.stdout == first.stdout  # the same table, from the file, with no game played again
    assert len(save.read_text().splitlines()) == 4
