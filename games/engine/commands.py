"""Commands: validate an action against the state and turn it into events.

This is the only place where rules are enforced and chance is decided. Each
event is applied to a private working copy as soon as it is made, so the
automatic consequences of an action (``advance.py``: the next player's R16
redraws, round scoring, the next round, the end of the game) are decided on the
state they follow from, by the same fold that replays them later.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from .actions import Action, PlacePiece, Resign, SelectPieces, UndoLastPlacement
from .advance import advance, can_place, draw_cards
from .constants import (
    COLOUR_NAMES,
    DEFAULT_COLOURS,
    DEFAULT_SIDES,
    ENGINE_VERSION,
    EVENT_SCHEMA_VERSION,
    HAND_SIZE,
    RULESET,
)
from .errors import refuse
from .events import (
    GAME_CREATED,
    PIECE_PLACED,
    PIECES_SELECTED,
    PLACEMENT_UNDONE,
    PLAYER_RESIGNED,
    Event,
    apply_in_place,
    next_player,
)
from .options import GameOptions
from .rotation import CARD_INDEXES, CARD_TO_LOT
from .state import FINISHED, PLACEMENT, ROUND_OVER, SELECTION, GameState

V = EVENT_SCHEMA_VERSION


def create_game(options: GameOptions, rng: random.Random) -> Event:
    """R8: the creation event: seating, colours, start player, shuffle and deal."""
    players = options.players
    deck = [card for card in range(9) for _ in range(options.copies_per_position)]
    rng.shuffle(deck)
    hands = [[deck.pop() for _ in range(HAND_SIZE)] for _ in range(players)]
    start = options.start_player if options.start_player is not None else rng.randrange(players)
    return {
        "type": GAME_CREATED,
        "v": V,
        "engine": ENGINE_VERSION,
        "ruleset": RULESET,
        "options": options.to_json(),
        "sides": list(options.sides or DEFAULT_SIDES[players]),
        "colours": [list(c) for c in DEFAULT_COLOURS[players]],
        "start_player": start,
        "hands": hands,
        "draw_pile": deck,
    }


def decide(state: GameState, player: int | None, action: Action, rng: random.Random) -> list[Event]:
    """The events that ``player`` doing ``action`` produces, or a ``RuleError``.

    ``player`` is ``None`` only for operator actions (undo). ``state`` is not
    changed.
    """
    return execute(state, player, action, rng)[1]


def execute(
    state: GameState, player: int | None, action: Action, rng: random.Random, *, in_place: bool = False
) -> tuple[GameState, list[Event]]:
    """Like ``decide``, and also the state after the events (saves a second fold).

    With ``in_place`` the caller gives up ``state``: it is advanced and
    returned instead of copied, which is what a tight loop such as the
    simulator wants. A refused action leaves it unchanged either way, since
    nothing is applied until the action has been validated. Anything that is
    not a valid seat or action is refused with a ``RuleError`` too.
    """
    if state.phase == FINISHED:
        raise refuse("game_finished")
    kind = type(action)
    if kind is UndoLastPlacement:
        assert isinstance(action, UndoLastPlacement)
        if player is not None:
            raise refuse("undo_forbidden")
        if not isinstance(action.reason, str):
            raise refuse("undo_reason")
        event = _undo(state, action)
        work = state if in_place else state.copy()
        apply_in_place(work, event)
        return work, [event]
    if type(player) is not int or not 0 <= player < state.players:
        raise refuse("not_a_player")
    if state.resigned[player]:
        raise refuse("player_resigned")
    if kind is Resign:
        event = {"type": PLAYER_RESIGNED, "v": V, "player": player}
    elif kind is SelectPieces:
        assert isinstance(action, SelectPieces)
        event = _select(state, player, action)
    elif kind is PlacePiece:
        assert isinstance(action, PlacePiece)
        event = _place(state, player, action, rng)
    else:
        raise refuse("unknown_action", kind=kind.__name__)
    work = state if in_place else state.copy()
    return work, _emit_and_advance(work, event, rng)


def execute_trusted(state: GameState, player: int, action: Action, rng: random.Random) -> list[Event]:
    """The simulator's and the search's fast path: ``execute(..., in_place=True)``
    for an action the engine itself chose for ``player``, the seat to act (a
    built-in bot or the search, from that seat's view or legal actions).

    Nothing is checked again, so anything else corrupts ``state``: outside
    input always goes through ``execute``.
    """
    if isinstance(action, PlacePiece):
        colour = action.colour
        if colour is None:
            mine = state.colours[player]
            colour = mine[0] if len(mine) == 1 else _placing_colour(state, player, action)
        if state.draw_pile:
            return place_trusted(state, player, action.card, action.city, action.size, colour, rng)
        event = _placement_event(state, player, action.card, action.city, action.size, colour, rng)
    elif isinstance(action, SelectPieces):
        colour = state.selection_queue[0]
        event = {"type": PIECES_SELECTED, "v": V, "player": player, "colour": colour, "pieces": list(action.pieces)}
    elif isinstance(action, Resign):
        event = {"type": PLAYER_RESIGNED, "v": V, "player": player}
    else:
        return execute(state, player, action, rng, in_place=True)[1]
    return _emit_and_advance(state, event, rng)


def place_trusted(
    state: GameState, player: int, card: int, city: int, size: int, colour: int, rng: random.Random
) -> list[Event]:
    """A trusted placement with a card left to draw (all but a few a game; the caller checks
    ``state.draw_pile``), the colour already resolved (R15): the event made
    and applied from the values in hand (as ``events._piece_placed`` would apply it), and the
    next player's R16 check, which nearly always finds a placement at once."""
    event = _placement_event(state, player, card, city, size, colour, rng)  # the pile is not empty: no reshuffle
    pile = state.draw_pile
    drew = pile[-1]
    lot = event["lot"]
    state.board.place(city * 9 + lot, colour, size)
    hand = state.hands[player]
    hand.remove(card)
    state.discards[player].append(card)
    state.selection[colour][size - 1] -= 1
    pile.pop()
    hand.append(drew)
    state.undoable = event
    state.placements += 1
    state.seq += 1
    following = next_player(state, player)
    state.to_act = following
    if following is not None and True not in state.resigned and can_place(state, following):
        return [event]
    if following is None:
        state.phase = ROUND_OVER
    events = [event]
    advance(state, events, rng)
    return events


def _emit_and_advance(state: GameState, event: Event, rng: random.Random) -> list[Event]:
    """Apply ``event`` and everything that follows it without a choice; all the events made."""
    events = [event]
    apply_in_place(state, event)
    advance(state, events, rng)
    return events


def _select(state: GameState, player: int, action: SelectPieces) -> Event:
    if state.phase != SELECTION:
        raise refuse("select_wrong_phase")
    colour = state.selecting_colour
    assert colour is not None
    if state.colour_player[colour] != player:
        raise refuse("select_out_of_turn")
    if action.colour is not None and action.colour != colour:
        _check_colour(action.colour)
        if action.colour not in state.colours[player]:
            raise refuse("not_your_colour", colour=COLOUR_NAMES[action.colour])
        raise refuse("select_colour_first", colour=COLOUR_NAMES[colour])
    check_selection(state.reserve[colour], action.pieces, state.options.pieces_per_round)
    return {"type": PIECES_SELECTED, "v": V, "player": player, "colour": colour, "pieces": list(action.pieces)}


def check_selection(reserve: Sequence[int], pieces: Sequence[int], k: int) -> None:
    """R9: exactly ``k`` pieces, each still in the colour's reserve."""
    if len(pieces) != k:
        raise refuse("selection_count", k=k, chosen=len(pieces))
    counts = [0, 0, 0, 0]
    for size in pieces:
        if type(size) is not int or not 1 <= size <= 4:
            raise refuse("selection_no_such_size", size=size if type(size) is int else repr(size))
        counts[size - 1] += 1
    for i in range(4):
        if counts[i] > reserve[i]:
            raise refuse("selection_not_in_reserve", chosen=counts[i], size=i + 1, left=reserve[i])


def _check_colour(colour: object) -> None:
    if type(colour) is not int or not 0 <= colour <= 3:
        raise refuse("bad_colour")


def _place(state: GameState, player: int, action: PlacePiece, rng: random.Random) -> Event:
    if state.phase != PLACEMENT:
        raise refuse("place_wrong_phase")
    if state.to_act != player:
        raise refuse("place_out_of_turn")
    card, city, size = action.card, action.city, action.size
    if type(card) is not int or not 0 <= card <= 8:
        raise refuse("bad_card")
    if type(city) is not int or not 0 <= city <= 5:
        raise refuse("bad_city")
    if type(size) is not int or not 1 <= size <= 4:
        raise refuse("bad_size")
    if action.colour is not None:
        _check_colour(action.colour)
    hand = state.hands[player]
    if card not in hand:
        raise refuse("card_not_in_hand", card=card + 1, hand=", ".join(str(c + 1) for c in sorted(hand)))
    colour = _placing_colour(state, player, action)
    if state.selection[colour][size - 1] == 0:
        left = [s for s in (1, 2, 3, 4) for _ in range(state.selection[colour][s - 1])]
        if not left:
            raise refuse("piece_not_in_supply_none_left", colour=COLOUR_NAMES[colour], size=size)
        raise refuse("piece_not_in_supply", colour=COLOUR_NAMES[colour], size=size, left=", ".join(map(str, left)))
    index = CARD_INDEXES[state.sides[player]][card][city]
    board = state.board
    if not board.accepts(index, colour, size):
        owner = board.owner[index]
        raise refuse(
            "takeover_too_small",
            need=board.storeys[index * 4 + owner],
            owner=COLOUR_NAMES[owner],
            mine=board.storeys[index * 4 + colour] + size,
        )
    return _placement_event(state, player, card, city, size, colour, rng)


def _placement_event(
    state: GameState, player: int, card: int, city: int, size: int, colour: int, rng: random.Random
) -> Event:
    """R10/R11: the placement's event, with the card drawn after it decided now."""
    pile = state.draw_pile
    if pile:
        drew: int | None = pile[-1]
        reshuffle = None
    else:
        drawn, reshuffle = draw_cards(state, 1, extra_discards=[card], rng=rng)
        drew = drawn[0] if drawn else None
    event: Event = {
        "type": PIECE_PLACED,
        "v": V,
        "player": player,
        "colour": colour,
        "card": card,
        "city": city,
        "lot": CARD_TO_LOT[state.sides[player]][card],
        "size": size,
        "drew": drew,
    }
    if reshuffle is not None:
        event["reshuffle"] = reshuffle
    return event


def _placing_colour(state: GameState, player: int, action: PlacePiece) -> int:
    """R15: a two-colour player names the colour unless only one could place that size."""
    mine = state.colours[player]
    if action.colour is not None:
        if action.colour not in mine:
            raise refuse("not_your_colour", colour=COLOUR_NAMES[action.colour])
        return action.colour
    if len(mine) == 1:
        return mine[0]
    having = [c for c in mine if state.selection[c][action.size - 1] > 0]
    if len(having) == 1:
        return having[0]
    if not having:
        raise refuse("piece_not_in_supply_either", size=action.size)
    raise refuse("colour_required", colour=COLOUR_NAMES[mine[0]], other_colour=COLOUR_NAMES[mine[1]])


def _undo(state: GameState, action: UndoLastPlacement) -> Event:
    last = state.undoable
    if last is None:
        raise refuse("undo_unavailable")
    fields = ("player", "colour", "card", "city", "lot", "size", "drew")
    return {"type": PLACEMENT_UNDONE, "v": V, **{k: last[k] for k in fields}, "reason": action.reason}
