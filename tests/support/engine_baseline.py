"""The engine's observable behaviour written down as small digests, so that a
faster core can be held to exactly what the first engine did.

``state_fingerprint`` spells out everything a caller can read of a state —
every ``GameState`` field, every seat's ``player_view(...).to_json()``, the
spectator's, and ``legal_actions(...).to_json()`` of the seat to act — and
``state_digest`` hashes it. ``make_baseline_games`` plays the games whose logs
are stored in ``tests/engine/fixtures/baseline_games.jsonl`` (variants, redraws, reshuffles,
undos and resignations). Both take the engine as a module, so the fixture was
made with the engine as it stood at commit 126a99d (``python -m
tests.support.engine_baseline``), and the tests fold the same logs with today's.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

# The recorded games stay with the engine's tests, which fold them.
FIXTURE = Path(__file__).resolve().parents[1] / "engine" / "fixtures" / "baseline_games.jsonl"

SIMULATIONS: tuple[tuple[str, ...], ...] = (
    ("--players", "2", "--games", "3", "--seed", "b2", "--bots", "greedy,random"),
    ("--players", "3", "--games", "3", "--seed", "b3", "--bots", "random"),
    ("--players", "4", "--games", "3", "--seed", "b4", "--bots", "random,greedy,random,greedy"),
    ("--players", "4", "--six-rounds", "--games", "2", "--seed", "b6", "--bots", "greedy"),
    ("--players", "3", "--copies-per-position", "7", "--games", "2", "--seed", "b7", "--bots", "random"),
)
"""Simulator runs whose exact output (bots included) the fixture records by hash."""


def _building(building: Any) -> Any:
    if building is None:
        return None
    return [[list(p) for p in building.pieces], building.owner, building.height, list(building.storeys)]


def state_fingerprint(engine: ModuleType, state: Any) -> dict[str, Any]:
    """Everything a caller can observe of ``state``, as plain JSON values."""
    fields = {
        "options": state.options.to_json(),
        "sides": list(state.sides),
        "colours": [list(c) for c in state.colours],
        "colour_player": sorted(state.colour_player.items()),
        "clockwise": list(state.clockwise),
        "board": [_building(b) for b in state.board],
        "hands": state.hands,
        "draw_pile": state.draw_pile,
        "discards": state.discards,
        "reserve": sorted(state.reserve.items()),
        "selection": sorted(state.selection.items()),
        "lost": sorted(state.lost.items()),
        "scores": sorted(state.scores.items()),
        "round_scores": [sorted(r.items()) for r in state.round_scores],
        "round": state.round,
        "phase": state.phase,
        "start_player": state.start_player,
        "to_act": state.to_act,
        "selection_queue": state.selection_queue,
        "resigned": state.resigned,
        "placements": state.placements,
        "undoable": state.undoable,
        "winners": list(state.winners),
        "engine_version": state.engine_version,
        "seq": state.seq,
        "is_finished": state.is_finished,
        "player_totals": state.player_totals(),
    }
    views = [engine.player_view(state, seat).to_json() for seat in range(state.players)]
    views.append(engine.spectator_view(state).to_json())
    legal = None
    if state.to_act is not None:
        legal = engine.legal_actions(engine.player_view(state, state.to_act)).to_json()
    return {"state": fields, "views": views, "legal": legal}


def state_digest(engine: ModuleType, state: Any) -> str:
    text = json.dumps(state_fingerprint(engine, state), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _bot_game(engine: ModuleType, options: Any, bots: list[str], seed: str) -> list[dict[str, Any]]:
    return list(engine.simulate.play_game(options, bots, seed).events)


def _game_with_undos_and_resignations(engine: ModuleType, players: int, seed: str) -> list[dict[str, Any]]:
    """Random moves; now and then an operator undoes a placement; two players resign along the way."""
    rng = random.Random(f"{seed}:game")
    choose = random.Random(f"{seed}:choose")
    events = [engine.create_game(engine.GameOptions(players=players), rng)]
    state = engine.initial_state(events[0])
    steps = 0
    while not state.is_finished:
        steps += 1
        seat = state.to_act
        if steps in (40, 130) and players >= 3:
            state, new = engine.execute(state, (seat + 1) % players, engine.Resign(), rng)
            events.extend(new)
            continue
        action = engine.bots.random_bot(engine.player_view(state, seat), choose)
        state, new = engine.execute(state, seat, action, rng)
        events.extend(new)
        if state.undoable is not None and choose.random() < 0.1:
            state, new = engine.execute(state, None, engine.UndoLastPlacement(f"step {steps}"), rng)
            events.extend(new)
    return events


def make_baseline_games(engine: ModuleType) -> list[dict[str, Any]]:
    options = engine.GameOptions
    games = [
        ("2p", _bot_game(engine, options(players=2), ["greedy", "random"], "base-2p")),
        ("2p-sides", _bot_game(engine, options(players=2, sides=(3, 0)), ["random", "random"], "base-2s")),
        ("3p", _bot_game(engine, options(players=3), ["random", "greedy", "random"], "base-3p")),
        ("3p-63", _bot_game(engine, options(players=3, copies_per_position=7), ["random"] * 3, "base-63")),
        ("4p", _bot_game(engine, options(players=4), ["random", "random", "greedy", "random"], "base-4p")),
        ("4p-redraw", _bot_game(engine, options(players=4), ["random"] * 4, "309")),
        ("4p-six", _bot_game(engine, options(players=4, six_rounds=True, sides=(2, 3, 0, 1)), ["random"] * 4, "b6")),
        ("3p-undo-resign", _game_with_undos_and_resignations(engine, 3, "u3")),
        ("4p-undo-resign", _game_with_undos_and_resignations(engine, 4, "u4")),
        ("2p-undo", _game_with_undos_and_resignations(engine, 2, "u2")),
    ]
    out = []
    for name, events in games:
        state = engine.initial_state(events[0])
        digests = [state_digest(engine, state)]
        for event in events[1:]:
            engine.events.apply_in_place(state, event)
            digests.append(state_digest(engine, state))
        out.append({"name": name, "events": events, "digests": digests})
    return out


def simulation_digest(stdout: str) -> str:
    return hashlib.sha256(stdout.encode()).hexdigest()[:16]


def main() -> None:  # pragma: no cover - run by hand to record the fixture
    import importlib
    import subprocess

    engine = importlib.import_module("games.engine")
    for name in ("simulate", "bots", "events"):
        importlib.import_module(f"games.engine.{name}")
    lines = [json.dumps(game, separators=(",", ":")) for game in make_baseline_games(engine)]
    sims = {}
    for args in SIMULATIONS:
        out = subprocess.run(
            [sys.executable, "-m", "games.engine", "simulate", *args], capture_output=True, text=True, check=True
        ).stdout
        sims[" ".join(args)] = simulation_digest(out)
    lines.append(json.dumps({"simulations": sims}, separators=(",", ":")))
    FIXTURE.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":  # pragma: no cover
    main()
