"""Play whole games between bots: the engine's own end-to-end exercise."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from .bots import bot_for
from .commands import create_game, execute_trusted
from .events import Event, initial_state
from .options import GameOptions
from .state import GameState
from .views import player_view


@dataclass(frozen=True, slots=True)
class SimulatedGame:
    seed: str
    events: list[Event]
    state: GameState


def play_game(
    options: GameOptions,
    bots: Sequence[str],
    seed: str,
    *,
    iterations: int | None = None,
    seconds: float | None = None,
) -> SimulatedGame:
    """One game between ``bots`` (one kind per seat); the same seed gives the same game
    (with a search bot, when it is given ``iterations`` rather than ``seconds``)."""
    if len(bots) != options.players:
        raise ValueError(f"need one bot per seat ({options.players}), got {len(bots)}")
    deciders = [bot_for(kind, iterations=iterations, seconds=seconds) for kind in bots]
    rng = random.Random(f"{seed}:game")
    bot_rng = random.Random(f"{seed}:bots")
    created = create_game(options, rng)
    events = [created]
    state = initial_state(created)
    while not state.is_finished:
        seat = state.to_act
        assert seat is not None, "a live game always has a seat to act"
        action = deciders[seat](player_view(state, seat), bot_rng)
        # The engine's own bots choose among legal actions: the trusted path skips checking them again.
        events += execute_trusted(state, seat, action, rng)
    return SimulatedGame(seed=seed, events=events, state=state)


def simulate(
    options: GameOptions,
    bots: Sequence[str],
    games: int,
    seed: int | str,
    *,
    iterations: int | None = None,
    seconds: float | None = None,
) -> Iterator[SimulatedGame]:
    for i in range(games):
        yield play_game(options, bots, f"{seed}:{i}", iterations=iterations, seconds=seconds)
