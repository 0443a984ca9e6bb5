"""Events and the fold: how a game's log becomes its state.

An event is a plain JSON-ready ``dict`` with a ``type`` and a schema version
``v``. Applying one never validates, never raises for a well-formed log and
never draws a random number: every chance outcome (the deal, each card drawn,
each reshuffle) was decided when the command was handled and is written in
the event. That is what lets a log be replayed identically forever.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from itertools import chain
from operator import itemgetter, sub
from typing import Any

from .constants import COLOUR_NAMES, PIECES_PER_SIZE
from .seating import seating_of
from .state import (
    FINISHED,
    PLACEMENT,
    ROUND_OVER,
    SELECTION,
    Board,
    GameState,
)

Event = dict[str, Any]

GAME_CREATED = "game_created"
PIECES_SELECTED = "pieces_selected"
PIECE_PLACED = "piece_placed"
HAND_REDRAWN = "hand_redrawn"
PIECE_LOST = "piece_lost"
ROUND_SCORED = "round_scored"
ROUND_STARTED = "round_started"
GAME_FINISHED = "game_finished"
PLAYER_RESIGNED = "player_resigned"
PLACEMENT_UNDONE = "placement_undone"

EVENT_TYPES = (
    GAME_CREATED,
    PIECES_SELECTED,
    PIECE_PLACED,
    HAND_REDRAWN,
    PIECE_LOST,
    ROUND_SCORED,
    ROUND_STARTED,
    GAME_FINISHED,
    PLAYER_RESIGNED,
    PLACEMENT_UNDONE,
)


class CorruptLog(Exception):
    """A log that cannot be folded: it does not start with a creation event,
    or holds an event of an unknown type. Raised instead of guessing."""


def colour_points(points: Mapping[int, int]) -> dict[str, int]:
    """Per-colour points keyed by colour name, as stored in events."""
    return {COLOUR_NAMES[c]: n for c, n in points.items()}


_COLOUR_INDEX = {name: colour for colour, name in enumerate(COLOUR_NAMES)}


# --- applying events in place (only ever on a private working copy) ---------


def _selection_queue(state: GameState) -> list[int]:
    """R9: colours in selection order, from the round's start player clockwise."""
    start = state.start_player
    resigned, colours = state.resigned, state.colours
    queue: list[int] = []
    for player in (start, *state.seats_after[start][:-1]):
        if not resigned[player]:
            queue += colours[player]
    return queue


def _begin_selection(state: GameState) -> None:
    state.phase = SELECTION
    state.selection_queue = _selection_queue(state)
    state.to_act = state.colour_player[state.selection_queue[0]] if state.selection_queue else None
    if not state.selection_queue:
        _begin_placement(state)


def next_player(state: GameState, after: int) -> int | None:
    """R10: the next player clockwise after ``after`` (``after`` last) who still has round pieces."""
    resigned = state.resigned
    selection = state.selection
    colours = state.colours
    for player in state.seats_after[after]:
        if not resigned[player]:
            for colour in colours[player]:
                if any(selection[colour]):
                    return player
    return None


def _begin_placement(state: GameState) -> None:
    state.phase = PLACEMENT
    # The start player begins: the search starts right after the seat before them.
    before = state.seats_after[state.start_player][-2]
    _hand_turn_to(state, next_player(state, before))


def _hand_turn_to(state: GameState, player: int | None) -> None:
    state.to_act = player
    if player is None:
        state.phase = ROUND_OVER


def _draw(state: GameState, player: int, drew: Iterable[int], reshuffle: list[int] | None) -> None:
    """Draw the recorded cards; an empty pile is replaced by the recorded
    reshuffle of every discard pile (R11)."""
    pile = state.draw_pile
    hand = state.hands[player]
    for card in drew:
        if not pile and reshuffle is not None:
            pile.extend(reshuffle)
            reshuffle = None
            for discard in state.discards:
                discard.clear()
        pile.pop()
        hand.append(card)


def _game_created(state: GameState, e: Event) -> None:  # handled by ``initial_state``
    raise CorruptLog("a game can be created only once")


def _pieces_selected(state: GameState, e: Event) -> None:
    colour = e["colour"]
    pieces = e["pieces"]
    counts = [pieces.count(1), pieces.count(2), pieces.count(3), pieces.count(4)]
    reserve = state.reserve[colour]
    reserve[:] = map(sub, reserve, counts)
    state.selection[colour] = counts
    queue = state.selection_queue
    if colour in queue:
        queue.remove(colour)
    if queue:
        state.to_act = state.colour_player[queue[0]]
    else:
        _begin_placement(state)


