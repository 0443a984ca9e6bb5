"""R15: the two-player game, each player with two colours."""

from games.engine import PlacePiece, fold
from games.engine.rotation import CARD_TO_LOT, LOT_TO_CARD
from games.engine.rules import legal_placements
from games.engine.state import lot_index
from tests.support.engine_positions import (
    BLUE,
    GREEN,
    RED,
    YELLOW,
    N,
    S,
    board_with,
    execute,
    new_game,
    placement_position,
    rule_error,
    tower,
)

# --- R15 Two players --------------------------------------------------------------


def test_r15_each_player_plays_two_colours():
    state = new_game(2).state
    assert state.colours == ((RED, GREEN), (BLUE, YELLOW))
    assert state.colour_player == {RED: 0, GREEN: 0, BLUE: 1, YELLOW: 1}


def test_r15_free_choice_of_colour_without_alternation():
    state = placement_position(2, to_act=0, hands={0: [0, 1, 2, 3], 1: [4, 4, 4, 4]})
    state, _ = execute(state, 0, PlacePiece(card=0, city=0, size=1, colour=GREEN))
    state, _ = execute(state, 1, PlacePiece(card=4, city=0, size=1, colour=BLUE))
    assert state.to_act == 0
    state, _ = execute(state, 0, PlacePiece(card=1, city=0, size=2, colour=GREEN))
    assert state.selection[GREEN] == [0, 0, 1, 1]
    assert state.selection[RED] == [1, 1, 1, 1]
    assert state.board[lot_index(0, 0)].owner == GREEN
    assert state.board[lot_index(0, 1)].owner == GREEN


def test_r15_both_colours_use_the_players_single_hand_and_side():
    # Seat 1 sits north: card 0 names lot 8 for both of their colours.
    state = placement_position(2, to_act=1, hands={1: [0, 0, 5, 5]})
    start_hand = list(state.hands[1])
    state, _ = execute(state, 1, PlacePiece(card=0, city=0, size=1, colour=BLUE))
    state.to_act = 1  # hand the turn straight back for the check
    state, _ = execute(state, 1, PlacePiece(card=0, city=1, size=1, colour=YELLOW))
    assert state.board[lot_index(0, 8)].owner == BLUE
    assert state.board[lot_index(1, 8)].owner == YELLOW
    assert len(state.hands) == 2
    assert state.discards[1] == [0, 0]
    assert len(state.hands[1]) == len(start_hand)


def test_r15_colour_required_when_both_colours_hold_that_size():
    state = placement_position(2, to_act=0, hands={0: [0, 1, 2, 3]})
    err = rule_error(state, 0, PlacePiece(card=0, city=0, size=2))
    assert err.code == "colour_required"
    assert err.rule == "R15"
    assert "red" in err.message
    assert "green" in err.message


def test_r15_colour_is_implied_when_only_one_colour_holds_that_size():
    state = placement_position(2, to_act=0, hands={0: [0, 1, 2, 3]}, selection={RED: [1, 1], GREEN: [2, 3]})
    new, events = execute(state, 0, PlacePiece(card=0, city=0, size=3))
    assert events[0]["colour"] == GREEN
    assert new.board[lot_index(0, 0)].owner == GREEN


def test_r15_a_player_places_only_their_own_colours():
    state = placement_position(2, to_act=0, hands={0: [0, 1, 2, 3]})
    err = rule_error(state, 0, PlacePiece(card=0, city=0, size=2, colour=BLUE))
    assert err.code == "not_your_colour"


def test_r15_partner_colours_compete_under_r14():
    # Red (seat 0) owns a 3-storey building; seat 0's green needs 3 storeys too.
    lot = CARD_TO_LOT[S][0]
    board = board_with({(0, lot): tower((RED, 3))})
    state = placement_position(2, to_act=0, board=board, hands={0: [0, 0, 0, 0]})
    err = rule_error(state, 0, PlacePiece(card=0, city=0, size=2, colour=GREEN))
    assert err.code == "takeover_too_small"
    new, _ = execute(state, 0, PlacePiece(card=0, city=0, size=3, colour=GREEN))
    assert new.board[lot_index(0, lot)].owner == GREEN
    # And the legal placements list says the same.
    placements = legal_placements(board, [0], S, {RED: [1, 1, 1, 1], GREEN: [1, 1, 1, 1]})
    in_city = {(p.colour, p.size) for p in placements if p.city == 0}
    assert in_city == {(RED, 1), (RED, 2), (RED, 3), (RED, 4), (GREEN, 3), (GREEN, 4)}


def test_r15_whole_two_player_game_folds_to_the_same_state():
    game = new_game(2, seed=3)
    while not game.state.is_finished:
        game.play_round()
    assert fold(game.events) == game.state
    assert game.state.round == 6
    assert len(game.state.round_scores) == 6


def test_r15_card_lot_table_is_shared_by_both_colours():
    for side in (S, N):
        for lot in range(9):
            card = LOT_TO_CARD[side][lot]
            for colour in (RED, GREEN):
                placements = legal_placements([None] * 54, [card], side, {colour: [1, 0, 0, 0]})
                assert {p.lot for p in placements} == {lot}
