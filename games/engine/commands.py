"""Commands: validate an action against the state and turn it into events.

This is the only place where rules are enforced and chance is decided. Each
event is applied to a private working copy as soon as it is made, so the
automatic consequences of an action (the next player's R16 redraws, round
scoring, the next round, the end of the game) are decided on the state they
follow from, by the same fold that replays them later.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from .actions import Action, PlacePiece, Resign, SelectPieces, UndoLastPlacement
from .constants import (
    COLOUR_NAMES,
    DEFAULT_COLOURS,
    DEFAULT_SIDES,
    ENGINE_VERSION,
    EVENT_SCHEMA_VERSION,
    HAND_SIZE,
    RULESET,
)
from .errors import RuleError
from .events import (
    GAME_CREATED,
    GAME_FINISHED,
    HAND_REDRAWN,
    PIECE_LOST,
    PIECE_PLACED,
    PIECES_SELECTED,
    PLACEMENT_UNDONE,
    PLAYER_RESIGNED,
    ROUND_SCORED,
    ROUND_STARTED,
    Event,
    apply_in_place,
    colour_points,
)
from .options import GameOptions
from .rotation import CARD_TO_LOT
from .rules import any_lot_accepts, can_place, has_legal_placement, score_board, winners
from .state import FINISHED, PLACEMENT, ROUND_OVER, SELECTION, GameState

V = EVENT_SCHEMA_VERSION
Emit = Callable[[Event], None]


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
    nothing is applied until the action has been validated.
    """
    if state.phase == FINISHED:
        raise RuleError("game_finished", "R19: the game is over; no more actions can be taken.", rule="R19")
    work = state if in_place else state.copy()
    events: list[Event] = []

    def emit(event: Event) -> None:
        events.append(event)
        apply_in_place(work, event)

    if isinstance(action, UndoLastPlacement):
        emit(_undo(work, action))
        return work, events
    if player is None or not 0 <= player < state.players:
        raise RuleError("not_your_turn", "Only a player of this game can act.")
    if work.resigned[player]:
        raise RuleError("player_resigned", "You have resigned from this game.")
    if isinstance(action, Resign):
        emit({"type": PLAYER_RESIGNED, "v": V, "player": player})
    elif isinstance(action, SelectPieces):
        emit(_select(work, player, action))
    elif isinstance(action, PlacePiece):
        emit(_place(work, player, action, rng))
    else:  # pragma: no cover - the Action union is closed
        raise RuleError("bad_action", f"Unknown action {action!r}.")
    _advance(work, emit, rng)
    return work, events


def _select(state: GameState, player: int, action: SelectPieces) -> Event:
    if state.phase != SELECTION:
        raise RuleError("wrong_phase", "R9: pieces are selected only at the start of a round.", rule="R9")
    colour = state.selecting_colour
    assert colour is not None
    if state.colour_player[colour] != player:
        raise RuleError("not_your_turn", "R9: another player selects their pieces now.", rule="R9")
    if action.colour is not None and action.colour != colour:
        if action.colour not in state.colours[player]:
            raise RuleError("not_your_colour", f"R15: you do not play {COLOUR_NAMES[action.colour]}.", rule="R15")
        raise RuleError("not_your_turn", f"R9: select the pieces of {COLOUR_NAMES[colour]} first.", rule="R9")
    check_selection(state.reserve[colour], action.pieces, state.options.pieces_per_round)
    return {"type": PIECES_SELECTED, "v": V, "player": player, "colour": colour, "pieces": list(action.pieces)}


def check_selection(reserve: Sequence[int], pieces: Sequence[int], k: int) -> None:
    """R9: exactly ``k`` pieces, each still in the colour's reserve."""
    if len(pieces) != k:
        raise RuleError("bad_selection", f"R9: select exactly {k} pieces; you chose {len(pieces)}.", rule="R9")
    counts = [0, 0, 0, 0]
    for size in pieces:
        if size not in (1, 2, 3, 4):
            raise RuleError("bad_selection", f"R9: there is no piece of size {size}.", rule="R9")
        counts[size - 1] += 1
    for i in range(4):
        if counts[i] > reserve[i]:
            raise RuleError(
                "bad_selection",
                f"R9: you chose {counts[i]} piece(s) of size {i + 1} but only {reserve[i]} remain in your reserve.",
                rule="R9",
            )