_PLACEMENT_FIELDS = itemgetter("player", "colour", "size", "card", "city", "lot")
_PLACEMENT_FIELDS_AND_DRAW = itemgetter("player", "colour", "size", "card", "city", "lot", "drew")


def _piece_placed(state: GameState, e: Event) -> None:
    # The hottest code of a replay and of every simulated game: kept flat on purpose.
    player, colour, size, card, city, lot = _PLACEMENT_FIELDS(e)
    state.board.place(city * 9 + lot, colour, size)
    hand = state.hands[player]
    hand.remove(card)
    state.discards[player].append(card)
    selection = state.selection
    selection[colour][size - 1] -= 1
    if "reshuffle" in e:
        _draw(state, player, (e["drew"],), e["reshuffle"])
        state.undoable = None
    else:
        drew = e["drew"]
        if drew is not None:
            state.draw_pile.pop()
            hand.append(drew)
        state.undoable = e
    state.placements += 1
    # R10: the turn passes to the next player clockwise with round pieces (as ``next_player``).
    resigned = state.resigned
    colours = state.colours
    for after in state.seats_after[player]:
        if not resigned[after]:
            for c in colours[after]:
                if any(selection[c]):
                    state.to_act = after
                    return
    state.to_act = None
    state.phase = ROUND_OVER


def _hand_redrawn(state: GameState, e: Event) -> None:
    player = e["player"]
    state.discards[player].extend(state.hands[player])
    state.hands[player] = []
    _draw(state, player, e["drew"], e.get("reshuffle"))
    state.undoable = None


def _piece_lost(state: GameState, e: Event) -> None:
    colour = e["colour"]
    state.selection[colour][e["size"] - 1] -= 1
    state.lost[colour] += 1
    state.undoable = None
    _hand_turn_to(state, next_player(state, e["player"]))


def _round_scored(state: GameState, e: Event) -> None:
    points = {_COLOUR_INDEX[name]: n for name, n in e["points"].items()}
    for colour, n in points.items():
        state.scores[colour] += n
    state.round_scores.append(points)
    state.phase = ROUND_OVER
    state.to_act = None
    state.undoable = None


def _round_started(state: GameState, e: Event) -> None:
    state.round = e["round"]
    state.start_player = e["start_player"]
    state.undoable = None
    _begin_selection(state)


def _game_finished(state: GameState, e: Event) -> None:
    state.phase = FINISHED
    state.to_act = None
    state.winners = tuple(e["winners"])
    state.undoable = None


def _player_resigned(state: GameState, e: Event) -> None:
    player = e["player"]
    state.resigned[player] = True
    state.undoable = None
    for colour in state.colours[player]:
        state.reserve[colour] = [0, 0, 0, 0]
        state.selection[colour] = [0, 0, 0, 0]
        if colour in state.selection_queue:
            state.selection_queue.remove(colour)
    if state.phase == SELECTION:
        if state.selection_queue:
            state.to_act = state.colour_player[state.selection_queue[0]]
        else:
            _begin_placement(state)
    elif state.phase == PLACEMENT and state.to_act == player:
        _hand_turn_to(state, next_player(state, player))


def _placement_undone(state: GameState, e: Event) -> None:
    player, colour, size, card = e["player"], e["colour"], e["size"], e["card"]
    state.board.remove_top(e["city"] * 9 + e["lot"])
    hand = state.hands[player]
    drew = e["drew"]
    if drew is not None:
        hand.remove(drew)
        state.draw_pile.append(drew)
    state.discards[player].pop()
    hand.append(card)
    state.selection[colour][size - 1] += 1
    state.placements -= 1
    state.undoable = None
    state.phase = PLACEMENT
    state.to_act = player


_APPLY: dict[str, Callable[[GameState, Event], None]] = {
    GAME_CREATED: _game_created,
    PIECES_SELECTED: _pieces_selected,
    PIECE_PLACED: _piece_placed,
    HAND_REDRAWN: _hand_redrawn,
    PIECE_LOST: _piece_lost,
    ROUND_SCORED: _round_scored,
    ROUND_STARTED: _round_started,
    GAME_FINISHED: _game_finished,
    PLAYER_RESIGNED: _player_resigned,
    PLACEMENT_UNDONE: _placement_undone,
}


