"""The simulator CLI and the game record (shared/RECORD.md).

The replay here checks records without the engine: the rotation (R6), turn
order (R9, R10, R12), takeovers (R14), R16, scoring (R17, R18) and the
winners (R19) are all re-implemented below from RULES.md.
"""

from __future__ import annotations

import functools
import json
import random
from pathlib import Path
from typing import Any

import pytest

from games.engine import (
    GameNotFinished,
    GameOptions,
    PlacePiece,
    SelectPieces,
    UndoLastPlacement,
    create_game,
    execute,
    game_record,
    initial_state,
    player_view,
)
from games.engine.bots import random_bot
from games.engine.simulate import play_game
from tests.support.processes import engine_cli
from tests.support.records import replay

ROOT = Path(__file__).resolve().parents[2]

# --- running the CLI ------------------------------------------------------------

VARIANTS: dict[str, list[str]] = {
    "2p": ["--players", "2"],
    "3p": ["--players", "3"],
    "4p": ["--players", "4"],
    "4p-six": ["--players", "4", "--six-rounds"],
    "3p-63cards": ["--players", "3", "--copies-per-position", "7"],
}
BOTS = {"2p": "greedy,random", "3p": "random", "4p": "random,greedy,random,random", "4p-six": "random"}


@functools.cache
def simulate_cli(variant: str, seed: str, games: int = 3) -> str:
    args = ["simulate", *VARIANTS[variant], "--games", str(games), "--seed", seed]
    if variant in BOTS:
        args += ["--bots", BOTS[variant]]
    result = engine_cli(*args)
    assert result.returncode == 0, result.stderr
    return result.stdout


def json_lines(text: str) -> list[dict[str, Any]]:
    assert text.endswith("\n")
    return [json.loads(line) for line in text.splitlines()]


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_cli_prints_one_valid_record_per_line(variant):
    records = json_lines(simulate_cli(variant, "7"))
    assert len(records) == 3
    players = int(VARIANTS[variant][1])
    for record in records:
        assert record["format"] == "manhattan-record/1"
        assert record["players"] == players
        assert record["options"]["six_rounds"] == ("--six-rounds" in VARIANTS[variant])
        expected_rounds = 4 if players == 4 and "--six-rounds" not in VARIANTS[variant] else 6
        assert len(record["rounds"]) == expected_rounds
        assert record["options"]["copies_per_position"] == (7 if "63cards" in variant else 5)


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_cli_same_seed_same_output(variant):
    first = simulate_cli(variant, "42")
    args = ["simulate", *VARIANTS[variant], "--games", "3", "--seed", "42"]
    if variant in BOTS:
        args += ["--bots", BOTS[variant]]
    again = engine_cli(*args)
    assert again.returncode == 0
    assert again.stdout == first


@pytest.mark.parametrize("variant", ["2p", "4p"])
def test_cli_different_seed_different_output(variant):
    assert simulate_cli(variant, "1") != simulate_cli(variant, "2")
    # And the games within one run differ from each other too.
    records = json_lines(simulate_cli(variant, "1"))
    assert len({json.dumps(r["rounds"]) for r in records}) == 3


def test_cli_one_bot_kind_per_seat():
    result = engine_cli("simulate", "--players", "3", "--games", "2", "--seed", "5", "--bots", "greedy,random,greedy")
    assert result.returncode == 0, result.stderr
    assert len(json_lines(result.stdout)) == 2
    # One kind for every seat is also accepted, and the bots matter.
    all_greedy = engine_cli("simulate", "--players", "3", "--games", "2", "--seed", "5", "--bots", "greedy")
    assert all_greedy.returncode == 0, all_greedy.stderr
    assert all_greedy.stdout != result.stdout
    assert all_greedy.stdout != simulate_cli("3p", "5", 2)


def test_cli_zero_games_prints_nothing():
    result = engine_cli("simulate", "--players", "2", "--games", "0", "--seed", "1")
    assert result.returncode == 0
    assert result.stdout == ""


