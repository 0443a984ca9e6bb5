"""The worked examples of the rule sheets (Dutch, French, Korean), rebuilt as
positions: R17's scoring and R14's takeovers come out as the sheets say."""

import pytest

from games.engine import PlacePiece
from games.engine.rotation import CARD_TO_LOT
from games.engine.rules import can_place, legal_placements, score_board, smallest_takeover
from games.engine.state import lot_index
from tests.support.engine_positions import (
    ALL_COLOURS,
    BLUE,
    GREEN,
    RED,
    YELLOW,
    S,
    board_from_cities,
    board_with,
    empty_board,
    execute,
    one,
    placement_position,
    rule_error,
    tower,
)


def _city_owners(board, city):
    owned: dict[int, int] = {}
    for building in board[city * 9 : city * 9 + 9]:
        if building is not None:
            owned[building.owner] = owned.get(building.owner, 0) + 1
    return owned


def _only_city(board, city):
    """A board holding just ``city`` of ``board``."""
    out = empty_board()
    out[city * 9 : city * 9 + 9] = board[city * 9 : city * 9 + 9]
    return out


# --- Worked example: the Dutch sheet's table (seed 001) ---------------------------------

# blue and white: engine blue stands for blue, engine red for white.
WHITE = RED
DUTCH_TABLE = [
    # city: (blue buildings, white buildings, blue majority points, white majority points)
    (1, 2, 0, 2),
    (2, 0, 2, 0),
    (1, 2, 0, 2),
    (1, 1, 0, 0),
    (2, 1, 2, 0),
    (2, 2, 0, 0),
]


def _dutch_board():
    cities = []
    for city, (blue, white, _, _) in enumerate(DUTCH_TABLE):
        # One storey each, so that no city but city 5 has a single tallest building of its own.
        buildings = [one(BLUE)] * blue + [one(WHITE)] * white
        if city == 4:
            # The tallest on the board: blue 2 storeys below, white 2 + 1 on top (5 storeys).
            buildings[-1] = tower((BLUE, 2), (WHITE, 2), (WHITE, 1))
        cities.append(buildings)
    return board_from_cities(cities)


def test_r17_dutch_sheet_table_city_by_city():
    board = _dutch_board()
    for city, (blue, white, blue_major, white_major) in enumerate(DUTCH_TABLE):
        assert _city_owners(board, city).get(BLUE, 0) == blue
        assert _city_owners(board, city).get(WHITE, 0) == white
        # Scored alone, a city gives its buildings and its majority; only city 5
        # (white's 5-storey tower) also holds a single tallest building.
        alone = score_board(_only_city(board, city), (BLUE, WHITE))
        tallest = 3 if city == 4 else 0
        assert alone[BLUE] == blue + blue_major
        assert alone[WHITE] == white + white_major + tallest


def test_r17_dutch_sheet_white_15_blue_13():
    board = _dutch_board()
    tallest = max((b for b in board if b is not None), key=lambda b: b.height)
    assert tallest.owner == WHITE
    assert tallest.height == 5
    assert sum(b is not None and b.height == 5 for b in board) == 1
    points = score_board(board, (BLUE, WHITE))
    assert points[BLUE] == 9 + 4 == 13
    assert points[WHITE] == 8 + 4 + 3 == 15


# --- Worked example: the French sheet's round 1 (seed 002) ------------------------------

# grey, blue, black, orange: engine red = grey, blue = blue, green = black, yellow = orange.
GREY, BLACK, ORANGE = RED, GREEN, YELLOW


def _french_board():
    return board_from_cities(
        [
            [one(BLUE), one(BLUE), one(GREY)],  # city 1: blue majority
            [one(BLACK), one(BLACK), tower((GREY, 4))],  # city 2: black majority, grey tallest
            [one(ORANGE), one(ORANGE), one(GREY)],  # city 3: orange majority
            [one(ORANGE, 2), one(GREY, 2)],  # city 4: orange and grey tie
            [one(BLACK, 3), one(BLUE, 3)],  # city 5: black and blue tie
            [one(BLACK), one(BLACK), one(BLACK), one(ORANGE)],  # city 6: black majority
        ]
    )


def test_r17_french_sheet_round_one_majorities_and_ties():
    board = _french_board()
    majority = {0: BLUE, 1: BLACK, 2: ORANGE, 5: BLACK}
    ties = {3: {ORANGE, GREY}, 4: {BLACK, BLUE}}
    for city in range(6):
        owned = _city_owners(board, city)
        top = max(owned.values())
        leaders = {c for c, n in owned.items() if n == top}
        if city in majority:
            assert leaders == {majority[city]}
        else:
            assert leaders == ties[city]
        alone = score_board(_only_city(board, city), ALL_COLOURS)
        for colour in ALL_COLOURS:
            expected = owned.get(colour, 0) + (2 if majority.get(city) == colour else 0)
            if city == 1 and colour == GREY:
                expected += 3  # the tallest building of the board stands in city 2
            assert alone[colour] == expected, (city, colour)


