"""What follows an action without a choice: R16 for the player to act (redraws, a lost
piece), round scoring (R17), the next round (R12), the last round's forced selection
(R9) and the end of the game (R19). ``commands`` decides the action; this plays out
the rest, applying each event as it is made, as the fold will replay it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from .constants import EVENT_SCHEMA_VERSION, HAND_SIZE
from .events import (
    GAME_FINISHED,
    HAND_REDRAWN,
    PIECE_LOST,
    PIECES_SELECTED,
    ROUND_SCORED,
    ROUND_STARTED,
    Event,
    apply_in_place,
    colour_points,
)
from .rules import any_lot_accepts, free_lot_named, largest_pieces, placement_exists, winners
from .state import PLACEMENT, ROUND_OVER, SELECTION, GameState

V = EVENT_SCHEMA_VERSION


def emit(state: GameState, events: list[Event], event: Event) -> None:
    """Record ``event`` and apply it, so what follows is decided on the state after it."""
    events.append(event)
    apply_in_place(state, event)


def draw_cards(
    state: GameState, count: int, *, extra_discards: Sequence[int], rng: random.Random
) -> tuple[list[int], list[int] | None]:
    """R11: decide the next ``count`` cards drawn, reshuffling every discard
    pile (plus ``extra_discards``, cards being discarded by this very event)
    into a new pile if the pile runs out. Returns the cards and the new pile.
    The pile itself is left alone: the event that records the draw changes it."""
    pile = state.draw_pile
    if len(pile) >= count:  # the usual case: the top ``count`` cards, in the order they are drawn
        return pile[: -count - 1 : -1], None
    drawn = pile[::-1]
    pool = [card for discard in state.discards for card in discard] + list(extra_discards)
    if not pool:
        return drawn, None
    rng.shuffle(pool)
    # Only one reshuffle per event: should the new pile run out too, nothing more is drawn.
    drawn += pool[: -(count - len(drawn)) - 1 : -1]
    return drawn, pool


def advance(state: GameState, events: list[Event], rng: random.Random) -> None:
    """Play out everything that follows without a choice, appending and applying
    its events: forced selections, R16 for the player to act, scoring, the next
    round and the end."""
    while True:
        phase = state.phase
        if True in state.resigned:
            active = [p for p in range(state.players) if not state.resigned[p]]
            if len(active) < 2:
                _finish(state, events, active)
                return
        if phase == PLACEMENT:
            player = state.to_act
            if player is None or can_place(state, player):
                return
            _resolve_no_placement(state, player, events, rng)
        elif phase == ROUND_OVER:
            points = state.board.score(state.all_colours)
            emit(state, events, {"type": ROUND_SCORED, "v": V, "round": state.round, "points": colour_points(points)})
            if state.round == state.options.rounds:
                _finish(state, events, [p for p in range(state.players) if not state.resigned[p]])
                return
            next_start = state.seats_after[state.start_player][0]
            emit(state, events, {"type": ROUND_STARTED, "v": V, "round": state.round + 1, "start_player": next_start})
        elif phase == SELECTION and state.round == state.options.rounds:
            # R9: the last round's selection is forced: the reserve is exactly k pieces.
            colour = state.selecting_colour
            assert colour is not None
            pieces = [s for s in (1, 2, 3, 4) for _ in range(state.reserve[colour][s - 1])]
            player = state.colour_player[colour]
            emit(state, events, {"type": PIECES_SELECTED, "v": V, "player": player, "colour": colour, "pieces": pieces})
        else:
            return


def can_place(state: GameState, player: int) -> bool:
    """Whether ``player`` holds a card that allows a legal placement of a round piece (R16)."""
    selection = state.selection
    colours = [colour for colour in state.colours[player] if any(selection[colour])]
    if free_lot_named(state.board, state.hands[player], state.sides[player], colours):
        return True  # nearly every turn: no need to work out what a takeover would take
    pieces = largest_pieces(selection, colours)
    return placement_exists(state.board, state.hands[player], state.sides[player], pieces)


def _resolve_no_placement(state: GameState, player: int, events: list[Event], rng: random.Random) -> None:
    """R16 for the player to act, who cannot place: redraws, or the smallest
    round piece lost. Afterwards the turn may have passed on."""
    pieces = largest_pieces(state.selection, state.colours[player])
    if any_lot_accepts(state.board, {colour: state.selection[colour] for colour, _ in pieces}):
        limit = -(-state.options.deck_size // HAND_SIZE)
        for _ in range(limit):
            hand = list(state.hands[player])
            drew, reshuffle = draw_cards(state, HAND_SIZE, extra_discards=hand, rng=rng)
            event: Event = {"type": HAND_REDRAWN, "v": V, "player": player, "discarded": hand, "drew": drew}
            if reshuffle is not None:
                event["reshuffle"] = reshuffle
            emit(state, events, event)
            if can_place(state, player):
                return
    colour, size = _smallest_round_piece(state, player)
    emit(state, events, {"type": PIECE_LOST, "v": V, "player": player, "colour": colour, "size": size})


def _smallest_round_piece(state: GameState, player: int) -> tuple[int, int]:
    """R16: the smallest unplaced round piece; on a tie the player's first colour."""
    for size in (1, 2, 3, 4):
        for colour in state.colours[player]:
            if state.selection[colour][size - 1] > 0:
                return colour, size
    raise AssertionError("R16 applies only to a player with round pieces left")


def _finish(state: GameState, events: list[Event], active: list[int]) -> None:
    won = winners(state.board, state.colours, state.scores, active)
    emit(state, events, {"type": GAME_FINISHED, "v": V, "winners": list(won), "totals": colour_points(state.scores)})