@pytest.mark.parametrize(
    "args",
    [
        ["simulate", "--players", "5", "--games", "1", "--seed", "1"],
        ["simulate", "--players", "1", "--games", "1", "--seed", "1"],
        ["simulate", "--players", "3", "--games", "1", "--seed", "1", "--bots", "clever"],
        ["simulate", "--players", "3", "--games", "1", "--seed", "1", "--bots", "random,random"],
        ["simulate", "--players", "2", "--games", "1", "--seed", "1", "--bots", "random,random,random"],
        ["simulate", "--players", "3", "--games", "-1", "--seed", "1"],
        ["simulate", "--players", "3", "--games", "many", "--seed", "1"],
        ["simulate", "--players", "3", "--games", "1"],
        ["simulate", "--games", "1", "--seed", "1"],
        ["simulate", "--players", "3", "--games", "1", "--seed", "1", "--copies-per-position", "1"],
        ["simulate", "--players", "3", "--games", "1", "--seed", "1", "--copies-per-position", "13"],
        ["replay"],
        [],
    ],
    ids=[
        "five-players",
        "one-player",
        "unknown-bot",
        "too-few-bots",
        "too-many-bots",
        "negative-games",
        "games-not-a-number",
        "no-seed",
        "no-players",
        "copies-per-position-too-small",
        "copies-per-position-too-large",
        "unknown-command",
        "no-command",
    ],
)
def test_cli_bad_arguments_fail_cleanly(args):
    result = engine_cli(*args)
    assert result.returncode != 0
    assert result.stdout == ""
    assert result.stderr.strip(), "a bad argument is explained on stderr"
    assert "Traceback" not in result.stderr, "a bad argument should be reported, not crash"


# --- an independent replay of a record (tests/support/records.py) ----------------------


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_replay_cli_records_independently(variant):
    for record in json_lines(simulate_cli(variant, "7")):
        replay(record)


def test_replay_cli_records_of_the_strong_bot_same_for_a_seed_and_an_iteration_budget():
    """``simulate --bots strong,greedy --iterations N``: search bots get N iterations a
    decision instead of the time limit, so the records are the same run after run."""
    args = ("simulate", "--players", "2", "--games", "1", "--seed", "s", "--bots", "strong,greedy", "--iterations", "6")
    first = engine_cli(*args)
    assert first.returncode == 0, first.stderr
    (record,) = json_lines(first.stdout)
    replay(record)
    assert engine_cli(*args).stdout == first.stdout
    more = engine_cli(*args[:-1], "7")
    assert more.returncode == 0, more.stderr
    assert more.stdout != first.stdout, "the iteration budget changes the search"
    assert first.stdout != engine_cli(*args[:-4], "greedy,greedy").stdout


@pytest.mark.parametrize(
    "options",
    [
        GameOptions(players=2, sides=(1, 3)),
        GameOptions(players=2, sides=(3, 0), copies_per_position=7),
        GameOptions(players=3, sides=(3, 0, 2)),
        GameOptions(players=4, sides=(2, 3, 0, 1), six_rounds=True),
        GameOptions(players=4, sides=(1, 0, 3, 2)),
    ],
)
def test_replay_records_with_explicit_sides(options):
    for seed in ("a", "b"):
        record = game_record(play_game(options, ["random"] * options.players, seed).events)
        assert record["sides"] == ["SWNE"[s] for s in (options.sides or ())]
        replay(record)


def test_replay_record_with_an_r16_redraw():
    # Seed found by search: seat 0 holds four 8s and can build nowhere (R16).
    game = play_game(GameOptions(players=4), ["random"] * 4, "309")
    record = game_record(game.events)
    redraws = [t for r in record["rounds"] for t in r["turns"] if "redraw" in t]
    assert redraws == [{"player": 0, "redraw": {"discarded": [8, 8, 8, 8], "drew": [3, 9, 6, 5]}}]
    replay(record)


@pytest.mark.parametrize(
    ("players", "seed", "tied", "winners"),
    [
        # Seeds found by search. Tied totals decided by the tallest building, although
        # the loser owns more buildings: the order of R19's tie-breaks matters.
        (2, "tie34", [0, 1], [1]),
        (4, "tie36", [0, 2], [2]),
        # Tallest buildings tied as well: the number of buildings decides.
        (3, "tie37", [0, 2], [0]),
    ],
)
def test_replay_r19_tie_breaks(players, seed, tied, winners):
    record = game_record(play_game(GameOptions(players=players), ["random"] * players, seed).events)
    totals = record["player_totals"]
    assert [p for p, t in enumerate(totals) if t == max(totals)] == tied
    assert record["winners"] == winners
    replay(record)


def test_replay_detects_a_forged_score():
    record = json.loads(simulate_cli("3p", "7").splitlines()[0])
    replay(record)
    colour = record["colours"][0][0]
    record["rounds"][0]["scores"][colour] += 1
    with pytest.raises(AssertionError):
        replay(record)


def test_replay_detects_a_wrong_lot():
    record = json.loads(simulate_cli("4p", "7").splitlines()[0])
    turn = record["rounds"][1]["turns"][0]
    turn["lot"] = turn["lot"] % 9 + 1
    with pytest.raises(AssertionError, match="R6"):
        replay(record)


# --- the record exporter itself ----------------------------------------------------


