"""Information-set Monte Carlo tree search (SO-ISMCTS; Cowling, Powley and
Whitehouse, "Information Set Monte Carlo Tree Search", 2012).

One tree of the searching seat's information set. Every iteration samples the
hidden cards anew (``determinize``), walks down the tree through the actions
that are legal in that sample — the search seat's, and every other seat's as
the sample lets them — adds one node, plays the sample out with the playout
policy (``playout``) and credits each node with the reward of the player who
chose it. UCB1 counts a child's chances by how often it was *available*, not
by its parent's visits, since a move needs the cards of the sample.

A node's children grow by progressive widening: a node visited ``n`` times
may have ``1 + WIDENING * sqrt(n)`` of them, the next one taken in prior
order at the root (the immediate score difference, as greedy sees it; the
root's moves are the same in every sample) and from the playout policy below
it. Selections (R9) are searched over a reduced set of sensible choices.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations_with_replacement

from .actions import Action, SelectPieces, place_action
from .commands import execute_trusted
from .determinize import Deals, HiddenCards
from .greedy import balanced_selection, best_placements
from .playout import PLAYOUT_POLICIES, PlacementPolicy, leads, play_out, policy_placement, rewards
from .rotation import CARD_INDEXES
from .rules import Placement
from .state import PLACEMENT, SELECTION, GameState
from .views import PlayerView

EXPLORATION = 0.7
"""UCB1's constant for rewards in [0, 1]."""
WIDENING = 1.0
MAX_DEPTH = 12
SELECTION_CHOICES = 8
"""How many of a colour's possible selections the search considers, the most balanced first."""


@dataclass(frozen=True, slots=True)
class Budget:
    """How long one decision may search: a number of iterations (deterministic for a
    given generator) and/or a time limit in seconds of the searching thread's CPU time,
    whichever ends first. CPU time, not the clock: a second is a second of one core
    however busy the machine is, so the bot plays as well on a loaded worker."""

    iterations: int | None = None
    seconds: float | None = 1.0
    playout: str = "sampled"
    """The playouts' placement policy, a name in ``playout.PLAYOUT_POLICIES``."""

    def __post_init__(self) -> None:
        if self.iterations is None and self.seconds is None:
            raise ValueError("a search needs an iteration budget or a time limit")
        if self.playout not in PLAYOUT_POLICIES:
            raise ValueError(f"unknown playout policy {self.playout!r}; choose from {', '.join(PLAYOUT_POLICIES)}")


Key = Placement | tuple[int, ...]
"""A move in the tree: a ``Placement`` whose lot is left out (-1: the card and the side name
it), or a selection's sorted sizes (1-4, so never equal to a placement's tuple)."""


class Node:
    """A node of the tree: the move of ``mover`` that led here, and its statistics."""

    __slots__ = ("available", "children", "mover", "reward", "visits")

    def __init__(self, mover: int) -> None:
        self.mover = mover
        self.children: dict[tuple[int, Key], Node] = {}
        self.visits = 0
        self.reward = 0.0
        self.available = 0


@dataclass(frozen=True, slots=True)
class SearchResult:
    """A finished search: the root's moves (best first by the prior), its tree and its count."""

    seat: int
    root_moves: list[Key]
    root: Node
    iterations: int

    def visits(self, key: Key) -> int:
        return _visits(self.root, self.seat, key)

    def value(self, key: Key) -> float | None:
        """The mean reward of ``key``'s playouts for the seat, None if never tried."""
        child = self.root.children.get((self.seat, key))
        return child.reward / child.visits if child is not None and child.visits else None

    def best(self) -> Key:
        """The root move visited most often (the first in prior order on a tie)."""
        return max(self.root_moves, key=self.visits)


def choose(view: PlayerView, rng: random.Random, budget: Budget) -> Action:
    """The search's action for ``view.seat``, which is to act. Reads nothing but the view."""
    result = search(view, rng, budget)
    return action_of(view, result.best())