def _place(state: GameState, player: int, action: PlacePiece, rng: random.Random) -> Event:
    if state.phase != PLACEMENT:
        raise RuleError("wrong_phase", "R10: pieces are placed only after every colour has selected.", rule="R10")
    if state.to_act != player:
        raise RuleError("not_your_turn", "R10: it is another player's turn.", rule="R10")
    if not 0 <= action.card <= 8:
        raise RuleError("bad_card", "R3: a card shows one of the positions 1 to 9.", rule="R3")
    if not 0 <= action.city <= 5:
        raise RuleError("bad_city", "R1: the cities are numbered 1 to 6.", rule="R1")
    if action.size not in (1, 2, 3, 4):
        raise RuleError("bad_size", "R2: pieces have 1 to 4 storeys.", rule="R2")
    hand = state.hands[player]
    if action.card not in hand:
        shown = ", ".join(str(c + 1) for c in sorted(hand)) or "none"
        raise RuleError(
            "card_not_in_hand",
            f"R10: you do not hold card {action.card + 1}; your hand is {shown}.",
            rule="R10",
        )
    colour = _placing_colour(state, player, action)
    if state.selection[colour][action.size - 1] == 0:
        left = [s for s in (1, 2, 3, 4) for _ in range(state.selection[colour][s - 1])]
        raise RuleError(
            "piece_not_in_supply",
            f"R9: only this round's selected pieces can be placed, and {COLOUR_NAMES[colour]} has no "
            f"{action.size}-storey piece left (left: {', '.join(map(str, left)) or 'none'}).",
            rule="R9",
        )
    lot = CARD_TO_LOT[state.sides[player]][action.card]
    building = state.board[action.city * 9 + lot]
    if not can_place(building, colour, action.size):
        assert building is not None
        need = building.storeys[building.owner]
        mine = building.storeys[colour] + action.size
        raise RuleError(
            "takeover_too_small",
            f"R14: you need at least {need} storeys in this building to take it over from "
            f"{COLOUR_NAMES[building.owner]}; this piece gives you {mine}.",
            rule="R14",
        )
    drew, reshuffle = _draw_cards(state, 1, extra_discards=[action.card], rng=rng)
    event: Event = {
        "type": PIECE_PLACED,
        "v": V,
        "player": player,
        "colour": colour,
        "card": action.card,
        "city": action.city,
        "lot": lot,
        "size": action.size,
        "drew": drew[0] if drew else None,
    }
    if reshuffle is not None:
        event["reshuffle"] = reshuffle
    return event


def _placing_colour(state: GameState, player: int, action: PlacePiece) -> int:
    """R15: a two-colour player names the colour unless only one could place that size."""
    mine = state.colours[player]
    if action.colour is not None:
        if action.colour not in mine:
            raise RuleError("not_your_colour", f"R15: you do not play {COLOUR_NAMES[action.colour]}.", rule="R15")
        return action.colour
    if len(mine) == 1:
        return mine[0]
    having = [c for c in mine if state.selection[c][action.size - 1] > 0]
    if len(having) == 1:
        return having[0]
    if not having:
        raise RuleError(
            "piece_not_in_supply",
            f"R9: only this round's selected pieces can be placed, and neither of your colours has a "
            f"{action.size}-storey piece left.",
            rule="R9",
        )
    names = " or ".join(COLOUR_NAMES[c] for c in mine)
    raise RuleError("colour_required", f"R15: say which colour places this piece: {names}.", rule="R15")


def _draw_cards(
    state: GameState, count: int, *, extra_discards: Sequence[int], rng: random.Random
) -> tuple[list[int], list[int] | None]:
    """R11: decide the next ``count`` cards drawn, reshuffling every discard
    pile (plus ``extra_discards``, cards being discarded by this very event)
    into a new pile if the pile runs out. Returns the cards and the new pile."""
    pile = list(state.draw_pile)
    reshuffle: list[int] | None = None
    drawn: list[int] = []
    for _ in range(count):
        if not pile:
            if reshuffle is not None:
                break
            pool = [card for discard in state.discards for card in discard] + list(extra_discards)
            if not pool:
                break
            rng.shuffle(pool)
            reshuffle = pool
            pile = list(pool)
        drawn.append(pile.pop())
    return drawn, reshuffle


