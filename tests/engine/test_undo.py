"""The operator's undo of the last placement: what it takes back, and when it is no longer offered."""

from __future__ import annotations

from games.engine import (
    PlacePiece,
    Resign,
    UndoLastPlacement,
    fold,
)
from games.engine.events import (
    HAND_REDRAWN,
    PIECE_PLACED,
    PLACEMENT_UNDONE,
    ROUND_SCORED,
)
from games.engine.rotation import CARD_TO_LOT
from games.engine.state import lot_index
from tests.support.engine_positions import (
    BLUE,
    CENTRE,
    RED,
    W,
    empty_board,
    execute,
    fill_lot_everywhere,
    game_in_placement,
    my_legal_placements,
    new_game,
    placement_position,
    rule_error,
    tower,
    types,
)


def _same_position(a, b):
    assert a.board == b.board
    assert [sorted(h) for h in a.hands] == [sorted(h) for h in b.hands]
    assert a.draw_pile == b.draw_pile
    assert a.discards == b.discards
    assert a.selection == b.selection
    assert a.reserve == b.reserve
    assert a.to_act == b.to_act
    assert a.phase == b.phase
    assert a.placements == b.placements


def test_undo_takes_back_the_last_placement_exactly():
    game = game_in_placement()
    before = game.state
    game.place_first_legal()
    placed = game.events[-1]
    assert placed["type"] == PIECE_PLACED
    assert game.state.to_act == 1
    events = game.act(None, UndoLastPlacement(reason="misclick"))
    assert types(events) == [PLACEMENT_UNDONE]
    undone = events[0]
    for key in ("player", "colour", "card", "city", "lot", "size", "drew"):
        assert undone[key] == placed[key]
    assert undone["reason"] == "misclick"
    _same_position(game.state, before)
    assert game.state.to_act == 0
    assert fold(game.events) == game.state


def test_undo_then_the_player_places_again():
    game = game_in_placement()
    first = my_legal_placements(game.state)[0]
    game.place_first_legal()
    game.act(None, UndoLastPlacement())
    assert game.state.board[lot_index(first.city, first.lot)] is None
    other = next(p for p in my_legal_placements(game.state) if p.city != first.city)
    game.place(other)
    assert game.state.board[lot_index(first.city, first.lot)] is None
    assert game.state.board[lot_index(other.city, other.lot)] is not None
    assert fold(game.events) == game.state


def test_undo_is_available_only_once():
    game = game_in_placement()
    game.place_first_legal()
    game.act(None, UndoLastPlacement())
    err = rule_error(game.state, None, UndoLastPlacement())
    assert err.code == "undo_unavailable"


def test_undo_only_the_last_of_two_placements():
    game = game_in_placement()
    game.place_first_legal()
    after_first = game.state
    game.place_first_legal()
    game.act(None, UndoLastPlacement())
    _same_position(game.state, after_first)
    assert rule_error(game.state, None, UndoLastPlacement()).code == "undo_unavailable"


def test_undo_unavailable_before_any_placement():
    game = new_game(4)
    assert rule_error(game.state, None, UndoLastPlacement()).code == "undo_unavailable"
    game.select_all()
    assert rule_error(game.state, None, UndoLastPlacement()).code == "undo_unavailable"


def test_undo_unavailable_after_a_redraw():
    # Seat 0 places; seat 1 then has to redraw (R16): the placement can no longer be undone.
    blocked = CARD_TO_LOT[W][0]
    state = placement_position(
        4,
        to_act=0,
        board=fill_lot_everywhere(empty_board(), blocked, tower((RED, 2))),
        hands={0: [CENTRE] * 4, 1: [0] * 4},
        selection={BLUE: [1, 1]},
        draw_pile=[CENTRE, 0, 0, 0, 5],
    )
    new, events = execute(state, 0, PlacePiece(CENTRE, 1, 1))
    assert types(events) == [PIECE_PLACED, HAND_REDRAWN]
    assert rule_error(new, None, UndoLastPlacement()).code == "undo_unavailable"


def test_undo_unavailable_after_a_reshuffle():
    state = placement_position(4, to_act=0, hands={0: [0, 1, 2, 3]}, draw_pile=[], discards={1: [4, 4]})
    new, events = execute(state, 0, PlacePiece(0, 0, 1))
    assert "reshuffle" in events[0]
    assert rule_error(new, None, UndoLastPlacement()).code == "undo_unavailable"


def test_undo_unavailable_after_the_round_ends():
    game = new_game(4, seed=4)
    events = game.play_round()
    assert ROUND_SCORED in types(events)
    assert rule_error(game.state, None, UndoLastPlacement()).code == "undo_unavailable"


def test_undo_unavailable_after_a_resignation():
    game = game_in_placement()
    game.place_first_legal()
    game.act(3, Resign())
    assert rule_error(game.state, None, UndoLastPlacement()).code == "undo_unavailable"


def test_undo_of_the_last_draw_puts_the_card_back_on_the_pile():
    state = placement_position(4, to_act=0, hands={0: [0, 1, 2, 3]}, draw_pile=[6, 7])
    new, events = execute(state, 0, PlacePiece(0, 0, 1))
    assert events[0]["drew"] == 7
    back, _ = execute(new, None, UndoLastPlacement())
    assert back.draw_pile == [6, 7]
    assert sorted(back.hands[0]) == [0, 1, 2, 3]
    assert back.discards[0] == []
    assert back.board[lot_index(0, 0)] is None
