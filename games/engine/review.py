"""A finished game reviewed by the strong bot's search, move by move, from each seat's view.

For every placement and selection of every seat the review takes the position as that
seat saw it (``player_view`` of the state before the move: its own hand, the public
board and piles, nothing hidden) and searches it twice with playouts to the end of the
game, so that a move's value is the share of playouts its player won — an estimate of
the chance to win:

- over every sensible move (``search.search``): the move the bot would choose and its
  estimate, which is the estimate *before* the move (the chance with the best play found);
- over the move actually played alone: the estimate *after* it.

The difference is what the move cost; a move that cost more than a threshold is marked.
The thresholds (``Thresholds``) must lie above the estimates' noise, measured by
reviewing the same position with different seeds (``estimate_noise``; docs/bots.md).
With an iteration budget the review is a function of the log and the seed.
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Container, Sequence
from dataclasses import dataclass

from .actions import Action
from .events import PIECE_PLACED, PIECES_SELECTED, PLACEMENT_UNDONE, Event, apply_in_place, initial_state
from .rules import Placement
from .search import Budget, Key, action_of, search
from .views import PlayerView, player_view

REVIEW_ITERATIONS = 200
"""Iterations of each of the two searches a move, by default."""


@dataclass(frozen=True, slots=True)
class Thresholds:
    """Win chance (0-1) a move may cost before it is marked, per mark (the largest that fits).

    Set above the noise: at 200 iterations the cost of one move reviewed with different
    seeds varies by a standard deviation of up to 0.07 (docs/bots.md), so the lowest mark
    starts at twice that; a wider step than the 5/10/20 points a finer estimate would allow."""

    inaccuracy: float = 0.15
    mistake: float = 0.25
    blunder: float = 0.40

    def mark(self, cost: float) -> str | None:
        if cost >= self.blunder:
            return "blunder"
        if cost >= self.mistake:
            return "mistake"
        if cost >= self.inaccuracy:
            return "inaccuracy"
        return None


@dataclass(frozen=True, slots=True)
class MoveReview:
    """One reviewed move: where it is in the log, whose it was and what the bot made of it."""

    event_index: int
    seat: int
    round: int
    kind: str  # "placement" or "selection"
    played: Action
    best: Action
    chance_before: float
    """The estimated chance to win before the move: that of the bot's choice, ``best``."""
    chance_after: float
    """The estimated chance to win after the move played (the same as before if it was ``best``)."""
    mark: str | None

    @property
    def cost(self) -> float:
        return max(0.0, self.chance_before - self.chance_after)


def review_move(
    view: PlayerView,
    played: Key,
    rng: random.Random,
    *,
    iterations: int = REVIEW_ITERATIONS,
    thresholds: Thresholds = Thresholds(),
) -> tuple[Action, float, float, str | None]:
    """The bot's choice, the estimate before and after ``played``, and the mark, for the seat
    whose ``view`` it is (the seat to act). Reads nothing but the view.

    A search over every move chooses; then the chosen move and the move played are each
    searched alone from one seed (the same deals for both, so their difference is far less
    noisy than two independent estimates): the first is the estimate before, the second after.
    """
    budget = Budget(iterations=iterations, seconds=None)
    best = search(view, rng, budget, to_game_end=True).best()
    seed = rng.getrandbits(64)
    before = _alone(view, best, seed, budget)
    after = before if best == played else _alone(view, played, seed, budget)
    return action_of(view, best), before, after, thresholds.mark(before - after)


def _alone(view: PlayerView, move: Key, seed: int, budget: Budget) -> float:
    """The estimated chance to win after ``move``: the share of playouts won that begin with it."""
    value = search(view, random.Random(seed), budget, root_moves=[move], to_game_end=True).value(move)
    assert value is not None
    return value


def played_key(event: Event) -> Key:
    """The search's key of a placement or selection event's move."""
    if event["type"] == PIECE_PLACED:
        return Placement(event["card"], event["city"], -1, event["size"], event["colour"])
    return tuple(sorted(event["pieces"]))


def reviewable_moves(events: Sequence[Event]) -> list[tuple[int, PlayerView]]:
    """Each placement and selection that stands in the log (an undone placement does not, nor
    the last round's selections, which the engine makes), by its index in the log, with the
    view its seat had of the position before it."""
    if not events:
        return []
    state = initial_state(events[0])
    moves: list[tuple[int, PlayerView]] = []
    for index, event in enumerate(events[1:], start=1):
        kind = event["type"]
        forced = kind == PIECES_SELECTED and state.round == state.options.rounds  # R9: the engine's, not a choice
        if kind in (PIECE_PLACED, PIECES_SELECTED) and event.get("player") == state.to_act and not forced:
            # A view may share its containers with the state, which the loop changes on.
            moves.append((index, player_view(state.copy(), event["player"])))
        elif kind == PLACEMENT_UNDONE:
            last = next(i for i in range(len(moves) - 1, -1, -1) if events[moves[i][0]]["type"] == PIECE_PLACED)
            del moves[last]
        apply_in_place(state, event)
    return moves


def review_game(
    events: Sequence[Event],
    seed: int | str = "review",
    *,
    iterations: int = REVIEW_ITERATIONS,
    thresholds: Thresholds = Thresholds(),
    only: Container[int] | None = None,
) -> list[MoveReview]:
    """Review every placement and selection of a game's log (``only``: just the moves at
    those log indexes). Each move has its own generator, seeded by ``seed`` and its index,
    so reviewing some of the moves gives the same for them as reviewing all."""
    reviews: list[MoveReview] = []
    for index, view in reviewable_moves(events):
        if only is not None and index not in only:
            continue
        event = events[index]
        seat = event["player"]
        played = played_key(event)
        rng = random.Random(f"{seed}:{index}")
        best, before, after, mark = review_move(view, played, rng, iterations=iterations, thresholds=thresholds)
        reviews.append(
            MoveReview(
                event_index=index,
                seat=seat,
                round=view.round,
                kind="placement" if event["type"] == PIECE_PLACED else "selection",
                played=action_of(view, played),
                best=best,
                chance_before=before,
                chance_after=after,
                mark=mark,
            )
        )
    return reviews


def estimate_noise(view: PlayerView, played: Key, seeds: Sequence[int | str], iterations: int) -> dict[str, float]:
    """How much the review of one position varies with the seed alone: the standard
    deviation, over ``seeds``, of the estimate before the move and of the move's cost."""
    befores: list[float] = []
    costs: list[float] = []
    for seed in seeds:
        _, before, after, _ = review_move(view, played, random.Random(seed), iterations=iterations)
        befores.append(before)
        costs.append(before - after)
    return {
        "before_sd": statistics.stdev(befores),
        "cost_sd": statistics.stdev(costs),
        "cost_mean": statistics.mean(costs),
    }