def test_r17_french_sheet_round_one_points():
    board = _french_board()
    buildings = {c: sum(1 for b in board if b is not None and b.owner == c) for c in ALL_COLOURS}
    assert buildings == {BLUE: 3, GREY: 4, BLACK: 6, ORANGE: 4}
    tallest = [b for b in board if b is not None and b.height == max(x.height for x in board if x)]
    assert len(tallest) == 1
    assert tallest[0].owner == GREY
    assert board[lot_index(1, 2)] is tallest[0]
    points = score_board(board, ALL_COLOURS)
    assert points[BLUE] == 3 + 2  # city 1
    assert points[GREY] == 4 + 3  # tallest
    assert points[BLACK] == 6 + 2 + 2  # cities 2 and 6
    assert points[ORANGE] == 4 + 2  # city 3
    assert points == {BLUE: 5, GREY: 7, BLACK: 10, ORANGE: 6}


# --- Worked examples: takeovers (Korean sheet, seed 003; Dutch sheet, seed 001) --------


def test_r14_korean_one_storey_building_takes_any_piece():
    building = one(RED)
    assert all(can_place(building, BLUE, s) for s in (1, 2, 3, 4))


@pytest.mark.parametrize("building", [tower((RED, 2)), tower((RED, 1), (RED, 1))])
def test_r14_korean_newcomer_needs_two_storeys_on_two_storey_building(building):
    assert building.height == 2
    assert not can_place(building, BLUE, 1)
    assert can_place(building, BLUE, 2)
    assert smallest_takeover(building, BLUE) == 2


def test_r14_korean_mixed_tower_newcomer_needs_two_and_holder_of_one_storey_needs_one():
    # Red 1, black 1, red 1 (red on top, 2 red storeys): the sheet's black is green here.
    building = tower((RED, 1), (GREEN, 1), (RED, 1))
    assert building.owner == RED
    assert building.storeys[RED] == 2
    assert not can_place(building, BLUE, 1)
    assert can_place(building, BLUE, 2)
    assert can_place(building, GREEN, 1)
    assert smallest_takeover(building, BLUE) == 2
    assert smallest_takeover(building, GREEN) == 1


def test_r14_korean_takeover_through_the_commands():
    lot = CARD_TO_LOT[S][0]
    board = board_with({(2, lot): tower((RED, 1), (YELLOW, 1), (RED, 1))})
    # Seat 3 (yellow) already holds a storey: a 1 is enough.
    yellow_state = placement_position(4, to_act=3, board=board, hands={3: [CARD_TO_LOT[3].index(lot)] * 4})
    card_e = yellow_state.hands[3][0]
    after, _ = execute(yellow_state, 3, PlacePiece(card=card_e, city=2, size=1))
    assert after.board[lot_index(2, lot)].owner == YELLOW
    # Seat 1 (blue) is new to the building: a 1 is refused, a 2 takes it.
    blue_card = CARD_TO_LOT[1].index(lot)
    blue_state = placement_position(4, to_act=1, board=board, hands={1: [blue_card] * 4})
    err = rule_error(blue_state, 1, PlacePiece(card=blue_card, city=2, size=1))
    assert err.code == "takeover_too_small"
    after, _ = execute(blue_state, 1, PlacePiece(card=blue_card, city=2, size=2))
    assert after.board[lot_index(2, lot)].owner == BLUE


def test_r14_korean_two_players_partner_colour_needs_three_on_a_red_three():
    building = tower((RED, 3))
    placements = legal_placements(board_with({(0, 0): building}), [0], S, {GREEN: [1, 1, 1, 1]})
    assert sorted(p.size for p in placements if p.city == 0) == [3, 4]


def test_r14_dutch_tower_blue_three_white_one_white_needs_two_more():
    building = tower((WHITE, 1), (BLUE, 3))
    assert (building.owner, building.height) == (BLUE, 4)
    assert smallest_takeover(building, WHITE) == 2
    assert not can_place(building, WHITE, 1)
    assert can_place(building, WHITE, 2)
    # The sheet's tower on the right: only 2 storeys of blue, white needs 2 too.
    assert smallest_takeover(tower((BLUE, 2)), WHITE) == 2


def test_r14_dutch_lead_of_more_than_four_cannot_be_caught():
    building = tower((BLUE, 1), (WHITE, 4), (WHITE, 2))  # white 6, blue 1
    assert not any(can_place(building, BLUE, s) for s in (1, 2, 3, 4))
