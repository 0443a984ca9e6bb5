"""R9: the selection of each round's pieces, clockwise from the start player."""

import pytest

from games.engine import PlacePiece, SelectPieces, player_view
from games.engine.commands import check_selection
from games.engine.errors import RuleError
from games.engine.events import PIECES_SELECTED, ROUND_SCORED, ROUND_STARTED
from games.engine.state import PLACEMENT, ROUND_OVER
from tests.support.engine_positions import (
    BLUE,
    GREEN,
    RED,
    YELLOW,
    E,
    N,
    S,
    W,
    counts,
    new_game,
    placement_position,
    rule_error,
    run_advance,
    types,
)

# --- R9 Selection -----------------------------------------------------------------


def _selection_players(game):
    return [e["player"] for e in game.select_all() if e["type"] == PIECES_SELECTED]


def test_r9_selection_goes_clockwise_from_the_start_player():
    game = new_game(4, start_player=2)
    assert game.state.selection_queue == [2, 3, 0, 1]
    assert game.state.to_act == 2
    assert _selection_players(game) == [2, 3, 0, 1]
    assert game.state.phase == PLACEMENT


def test_r9_selection_order_follows_explicit_sides():
    # Seats sit N, S, E, W: clockwise from the south is seat 1, 3, 0, 2.
    game = new_game(4, sides=(N, S, E, W), start_player=0)
    assert _selection_players(game) == [0, 2, 1, 3]


def test_r9_three_players_select_clockwise():
    game = new_game(3, start_player=1)
    assert _selection_players(game) == [1, 2, 0]


def test_r9_two_players_each_colour_selects_its_own_pieces():
    game = new_game(2, start_player=1)
    assert game.state.selection_queue == [BLUE, YELLOW, RED, GREEN]
    events = game.select_all()
    assert [(e["player"], e["colour"]) for e in events] == [(1, BLUE), (1, YELLOW), (0, RED), (0, GREEN)]
    assert all(len(e["pieces"]) == 4 for e in events)


def test_r9_selection_moves_the_pieces_from_reserve_to_the_round():
    game = new_game(4)
    game.act(0, SelectPieces((1, 1, 2, 3, 4, 4)))
    assert game.state.selection[RED] == [2, 1, 1, 2]
    assert game.state.reserve[RED] == [9, 5, 3, 1]


def test_r9_selection_is_public():
    game = new_game(4)
    game.act(0, SelectPieces((1, 1, 2, 3, 4, 4)))
    for seat in (1, 2, 3):
        view = player_view(game.state, seat)
        assert view.selection[RED] == [2, 1, 1, 2]
        assert view.to_json()["colours"]["red"]["selection"] == {"1": 2, "2": 1, "3": 1, "4": 2}


@pytest.mark.parametrize("pieces", [(1, 1, 2, 3, 4), (1, 1, 1, 2, 3, 4, 4), ()])
def test_r9_exactly_k_pieces(pieces):
    game = new_game(4)
    err = rule_error(game.state, 0, SelectPieces(pieces))
    assert err.code == "bad_selection"
    assert err.rule == "R9"
    assert "exactly 6" in err.message


def test_r9_exactly_four_pieces_in_the_six_round_game():
    game = new_game(3)
    assert rule_error(game.state, 0, SelectPieces((1, 1, 2, 3, 4, 4))).code == "bad_selection"
    game.act(0, SelectPieces((1, 2, 3, 4)))
    assert game.state.selection[RED] == [1, 1, 1, 1]


def test_r9_only_pieces_still_in_the_reserve():
    game = new_game(4)
    # There are only three 4-storey pieces.
    err = rule_error(game.state, 0, SelectPieces((4, 4, 4, 4, 1, 1)))
    assert err.code == "bad_selection"
    state = game.state.copy()
    state.reserve[RED] = [11, 6, 4, 0]  # every 4 used in earlier rounds
    assert rule_error(state, 0, SelectPieces((1, 1, 1, 2, 3, 4))).code == "bad_selection"
    with pytest.raises(RuleError):
        check_selection([11, 6, 4, 0], (1, 1, 1, 2, 3, 4), 6)
    check_selection([11, 6, 4, 0], (1, 1, 1, 2, 3, 3), 6)


def test_r9_selecting_out_of_turn_is_refused():
    game = new_game(4, start_player=0)
    err = rule_error(game.state, 1, SelectPieces((1, 1, 2, 2, 3, 4)))
    assert err.code == "not_your_turn"
    assert err.rule == "R9"


def test_r9_pieces_are_selected_only_at_the_start_of_a_round():
    state = placement_position(to_act=0)
    err = rule_error(state, 0, SelectPieces((1, 1, 2, 2, 3, 4)))
    assert err.code == "wrong_phase"
    assert err.rule == "R9"


def test_r9_only_the_selected_pieces_can_be_placed():
    state = placement_position(to_act=0, selection={RED: [1, 1, 2]})
    err = rule_error(state, 0, PlacePiece(card=state.hands[0][0], city=0, size=4))
    assert err.code == "piece_not_in_supply"
    assert err.rule == "R9"
    # The 4-storey pieces are still in the reserve, but not in the round selection.
    assert state.reserve[RED][3] == 3


@pytest.mark.parametrize(("players", "six_rounds"), [(4, False), (4, True), (3, False), (2, False)])
def test_r9_last_round_selection_is_forced(players, six_rounds):
    state = new_game(players, six_rounds=six_rounds, start_player=0).state.copy()
    rounds, k = state.options.rounds, state.options.pieces_per_round
    left = {RED: [1, 1, 2, 2], BLUE: [3, 3, 0, 0], GREEN: [0, 2, 1, 3], YELLOW: [2, 0, 2, 2]}
    if k == 4:
        left = {RED: [1, 1, 1, 1], BLUE: [4, 0, 0, 0], GREEN: [0, 0, 1, 3], YELLOW: [2, 2, 0, 0]}
    for colour in state.all_colours:
        state.reserve[colour] = list(left[colour])
    state.round = rounds - 1
    state.phase = ROUND_OVER
    state.to_act = None
    new, events = run_advance(state)
    assert types(events)[:2] == [ROUND_SCORED, ROUND_STARTED]
    forced = [e for e in events if e["type"] == PIECES_SELECTED]
    assert len(forced) == len(state.all_colours)
    for e in forced:
        assert counts(e["pieces"]) == left[e["colour"]]
    assert new.round == rounds
    assert new.phase == PLACEMENT
    assert all(new.reserve[c] == [0, 0, 0, 0] for c in new.all_colours)
    assert all(sum(new.selection[c]) == k for c in new.all_colours)
    # Forced in order from the new start player (seat 1) clockwise.
    assert forced[0]["player"] == 1
