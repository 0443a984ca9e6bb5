"""Playouts for the search: a quick, reasonable way to finish a sampled game.

A playout advances a complete ``GameState`` in place through the trusted
path (``execute_trusted``), each seat choosing with a cheap policy: a few
random legal placements, of which the one with the best immediate score
difference is played (R17 kept by the board makes judging one a few steps),
and the greedy bot's balanced selection. It stops at the end of the game, or
earlier at the end of a round, where ``rewards`` estimates the rest.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from operator import itemgetter

from .actions import PlacePiece, SelectPieces, place_action
from .board import CITY_OF
from .commands import execute_trusted, place_trusted
from .constants import BUILDING_POINTS, CITIES, LOTS_PER_CITY, MAJORITY_POINTS, TALLEST_POINTS
from .greedy import balanced_selection, greedy_placements
from .rotation import CARD_INDEXES
from .state import PLACEMENT, SELECTION, GameState

SAMPLES = 4
"""Random legal placements a playout judges per turn: more plays better and slower."""
TEMPERATURE = 4.0
"""Points of estimated lead that make a reward of about 0.73 (a logistic curve) at a cut-off."""


def policy_placement(state: GameState, player: int, rng: random.Random, samples: int = SAMPLES) -> PlacePiece:
    """Of up to ``samples`` random legal placements, the one with the best immediate score
    difference (the player's colours minus the best other player's); ties to the first."""
    card, index, size, colour = policy_choice(state, player, rng, samples)
    named = len(state.colours[player]) > 1
    return place_action(card, index // LOTS_PER_CITY, size, colour if named else None)


def policy_choice(
    state: GameState, player: int, rng: random.Random, samples: int = SAMPLES
) -> tuple[int, int, int, int]:
    """``policy_placement``'s choice as (card, lot index, size, colour), for the playouts to
    place without an action to build and take apart.

    The playouts' default policy, so written for speed: a sample's points are the board's
    ``base_points`` changed as ``Board.points_untallest`` would change them, plus the tallest
    building's bonus (as ``Board.outcomes`` gives them, which a test checks), and the
    difference is taken without building lists.
    """
    colours = state.colours
    seating = _SEATINGS.get((id(colours), player))
    if seating is None or seating[0] is not colours:
        seating = _seating(colours, player)
    _, first, second, rival_best, rival_a, rival_b = seating
    selection = state.selection
    counts = selection[first]
    pieces = PIECES_BY_MASK[first][(counts[0] > 0) | (counts[1] > 0) << 1 | (counts[2] > 0) << 2 | (counts[3] > 0) << 3]
    if second >= 0:
        counts = selection[second]
        mask = (counts[0] > 0) | (counts[1] > 0) << 1 | (counts[2] > 0) << 2 | (counts[3] > 0) << 3
        pieces += PIECES_BY_MASK[second][mask]
    hand = state.hands[player]
    by_card = CARD_INDEXES[state.sides[player]]
    board = state.board
    owners, storeys, heights = board.owner, board.storeys, board.height
    # Board.points_untallest inlined (its tests hold the policy to a plain scoring of the same draws): the
    # settling, the base points and the tallest building are the same for every sample.
    base = board.base_points()
    city_counts, leaders = board.city_counts, board.leaders
    tallest, tallest_owner = board.tallest, board.tallest_owner if board.tallest_count == 1 else -1
    random_float = rng.random
    n_hand, n_pieces = len(hand), len(pieces)
    best: tuple[int, int, int, int] | None = None
    best_diff = -1_000_000
    tries = 0
    found = 0
    while found < samples and tries < 8 * samples:
        tries += 1
        card = hand[int(random_float() * n_hand)]
        index = by_card[card][int(random_float() * CITIES)]
        colour, size = pieces[int(random_float() * n_pieces)]
        before = owners[index]
        if before >= 0 and before != colour and storeys[index * 4 + colour] + size < storeys[index * 4 + before]:
            continue  # R14 refuses it
        found += 1
        points = base[:]
        if before != colour:  # a new owner: a building changes hands, and perhaps the city's lead
            city = CITY_OF[index]
            start = city * 4
            counts = city_counts[start : start + 4]
            if before >= 0:
                counts[before] -= 1
                points[before] -= BUILDING_POINTS
            counts[colour] += 1
            points[colour] += BUILDING_POINTS
            top = max(counts)
            leader = counts.index(top) if counts.count(top) == 1 else -1
            old_leader = leaders[city]
            if leader != old_leader:
                if old_leader >= 0:
                    points[old_leader] -= MAJORITY_POINTS
                if leader >= 0:
                    points[leader] += MAJORITY_POINTS
        taller_from = tallest - heights[index]
        if size > taller_from:  # alone at the top
            points[colour] += TALLEST_POINTS
        elif size < taller_from and tallest_owner >= 0:  # below: its owner keeps the bonus
            points[tallest_owner] += TALLEST_POINTS
        own = points[first] + points[second] if second >= 0 else points[first]
        if rival_best is not None:  # one colour each: the best other colour
            diff = own - max(rival_best(points))
        else:  # one other player: its colour or colours
            diff = own - (points[rival_a] + points[rival_b] if rival_b >= 0 else points[rival_a])
        if diff > best_diff:
            best_diff, best = diff, (card, index, size, colour)
    if best is None:  # no luck sampling: the first legal placement there is
        best = _first_placement(state, player, pieces)
    return best


Seating = tuple[object, int, int, Callable[[list[int]], tuple[int, ...]] | None, int, int]
_SEATINGS: dict[tuple[int, int], Seating] = {}
PIECES_BY_MASK = tuple(
    tuple(tuple((colour, size) for size in (1, 2, 3, 4) if mask >> (size - 1) & 1) for mask in range(16))
    for colour in range(4)
)
"""``PIECES_BY_MASK[colour][mask]``: the (colour, size) pieces of the sizes in ``mask`` (bit ``size - 1``)."""


def _seating(colours: Sequence[Sequence[int]], player: int) -> Seating:
    """What the sampled policy needs of the seating, the same all game: worked out once and
    kept by the identity of ``colours`` (checked, so a reused id is never trusted).

    The seating itself, the player's first and second colour (-1 if none), and either a
    getter of the other players' colours (one colour each) or the one other player's
    colour(s) (-1 if it has one): R18's comparison, without building a list a sample.
    """
    mine = colours[player]
    rivals = [cs for p, cs in enumerate(colours) if p != player]
    if len(mine) > 2 or any(len(cs) > 2 for cs in rivals) or (len(rivals) > 1 and any(len(cs) > 1 for cs in rivals)):
        raise ValueError(f"no such seating in Manhattan: {colours!r}")  # pragma: no cover
    rival_best = itemgetter(*[cs[0] for cs in rivals]) if len(rivals) > 1 else None  # a tuple: two or more
    rival_a = rivals[0][0]
    rival_b = rivals[0][1] if len(rivals) == 1 and len(rivals[0]) > 1 else -1
    seating = _SEATINGS[(id(colours), player)] = (
        colours,
        mine[0],
        mine[1] if len(mine) > 1 else -1,
        rival_best,
        rival_a,
        rival_b,
    )
    return seating


def greedy_placement(state: GameState, player: int, rng: random.Random) -> PlacePiece:
    """The greedy bot's choice, made on the state itself (no view to build)."""
    mine = state.colours[player]
    selections = {c: state.selection[c] for c in mine}
    best = greedy_placements(state.board, state.hands[player], state.sides[player], selections, state.colours, player)
    p = best[rng.randrange(len(best))]
    return place_action(p.card, p.city, p.size, p.colour if len(mine) > 1 else None)