def _undo(state: GameState, action: UndoLastPlacement) -> Event:
    last = state.undoable
    if last is None:
        raise RuleError(
            "undo_unavailable",
            "Only the last placement can be undone, and only before anything else has happened "
            "(another placement, a redraw, a reshuffle or the end of the round).",
        )
    fields = ("player", "colour", "card", "city", "lot", "size", "drew")
    return {"type": PLACEMENT_UNDONE, "v": V, **{k: last[k] for k in fields}, "reason": action.reason}


def _advance(state: GameState, emit: Emit, rng: random.Random) -> None:
    """Play out everything that follows without a choice: forced selections,
    R16 for the player to act, scoring, the next round and the end."""
    while True:
        if True in state.resigned:
            active = [p for p in range(state.players) if not state.resigned[p]]
            if len(active) < 2:
                _finish(state, emit, active)
                return
        if state.phase == ROUND_OVER:
            points = score_board(state.board, state.all_colours)
            emit({"type": ROUND_SCORED, "v": V, "round": state.round, "points": colour_points(points)})
            if state.round == state.options.rounds:
                _finish(state, emit, [p for p in range(state.players) if not state.resigned[p]])
                return
            order = state.clockwise
            next_start = order[(order.index(state.start_player) + 1) % len(order)]
            emit({"type": ROUND_STARTED, "v": V, "round": state.round + 1, "start_player": next_start})
        elif state.phase == SELECTION and state.round == state.options.rounds:
            # R9: the last round's selection is forced: the reserve is exactly k pieces.
            colour = state.selecting_colour
            assert colour is not None
            pieces = [s for s in (1, 2, 3, 4) for _ in range(state.reserve[colour][s - 1])]
            emit(
                {
                    "type": PIECES_SELECTED,
                    "v": V,
                    "player": state.colour_player[colour],
                    "colour": colour,
                    "pieces": pieces,
                }
            )
        elif state.phase == PLACEMENT and state.to_act is not None:
            if not _resolve_no_placement(state, state.to_act, emit, rng):
                return
        else:
            return


def _player_selections(state: GameState, player: int) -> dict[int, list[int]]:
    return {c: state.selection[c] for c in state.colours[player] if any(state.selection[c])}


def _resolve_no_placement(state: GameState, player: int, emit: Emit, rng: random.Random) -> bool:
    """R16 for the player to act. Returns whether anything happened (the turn
    then passed on, so the caller looks again); False when they can place."""
    side = state.sides[player]
    if has_legal_placement(state.board, state.hands[player], side, _player_selections(state, player)):
        return False
    if any_lot_accepts(state.board, _player_selections(state, player)):
        limit = -(-state.options.deck_size // HAND_SIZE)
        for _ in range(limit):
            hand = list(state.hands[player])
            drew, reshuffle = _draw_cards(state, HAND_SIZE, extra_discards=hand, rng=rng)
            event: Event = {"type": HAND_REDRAWN, "v": V, "player": player, "discarded": hand, "drew": drew}
            if reshuffle is not None:
                event["reshuffle"] = reshuffle
            emit(event)
            if has_legal_placement(state.board, state.hands[player], side, _player_selections(state, player)):
                return True
    colour, size = _smallest_round_piece(state, player)
    emit({"type": PIECE_LOST, "v": V, "player": player, "colour": colour, "size": size})
    return True


def _smallest_round_piece(state: GameState, player: int) -> tuple[int, int]:
    """R16: the smallest unplaced round piece; on a tie the player's first colour."""
    for size in (1, 2, 3, 4):
        for colour in state.colours[player]:
            if state.selection[colour][size - 1] > 0:
                return colour, size
    raise AssertionError("R16 applies only to a player with round pieces left")


def _finish(state: GameState, emit: Emit, active: list[int]) -> None:
    won = winners(state.board, state.colours, state.scores, active)
    emit({"type": GAME_FINISHED, "v": V, "winners": list(won), "totals": colour_points(state.scores)})
