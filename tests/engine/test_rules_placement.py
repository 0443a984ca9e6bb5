"""R13 and R14: who owns a building, and where a piece may be placed."""

import pytest

from games.engine import PlacePiece
from games.engine.rotation import CARD_TO_LOT
from games.engine.rules import can_place, legal_placements, score_board, smallest_takeover
from games.engine.state import lot_index
from tests.support.engine_positions import (
    BLUE,
    GREEN,
    RED,
    YELLOW,
    S,
    board_with,
    execute,
    placement_position,
    rule_error,
    tower,
)

# --- R13 Ownership ----------------------------------------------------------------


def test_r13_building_belongs_to_the_colour_of_its_top_piece():
    building = tower((RED, 2), (BLUE, 2))
    assert building.owner == BLUE
    assert building.height == 4
    assert building.storeys == (2, 2, 0, 0)
    assert tower((RED, 2), (BLUE, 2), (RED, 1)).owner == RED


def test_r13_takeover_by_placement_changes_the_owner():
    lot = CARD_TO_LOT[S][0]
    board = board_with({(0, lot): tower((BLUE, 2))})
    state = placement_position(to_act=0, board=board, hands={0: [0, 1, 2, 3]})
    new, _ = execute(state, 0, PlacePiece(card=0, city=0, size=2))
    assert new.board[lot_index(0, lot)].owner == RED
    assert new.board[lot_index(0, lot)].pieces == ((BLUE, 2), (RED, 2))


def test_r13_scoring_counts_the_top_colour_only():
    # Blue has more storeys below; red's piece is on top, so the building is red's.
    board = board_with({(0, 0): tower((BLUE, 3), (RED, 3)), (1, 0): tower((GREEN, 1))})
    points = score_board(board, (RED, BLUE, GREEN, YELLOW))
    # Red: 1 building + majority in city 1 + single tallest; green: 1 + majority in city 2.
    assert points == {RED: 1 + 2 + 3, BLUE: 0, GREEN: 1 + 2, YELLOW: 0}


# --- R14 Legal placement ----------------------------------------------------------


@pytest.mark.parametrize("size", [1, 2, 3, 4])
def test_r14_empty_lot_takes_any_piece(size):
    assert can_place(None, RED, size)


@pytest.mark.parametrize("size", [1, 2, 3, 4])
def test_r14_own_building_takes_any_piece(size):
    own = tower((BLUE, 1), (RED, 4), (BLUE, 4))  # blue owns, blue 5 vs red 4
    assert can_place(own, BLUE, size)
    assert smallest_takeover(own, BLUE) == 1


def test_r14_takeover_needs_at_least_the_previous_owners_storeys():
    building = tower((BLUE, 3))
    assert not can_place(building, RED, 2)
    assert can_place(building, RED, 3)  # equal is enough
    assert can_place(building, RED, 4)
    assert smallest_takeover(building, RED) == 3


def test_r14_storeys_count_wherever_they_sit_and_however_many_pieces():
    # Red 1 + 1 + 1 under a blue 4: red has 3 storeys in three pieces.
    building = tower((RED, 1), (RED, 1), (RED, 1), (BLUE, 4))
    assert building.owner == BLUE
    assert smallest_takeover(building, RED) == 1
    assert can_place(building, RED, 1)
    assert not can_place(building, GREEN, 3)
    assert can_place(building, GREEN, 4)


def test_r14_previous_owner_not_the_tallest_other_colour_matters():
    # Yellow owns with 3; red has 2, green 1. Green needs 2 more, red 1 more.
    building = tower((RED, 2), (GREEN, 1), (YELLOW, 3))
    assert smallest_takeover(building, GREEN) == 2
    assert smallest_takeover(building, RED) == 1
    assert smallest_takeover(building, BLUE) == 3


def test_r14_takeover_too_small_is_refused_with_the_numbers():
    lot = CARD_TO_LOT[S][0]
    board = board_with({(2, lot): tower((BLUE, 1), (GREEN, 3))})
    state = placement_position(to_act=0, board=board, hands={0: [0, 1, 2, 3]})
    err = rule_error(state, 0, PlacePiece(card=0, city=2, size=2))
    assert err.code == "takeover_too_small"
    assert err.rule == "R14"
    assert "3" in err.message
    assert "2" in err.message
    assert "green" in err.message
    new, _ = execute(state, 0, PlacePiece(card=0, city=2, size=3))
    assert new.board[lot_index(2, lot)].owner == RED


def test_r14_no_height_limit():
    building = tower((RED, 4), (RED, 4), (RED, 4), (RED, 4), (RED, 4))
    assert building.height == 20
    assert can_place(building, RED, 4)
    lot = CARD_TO_LOT[S][0]
    state = placement_position(to_act=0, board=board_with({(0, lot): building}), hands={0: [0, 0, 0, 0]})
    new, _ = execute(state, 0, PlacePiece(card=0, city=0, size=4))
    assert new.board[lot_index(0, lot)].height == 24


def test_r14_a_lead_of_more_than_four_storeys_cannot_be_taken():
    building = tower((BLUE, 1), (RED, 4), (RED, 2))  # red 6, blue 1
    assert smallest_takeover(building, BLUE) == 5
    assert not any(can_place(building, BLUE, s) for s in (1, 2, 3, 4))
    assert smallest_takeover(building, GREEN) == 6


def test_r14_legal_placements_agree_with_can_place():
    board = board_with(
        {
            (0, 0): tower((BLUE, 2)),
            (1, 0): tower((RED, 1), (BLUE, 3)),
            (2, 0): tower((RED, 4)),
            (3, 0): tower((GREEN, 4), (GREEN, 1)),
        }
    )
    selections = {RED: [1, 1, 1, 1]}
    placements = legal_placements(board, [0], S, selections)
    got = {(p.city, p.size) for p in placements}
    expected = {
        (city, size) for city in range(6) for size in (1, 2, 3, 4) if can_place(board[lot_index(city, 0)], RED, size)
    }
    assert got == expected
    assert (0, 1) not in got
    assert (0, 2) in got
    assert (1, 1) not in got  # red 1 + 1 = 2 < blue's 3
    assert (1, 2) in got  # red 1 + 2 = 3, equal to blue's 3
    assert (3, 4) not in got
