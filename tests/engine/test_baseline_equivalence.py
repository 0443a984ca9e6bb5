"""The faster core behaves exactly like the first engine (commit 126a99d).

``fixtures/baseline_games.jsonl`` holds logs that the first engine wrote (bot
games of every variant, an R16 redraw, reshuffles, operator undos and
resignations) and, after every event of each, a digest of everything a caller
can read: the state's fields, every seat's view, the spectator's view and the
legal actions of the seat to act (``tests/support/engine_baseline.py``). Folding the
same logs today must give the same digest at every step; and the simulator,
bots included, must print byte for byte what it printed then.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest

import games.engine as engine
from games.engine import fold, initial_state
from games.engine.events import apply_in_place
from tests.support.engine_baseline import FIXTURE, SIMULATIONS, simulation_digest, state_digest

ROOT = FIXTURE.parents[3]


def _fixture() -> tuple[list[dict[str, Any]], dict[str, str]]:
    games, sims = [], {}
    for line in FIXTURE.read_text().splitlines():
        record = json.loads(line)
        if "simulations" in record:
            sims = record["simulations"]
        else:
            games.append(record)
    return games, sims


GAMES, SIMULATION_DIGESTS = _fixture()


@pytest.mark.parametrize("game", GAMES, ids=[g["name"] for g in GAMES])
def test_old_logs_fold_to_the_same_states_at_every_step(game: dict[str, Any]) -> None:
    events = game["events"]
    state = initial_state(events[0])
    assert state_digest(engine, state) == game["digests"][0]
    for i, event in enumerate(events[1:], start=1):
        apply_in_place(state, event)
        assert state_digest(engine, state) == game["digests"][i], f"after event {i} ({event['type']})"
    assert state_digest(engine, fold(events)) == game["digests"][-1]


@pytest.mark.parametrize("args", SIMULATIONS, ids=[" ".join(a) for a in SIMULATIONS])
def test_the_simulator_prints_the_same_games_as_before(args: tuple[str, ...]) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    result = subprocess.run(
        [sys.executable, "-m", "games.engine", "simulate", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    assert simulation_digest(result.stdout) == SIMULATION_DIGESTS[" ".join(args)]


def test_the_fixture_is_what_the_baseline_module_describes() -> None:
    names = [g["name"] for g in GAMES]
    assert len(names) == len(set(names)) == 10
    assert set(SIMULATION_DIGESTS) == {" ".join(a) for a in SIMULATIONS}
    kinds = {e["type"] for g in GAMES for e in g["events"]}
    assert {"hand_redrawn", "placement_undone", "player_resigned", "game_finished"} <= kinds
    assert any("reshuffle" in e for g in GAMES for e in g["events"])