def initial_state(e: Event) -> GameState:
    """The state right after the creation event ``e``."""
    if e.get("type") != GAME_CREATED:
        raise CorruptLog("a game's log must start with a game_created event")
    seating = seating_of(e)
    players = seating.options.players
    colour_player = seating.colour_player
    state = GameState(
        options=seating.options,
        sides=seating.sides,
        colours=seating.colours,
        colour_player=colour_player,
        clockwise=seating.clockwise,
        board=Board(),
        hands=[list(h) for h in e["hands"]],
        draw_pile=list(e["draw_pile"]),
        discards=[[] for _ in range(players)],
        reserve={c: list(PIECES_PER_SIZE) for c in colour_player},
        selection={c: [0, 0, 0, 0] for c in colour_player},
        lost=dict.fromkeys(colour_player, 0),
        scores=dict.fromkeys(colour_player, 0),
        start_player=e["start_player"],
        resigned=[False] * players,
        engine_version=e["engine"],
        seq=1,
        seats_after=seating.seats_after,
    )
    _begin_selection(state)
    return state


def apply_in_place(state: GameState, event: Event) -> None:
    """Apply ``event`` to a state that nobody else holds (see ``fold``)."""
    handler = _APPLY.get(event["type"])
    if handler is None:
        raise CorruptLog(f"unknown event type {event.get('type')!r}")
    handler(state, event)
    state.seq += 1


def apply_event(state: GameState, event: Event) -> GameState:
    """The state after ``event``; ``state`` itself is left as it was."""
    new = state.copy()
    apply_in_place(new, event)
    return new


def fold_from(state: GameState, events: Iterable[Event]) -> GameState:
    """The state after ``events``, which follow ``state`` in its log; ``state`` itself is left as it was."""
    new = state.copy()
    for event in events:
        apply_in_place(new, event)
    return new


def fold(events: Iterable[Event]) -> GameState:
    """A game's state from its whole log: replay is a fold."""
    iterator = iter(events)
    try:
        first = next(iterator)
    except StopIteration:
        raise CorruptLog("an empty log holds no game") from None
    state = initial_state(first)
    event = next(iterator, None)
    while event is not None:
        if event["type"] == PIECE_PLACED:
            event = _fold_placements(state, event, iterator)
        else:
            apply_in_place(state, event)
            event = next(iterator, None)
    return state


def _fold_placements(state: GameState, first: Event, rest: Iterator[Event]) -> Event | None:
    """Apply ``first`` and the placements that follow it in ``rest`` (four events in five);
    return the next other event, or None at the end of the log.

    The same changes as ``_piece_placed``, in one loop over locals: what only the last
    placement decides (whose turn it is, what may be undone) is settled once at the end,
    since no placement reads it. The fold's board never counts R17 (``Board.counted``:
    nothing asks it for points), so only its per-lot arrays change.
    """
    board = state.board
    if board.counted:  # not a fold's own board: the ordinary way
        _piece_placed(state, first)
        state.seq += 1
        return next(rest, None)
    stacks, heights, owners, storeys = board.stacks, board.height, board.owner, board.storeys
    hands, discards, selection, pile = state.hands, state.discards, state.selection, state.draw_pile
    fields = _PLACEMENT_FIELDS_AND_DRAW
    placed = 0
    last = first
    following: Event | None = None
    for event in chain((first,), rest):
        if event["type"] != PIECE_PLACED:
            following = event
            break
        player, colour, size, card, city, lot, drew = fields(event)
        index = city * 9 + lot
        stacks[index] = stacks[index] << 4 | colour << 2 | size - 1
        heights[index] += size
        storeys[index * 4 + colour] += size
        owners[index] = colour
        hand = hands[player]
        hand.remove(card)
        discards[player].append(card)
        selection[colour][size - 1] -= 1
        if "reshuffle" in event:
            _draw(state, player, (drew,), event["reshuffle"])
        elif drew is not None:
            pile.pop()
            hand.append(drew)
        placed += 1
        last = event
    state.placements += placed
    state.seq += placed
    state.undoable = None if "reshuffle" in last else last
    _hand_turn_to(state, next_player(state, last["player"]))
    return following


__all__ = [
    "EVENT_TYPES",
    "FINISHED",
    "PLACEMENT",
    "ROUND_OVER",
    "SELECTION",
    "CorruptLog",
    "Event",
    "apply_event",
    "apply_in_place",
    "colour_points",
    "fold",
    "initial_state",
]