def search(
    view: PlayerView,
    rng: random.Random,
    budget: Budget,
    *,
    root_moves: Sequence[Key] | None = None,
    to_game_end: bool = False,
) -> SearchResult:
    """Search ``view.seat``'s decision; reads nothing but the view. ``root_moves`` limits the
    root to those moves (default: every sensible one, best first by the prior); with
    ``to_game_end`` every playout runs to the end of the game, so a move's value is the
    share of playouts its player won (the review's win chance) instead of the end-of-round
    estimate, at more CPU an iteration."""
    seat = view.seat
    assert seat is not None
    assert view.to_act == seat
    search_rng = random.Random(rng.getrandbits(64))
    hidden = HiddenCards(view)
    moves = list(root_moves) if root_moves is not None else sensible_moves(view)
    root = Node(mover=seat)
    if len(moves) == 1 and root_moves is None:
        return SearchResult(seat, moves, root, 0)
    # The deals come from a generator of their own: two searches of one view with the same
    # seed then play their playouts on the same deals, whatever the trees do (the review
    # compares moves so, with less noise than independent deals give).
    deal_rng = random.Random(search_rng.getrandbits(64))
    deals = Deals(view, hidden)
    baseline = leads(deals.sample(deal_rng))
    policy = PLAYOUT_POLICIES[budget.playout]
    until_round = view.options.rounds if to_game_end else view.round
    started = time.thread_time()
    iterations = 0
    while budget.iterations is None or iterations < budget.iterations:
        if budget.seconds is not None and iterations and time.thread_time() - started >= budget.seconds:
            break
        iterations += 1
        _iterate(root, moves, deals.sample(deal_rng), until_round, baseline, search_rng, policy)
    return SearchResult(seat, moves, root, iterations)


def _visits(node: Node, seat: int, key: Key) -> int:
    child = node.children.get((seat, key))
    return child.visits if child is not None else -1


def _iterate(
    root: Node,
    root_moves: Sequence[Key],
    state: GameState,
    until_round: int,
    baseline: list[float],
    rng: random.Random,
    policy: PlacementPolicy,
) -> None:
    path: list[Node] = []
    node = root
    while len(path) < MAX_DEPTH and not state.is_finished and state.round <= until_round:
        player = state.to_act
        assert player is not None
        key, expanded = _select_or_expand(node, state, player, root_moves if node is root else None, rng)
        child = node.children.get((player, key))
        if child is None:
            child = node.children[(player, key)] = Node(mover=player)
            child.available = 1
        _apply(state, player, key, rng)
        path.append(child)
        node = child
        if expanded:
            break
    play_out(state, rng, until_round=until_round, policy=policy)
    paid = rewards(state, baseline)
    root.visits += 1
    for child in path:
        child.visits += 1
        child.reward += paid[child.mover]


def _select_or_expand(
    node: Node, state: GameState, player: int, ordered: Sequence[Key] | None, rng: random.Random
) -> tuple[Key, bool]:
    """The move to take from ``node`` in this sample, and whether it is new to the tree."""
    if ordered is not None:  # the root: its moves are the seat's own, legal in every sample of the view
        available = [(key, child) for (_, key), child in node.children.items()]
    else:
        available = [
            (key, child)
            for (mover, key), child in node.children.items()
            if mover == player and _legal(state, player, key)
        ]
    for _, child in available:  # UCB1 counts the chances a child had: every visit it was legal in
        child.available += 1
    if len(available) < 1 + WIDENING * math.sqrt(node.visits):
        new = _new_move(node, state, player, ordered, rng)
        if new is not None:
            return new, True
    if not available:
        return _policy_move(state, player, rng), True
    log_total = math.log
    best_key, best_value = available[0][0], -1.0
    for key, child in available:
        if child.visits == 0:
            return key, False
        value = child.reward / child.visits + EXPLORATION * math.sqrt(log_total(child.available) / child.visits)
        if value > best_value:
            best_key, best_value = key, value
    return best_key, False