def finish_with_bots(state, events, rng):
    bot_rng = random.Random(99)
    while not state.is_finished:
        seat = state.to_act
        state, new = execute(state, seat, random_bot(player_view(state, seat), bot_rng), rng)
        events.extend(new)
    return state


def start_game(players: int = 3, seed: int = 11):
    rng = random.Random(seed)
    created = create_game(GameOptions(players=players, start_player=0), rng)
    events = [created]
    state = initial_state(created)
    while state.phase == "selection":
        colour = state.selecting_colour
        state, new = execute(state, state.to_act, SelectPieces(pieces=(1, 1, 2, 2), colour=colour), rng)
        events.extend(new)
    return state, events, rng


def test_record_format_and_numbers_are_one_based():
    game = play_game(GameOptions(players=4), ["random"] * 4, "numbers")
    record = game_record(game.events)
    assert record["format"] == "manhattan-record/1"
    assert record["players"] == 4
    assert record["options"] == {"six_rounds": False, "copies_per_position": 5}
    assert record["sides"] == ["S", "W", "N", "E"]
    assert record["colours"] == [["red"], ["blue"], ["green"], ["yellow"]]
    placed = [e for e in game.events if e["type"] == "piece_placed"]
    turns = [t for r in record["rounds"] for t in r["turns"] if "card" in t]
    assert len(turns) == len(placed) == 96
    for event, turn in zip(placed, turns, strict=True):
        assert turn["card"] == event["card"] + 1
        assert turn["city"] == event["city"] + 1
        assert turn["lot"] == event["lot"] + 1
        assert turn["size"] == event["size"]
        assert turn["drew"] == (None if event["drew"] is None else event["drew"] + 1)
        assert turn["colour"] == ["red", "blue", "green", "yellow"][event["colour"]]
    cards = {t["card"] for t in turns}
    assert min(cards) == 1
    assert max(cards) == 9
    assert {t["city"] for t in turns} == {1, 2, 3, 4, 5, 6}
    assert {t["lot"] for t in turns} <= set(range(1, 10))
    assert record["rounds"][0]["start_player"] == game.events[0]["start_player"]
    assert [r["round"] for r in record["rounds"]] == [1, 2, 3, 4]
    assert json.loads(json.dumps(record)) == record


def test_record_hands_before_hold_four_cards_per_player():
    for options in (GameOptions(players=2), GameOptions(players=3, copies_per_position=7), GameOptions(players=4)):
        game = play_game(options, ["random"] * options.players, "hands")
        record = game_record(game.events)
        first = record["rounds"][0]["hands_before"]
        assert first == [[c + 1 for c in h] for h in game.events[0]["hands"]]
        for rnd in record["rounds"]:
            assert len(rnd["hands_before"]) == options.players
            for hand in rnd["hands_before"]:
                assert len(hand) == 4
                assert all(1 <= c <= 9 for c in hand)


def test_record_leaves_out_undone_placements():
    state, events, rng = start_game()
    seat = state.to_act
    assert seat == 0
    first = PlacePiece(card=state.hands[0][0], city=0, size=2)
    state, new = execute(state, seat, first, rng)
    events.extend(new)
    state, new = execute(state, None, UndoLastPlacement("x"), rng)
    events.extend(new)
    assert new[0]["type"] == "placement_undone"
    assert new[0]["reason"] == "x"
    assert state.to_act == 0
    second = PlacePiece(card=state.hands[0][0], city=5, size=1)
    state, new = execute(state, 0, second, rng)
    events.extend(new)
    state = finish_with_bots(state, events, rng)
    record = game_record(events)
    turns = record["rounds"][0]["turns"]
    assert turns[0]["player"] == 0
    assert (turns[0]["card"], turns[0]["city"], turns[0]["size"]) == (second.card + 1, 6, 1)
    placements = [t for r in record["rounds"] for t in r["turns"] if "card" in t]
    lost = [t for r in record["rounds"] for t in r["turns"] if "lost" in t]
    assert len(placements) + len(lost) == 3 * 24
    assert sum(1 for e in events if e["type"] == "piece_placed") == len(placements) + 1
    assert "placement_undone" not in json.dumps(record)
    replay(record)


def test_record_of_unfinished_game_is_refused():
    _, events, _ = start_game()
    with pytest.raises(GameNotFinished):
        game_record(events)
    with pytest.raises(GameNotFinished):
        game_record(events[:1])
    # Cut a finished game short: still refused.
    game = play_game(GameOptions(players=2), ["random", "random"], "cut")
    with pytest.raises(GameNotFinished):
        game_record(game.events[:-1])
    assert game_record(game.events)["format"] == "manhattan-record/1"