def _first_placement(state: GameState, player: int, pieces: Sequence[tuple[int, int]]) -> tuple[int, int, int, int]:
    by_card = CARD_INDEXES[state.sides[player]]
    for card in state.hands[player]:
        for index in by_card[card]:
            for colour, size in pieces:
                if state.board.accepts(index, colour, size):
                    return card, index, size, colour
    raise AssertionError("R16 leaves the seat to act a legal placement")


def policy_selection(state: GameState) -> SelectPieces:
    colour = state.selection_queue[0]
    return SelectPieces(balanced_selection(state.reserve[colour], state.options.pieces_per_round), colour)


PlacementPolicy = Callable[[GameState, int, random.Random], PlacePiece]

PLAYOUT_POLICIES: dict[str, PlacementPolicy] = {"sampled": policy_placement, "greedy": greedy_placement}
"""The playout's placement policies by name. ``sampled`` (best of ``SAMPLES`` random legal
placements) is the default since it buys several times the iterations of ``greedy`` (every
legal placement scored, the default before) for one CPU-second; see docs/bots.md."""
PLACEMENT_POLICY: PlacementPolicy = policy_placement


PLIES: int | None = None
"""If set, a playout also stops after this many actions (and ``rewards`` estimates the rest)."""


def play_out(state: GameState, rng: random.Random, *, until_round: int, policy: PlacementPolicy | None = None) -> None:
    """Advance ``state`` with the placement ``policy`` (``PLACEMENT_POLICY`` if None) until the
    game ends, round ``until_round`` is scored, or ``PLIES`` actions were played."""
    place = PLACEMENT_POLICY if policy is None else policy
    sampled = place is policy_placement
    plies = 0
    while not state.is_finished and state.round <= until_round and (PLIES is None or plies < PLIES):
        plies += 1
        player = state.to_act
        assert player is not None
        if state.phase == PLACEMENT:
            if sampled and state.draw_pile:  # the common case, without an action in between
                card, index, size, colour = policy_choice(state, player, rng)
                place_trusted(state, player, card, index // LOTS_PER_CITY, size, colour, rng)
            else:
                execute_trusted(state, player, place(state, player, rng), rng)
        elif state.phase == SELECTION:
            execute_trusted(state, player, policy_selection(state), rng)
        else:  # pragma: no cover - advance never leaves another phase with a seat to act
            raise AssertionError(state.phase)


def leads(state: GameState) -> list[float]:
    """Each player's estimated lead over the best other player at the end of the game.

    A total is estimated as the score so far plus the board's points for every
    round still to be scored (buildings stay and are scored each round, R12,
    R17). Public information only: the same in every sample of a seat's view.
    """
    colours = state.colours
    rounds_left = state.options.rounds - state.round + (0 if state.is_finished else 1)
    points = state.board.points()
    estimate = [sum(state.scores[c] + rounds_left * points[c] for c in cs) for cs in colours]
    active = [p for p in range(len(colours)) if not state.resigned[p]]
    return [
        estimate[p] - max((estimate[q] for q in active if q != p), default=0) if p in active else -1000.0
        for p in range(len(colours))
    ]


def rewards(state: GameState, baseline: list[float]) -> list[float]:
    """Each player's reward in [0, 1] for ``state``, the end of a playout.

    A finished game pays its winners (a shared win is split). A playout cut
    short pays a logistic curve of how much the player's estimated lead grew
    since the search began (``baseline``, from ``leads``): a player far ahead or
    behind still tells a better move from a worse one, where a curve of the lead
    itself would flatten.
    """
    if state.is_finished:
        won = state.winners
        return [1.0 / len(won) if p in won else 0.0 for p in range(len(state.colours))]
    return [
        1.0 / (1.0 + math.exp(max(-50.0, min(50.0, (before - now) / TEMPERATURE))))
        for now, before in zip(leads(state), baseline, strict=True)
    ]