def _new_move(
    node: Node, state: GameState, player: int, ordered: Sequence[Key] | None, rng: random.Random
) -> Key | None:
    """A legal move not yet in the tree: the next in prior order, or the policy's choice."""
    if ordered is not None:
        return next((key for key in ordered if (player, key) not in node.children), None)
    if state.phase == SELECTION:
        options = selection_choices(state.reserve[state.selection_queue[0]], state.options.pieces_per_round)
        return next((key for key in options if (player, key) not in node.children), None)
    for _ in range(3):
        key = _policy_move(state, player, rng)
        if (player, key) not in node.children:
            return key
    return None


def _policy_move(state: GameState, player: int, rng: random.Random) -> Key:
    if state.phase == SELECTION:
        colour = state.selection_queue[0]
        return balanced_selection(state.reserve[colour], state.options.pieces_per_round)
    action = policy_placement(state, player, rng)
    colour = action.colour if action.colour is not None else state.colours[player][0]
    return Placement(action.card, action.city, -1, action.size, colour)


def _legal(state: GameState, player: int, key: Key) -> bool:
    if isinstance(key, Placement):
        if state.phase != PLACEMENT or key.card not in state.hands[player]:
            return False
        if not state.selection[key.colour][key.size - 1]:
            return False
        index = CARD_INDEXES[state.sides[player]][key.card][key.city]
        return state.board.accepts(index, key.colour, key.size)
    return state.phase == SELECTION and state.colour_player[state.selection_queue[0]] == player


def _apply(state: GameState, player: int, key: Key, rng: random.Random) -> None:
    if isinstance(key, Placement):
        two_colours = len(state.colours[player]) > 1
        action: Action = place_action(key.card, key.city, key.size, key.colour if two_colours else None)
    else:
        assert isinstance(key, tuple)
        action = SelectPieces(key, state.selection_queue[0])
    execute_trusted(state, player, action, rng)


def sensible_moves(view: PlayerView) -> list[Key]:
    """The seat's moves, the same in every sample, best first by the immediate score difference."""
    seat = view.seat
    assert seat is not None
    if view.phase == SELECTION:
        colour = view.selecting_colour
        assert colour is not None
        return list(selection_choices(view.reserve[colour], view.options.pieces_per_round))
    placements = view.legal_placements()
    ranked: list[Key] = []
    rest = list(placements)
    while rest and len(ranked) < len(placements):
        best = best_placements(view.board, rest, view.colours, seat)
        ranked.extend(Placement(p.card, p.city, -1, p.size, p.colour) for p in best)
        chosen = set(best)
        rest = [p for p in rest if p not in chosen]
    return ranked


def selection_choices(reserve: Sequence[int], k: int) -> list[tuple[int, ...]]:
    """A reduced, sensible set of selections (R9): those closest to taking every size in
    proportion to what is left of it, the balanced bot's own choice first."""
    balanced = balanced_selection(reserve, k)
    total = sum(reserve)
    target = [k * n / total for n in reserve]
    choices = [
        combo
        for combo in combinations_with_replacement((1, 2, 3, 4), k)
        if all(combo.count(s) <= reserve[s - 1] for s in (1, 2, 3, 4))
    ]
    choices.sort(key=lambda combo: sum((combo.count(s) - target[s - 1]) ** 2 for s in (1, 2, 3, 4)))
    ordered = [balanced] + [c for c in choices if c != balanced]
    return ordered[:SELECTION_CHOICES]


def action_of(view: PlayerView, key: Key) -> Action:
    """The action of a root move ``key`` of ``view.seat``."""
    seat = view.seat
    assert seat is not None
    if isinstance(key, Placement):
        two_colours = len(view.colours[seat]) > 1
        return place_action(key.card, key.city, key.size, key.colour if two_colours else None)
    assert isinstance(key, tuple)
    return SelectPieces(key, view.selecting_colour if len(view.colours[seat]) > 1 else None)
