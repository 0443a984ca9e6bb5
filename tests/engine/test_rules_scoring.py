"""R17–R19: scoring after every round, the two-player sums and the winner,
with the worked examples of the rule sheets rebuilt as positions."""

import pytest

from games.engine import PlacePiece
from games.engine.constants import COLOUR_NAMES
from games.engine.errors import RuleError
from games.engine.events import GAME_FINISHED, PIECES_SELECTED, ROUND_SCORED, ROUND_STARTED
from games.engine.rotation import CARD_TO_LOT
from games.engine.rules import can_place, legal_placements, score_board, smallest_takeover, winners
from games.engine.state import FINISHED, ROUND_OVER, Board, lot_index
from tests.engine.factories import (
    BLUE,
    GREEN,
    RED,
    YELLOW,
    S,
    board_from_cities,
    board_with,
    empty_board,
    execute,
    new_game,
    placement_position,
    rule_error,
    run_advance,
    tower,
    types,
)

ALL = (RED, BLUE, GREEN, YELLOW)


def one(colour, size=1):
    return tower((colour, size))


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


# --- R17 --------------------------------------------------------------------------


def test_r17_empty_board_scores_nothing():
    assert score_board(empty_board(), ALL) == dict.fromkeys(ALL, 0)


def test_r17_one_point_per_building_whatever_its_height():
    # Yellow's two buildings of 1 and 7 storeys score 1 each; the single tallest adds 3.
    board = board_with({(0, 0): one(YELLOW), (1, 0): tower((YELLOW, 4), (YELLOW, 3)), (1, 1): one(RED)})
    points = score_board(board, ALL)
    # Yellow: 2 buildings + majority in city 1 + tallest; red ties yellow in city 2.
    assert points == {RED: 1, BLUE: 0, GREEN: 0, YELLOW: 2 + 2 + 3}


def test_r17_single_tallest_building_scores_three():
    board = board_with({(0, 0): tower((RED, 3)), (1, 0): tower((BLUE, 2)), (2, 0): one(GREEN)})
    points = score_board(board, ALL)
    assert points[RED] == 1 + 2 + 3
    assert points[BLUE] == 1 + 2
    assert points[GREEN] == 1 + 2


def test_r17_tied_tallest_gives_nobody_the_points():
    board = board_with({(0, 0): tower((RED, 3)), (1, 0): tower((BLUE, 1), (BLUE, 2))})
    assert score_board(board, ALL) == {RED: 3, BLUE: 3, GREEN: 0, YELLOW: 0}


def test_r17_tied_tallest_gives_nothing_even_when_one_colour_owns_all_of_them():
    board = board_with({(0, 0): tower((RED, 4)), (3, 5): tower((RED, 4)), (2, 2): one(BLUE)})
    # Red: 2 buildings, majorities in cities 1 and 4, no tallest bonus.
    assert score_board(board, ALL) == {RED: 2 + 4, BLUE: 1 + 2, GREEN: 0, YELLOW: 0}


def test_r17_tallest_is_measured_in_storeys_not_pieces():
    # Four 1-storey pieces (4 storeys) beat a single 3-storey piece.
    board = board_with({(0, 0): tower((RED, 1), (RED, 1), (RED, 1), (RED, 1)), (1, 0): tower((BLUE, 3))})
    points = score_board(board, ALL)
    assert points[RED] == 1 + 2 + 3
    assert points[BLUE] == 1 + 2


def test_r17_majority_is_more_than_every_other_single_colour_not_all_together():
    # City 1: red 2, blue 1, green 1, yellow 1: red has the majority though 2 < 3.
    board = board_from_cities([[one(RED), one(RED), one(BLUE), one(GREEN), one(YELLOW)]])
    points = score_board(board, ALL)
    assert points == {RED: 2 + 2, BLUE: 1, GREEN: 1, YELLOW: 1}


def test_r17_tie_at_the_top_of_a_city_gives_nobody_the_majority():
    board = board_from_cities([[one(RED), one(RED), one(BLUE), one(BLUE), one(GREEN)]])
    assert score_board(board, ALL) == {RED: 2, BLUE: 2, GREEN: 1, YELLOW: 0}


def test_r17_majority_in_each_city_separately():
    board = board_from_cities([[one(RED)], [one(BLUE), one(BLUE)], [], [one(RED), one(GREEN)], [], [one(GREEN)]])
    assert score_board(board, ALL) == {RED: 2 + 2, BLUE: 2 + 2, GREEN: 2 + 2, YELLOW: 0}


def test_r17_round_score_is_added_to_the_running_total():
    state = new_game(4).state.copy()
    board = board_with({(0, 0): tower((RED, 2)), (0, 1): one(BLUE), (4, 4): one(BLUE)})
    state.board = Board.from_buildings(board)
    state.scores = {RED: 10, BLUE: 4, GREEN: 7, YELLOW: 0}
    state.phase = ROUND_OVER
    state.to_act = None
    new, events = run_advance(state)
    assert events[0]["type"] == ROUND_SCORED
    # Red: 1 + tallest 3; blue: 2 + majority in city 5; city 1 is tied.
    assert events[0]["points"] == {"red": 4, "blue": 4, "green": 0, "yellow": 0}
    assert new.scores == {RED: 14, BLUE: 8, GREEN: 7, YELLOW: 0}
    assert new.round_scores[-1] == {RED: 4, BLUE: 4, GREEN: 0, YELLOW: 0}


def test_r17_rounds_are_scored_after_every_round_of_a_game():
    game = new_game(3, seed=5)
    for rnd in range(1, 4):
        events = game.play_round()
        scored = [e for e in events if e["type"] == ROUND_SCORED]
        assert len(scored) == 1
        assert scored[0]["round"] == rnd
    totals = dict.fromkeys((RED, BLUE, GREEN), 0)
    for points in game.state.round_scores:
        for colour, n in points.items():
            totals[colour] += n
    assert game.state.scores == totals


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
        alone = score_board(_only_city(board, city), ALL)
        for colour in ALL:
            expected = owned.get(colour, 0) + (2 if majority.get(city) == colour else 0)
            if city == 1 and colour == GREY:
                expected += 3  # the tallest building of the board stands in city 2
            assert alone[colour] == expected, (city, colour)


def test_r17_french_sheet_round_one_points():
    board = _french_board()
    buildings = {c: sum(1 for b in board if b is not None and b.owner == c) for c in ALL}
    assert buildings == {BLUE: 3, GREY: 4, BLACK: 6, ORANGE: 4}
    tallest = [b for b in board if b is not None and b.height == max(x.height for x in board if x)]
    assert len(tallest) == 1
    assert tallest[0].owner == GREY
    assert board[lot_index(1, 2)] is tallest[0]
    points = score_board(board, ALL)
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


# --- R18 Two players --------------------------------------------------------------


def test_r18_each_colour_is_scored_as_if_it_were_a_player():
    # Seat 0 plays red and green, seat 1 blue and yellow. Red and green compete:
    # city 1 with red 1, green 1 is a tie even though both belong to seat 0.
    board = board_from_cities([[one(RED), one(GREEN)], [one(BLUE), one(BLUE), one(GREEN)], [tower((YELLOW, 4))]])
    points = score_board(board, ALL)
    assert points == {RED: 1, GREEN: 2, BLUE: 2 + 2, YELLOW: 1 + 2 + 3}
    state = new_game(2).state.copy()
    state.board = Board.from_buildings(board)
    state.phase = ROUND_OVER
    state.to_act = None
    new, events = run_advance(state)
    assert events[0]["points"] == {COLOUR_NAMES[c]: n for c, n in points.items()}
    assert new.player_totals() == [1 + 2, 4 + 6]
    assert new.player_totals() == [new.scores[RED] + new.scores[GREEN], new.scores[BLUE] + new.scores[YELLOW]]


def test_r18_player_total_sums_two_colours_over_rounds():
    state = new_game(2).state.copy()
    state.scores = {RED: 5, GREEN: 7, BLUE: 1, YELLOW: 20}
    assert state.player_totals() == [12, 21]


# --- R19 End of the game ------------------------------------------------------------


BY_SEAT = ((RED,), (BLUE,), (GREEN,), (YELLOW,))


def test_r19_highest_total_wins():
    scores = {RED: 30, BLUE: 31, GREEN: 12, YELLOW: 0}
    assert winners(empty_board(), BY_SEAT, scores, range(4)) == (1,)


def test_r19_tie_broken_by_owning_the_tallest_single_building():
    board = board_with({(0, 0): tower((RED, 3)), (1, 0): tower((BLUE, 4)), (2, 0): one(RED), (3, 0): one(RED)})
    scores = {RED: 30, BLUE: 30, GREEN: 30, YELLOW: 12}
    # Blue owns the tallest (4) though red owns more buildings; green owns nothing.
    assert winners(board, BY_SEAT, scores, range(4)) == (1,)


def test_r19_tallest_tie_broken_by_most_buildings():
    board = board_with({(0, 0): tower((RED, 4)), (1, 0): tower((BLUE, 4)), (2, 0): one(RED), (3, 0): one(GREEN, 4)})
    scores = {RED: 30, BLUE: 30, GREEN: 29, YELLOW: 12}
    assert winners(board, BY_SEAT, scores, range(4)) == (0,)


def test_r19_still_tied_players_share_the_win():
    board = board_with({(0, 0): tower((RED, 4)), (1, 0): tower((BLUE, 4)), (2, 0): one(RED), (3, 0): one(BLUE)})
    scores = {RED: 30, BLUE: 30, GREEN: 30, YELLOW: 12}
    # Green tied on points but owns nothing: only red and blue share.
    assert winners(board, BY_SEAT, scores, range(4)) == (0, 1)


def test_r19_tie_breaks_look_only_at_the_tied_players():
    # Yellow owns the tallest building but is not tied for the lead.
    board = board_with({(0, 0): tower((YELLOW, 4), (YELLOW, 4)), (1, 0): tower((RED, 2)), (2, 0): one(BLUE)})
    scores = {RED: 20, BLUE: 20, GREEN: 3, YELLOW: 19}
    assert winners(board, BY_SEAT, scores, range(4)) == (0,)


def test_r19_two_players_sum_colours_and_either_colour_can_break_the_tie():
    board = board_with({(0, 0): tower((GREEN, 4)), (1, 0): tower((BLUE, 3)), (2, 0): one(YELLOW)})
    scores = {RED: 10, GREEN: 10, BLUE: 15, YELLOW: 5}
    colours = ((RED, GREEN), (BLUE, YELLOW))
    assert winners(board, colours, scores, range(2)) == (0,)
    scores[YELLOW] = 6
    assert winners(board, colours, scores, range(2)) == (1,)


def _last_round_over(players=4, **options):
    state = new_game(players, **options).state.copy()
    state.round = state.options.rounds
    state.phase = ROUND_OVER
    state.to_act = None
    for colour in state.all_colours:
        state.reserve[colour] = [0, 0, 0, 0]
    return state


def test_r19_game_ends_after_the_last_rounds_scoring():
    state = _last_round_over(4)
    state.board = Board.from_buildings(board_with({(0, 0): tower((GREEN, 2)), (1, 0): one(RED)}))
    state.scores = {RED: 20, BLUE: 22, GREEN: 19, YELLOW: 0}
    new, events = run_advance(state)
    assert types(events) == [ROUND_SCORED, GAME_FINISHED]
    assert ROUND_STARTED not in types(events)
    # Green scores 1 + 2 + 3 = 6 (25), red 1 + 2 (23), blue stays at 22.
    assert new.scores == {RED: 23, BLUE: 22, GREEN: 25, YELLOW: 0}
    assert events[1]["winners"] == [2]
    assert new.winners == (2,)
    assert new.phase == FINISHED
    assert new.to_act is None


def test_r19_final_tie_decided_by_tallest_building_at_the_end():
    state = _last_round_over(3)
    state.board = Board.from_buildings(
        board_with({(0, 0): tower((RED, 4)), (1, 0): tower((BLUE, 3)), (1, 1): one(BLUE)})
    )
    # Round scoring: red 1 + 2 + 3 = 6, blue 2 + 2 = 4.
    state.scores = {RED: 10, BLUE: 12, GREEN: 16}
    new, events = run_advance(state)
    assert new.scores == {RED: 16, BLUE: 16, GREEN: 16}
    assert events[-1]["winners"] == [0]


def test_r19_two_player_game_ends_after_six_rounds_with_summed_totals():
    state = _last_round_over(2)
    assert state.round == 6
    state.scores = {RED: 10, GREEN: 10, BLUE: 19, YELLOW: 0}
    state.board = Board.from_buildings(board_with({(0, 0): one(RED)}))
    new, events = run_advance(state)
    # Red gains 1 + 2 + 3: seat 0 has 26 against seat 1's 19.
    assert new.player_totals() == [26, 19]
    assert events[-1]["winners"] == [0]


def test_r19_no_action_after_the_end():
    state = _last_round_over(4)
    finished, _ = run_advance(state)
    with pytest.raises(RuleError) as info:
        execute(finished, 0, PlacePiece(card=0, city=0, size=1))
    assert info.value.code == "game_finished"
    assert info.value.rule == "R19"


def test_r19_whole_game_ends_with_the_engine_winners():
    game = new_game(4, seed=11)
    while not game.state.is_finished:
        game.play_round()
    state = game.state
    assert types(game.events).count(ROUND_SCORED) == 4
    assert types(game.events)[-1] == GAME_FINISHED
    assert types(game.events).count(PIECES_SELECTED) == 16
    totals = state.player_totals()
    best = max(totals)
    leaders = [p for p in range(4) if totals[p] == best]
    assert set(state.winners) <= set(leaders)
    assert state.winners == winners(state.board, state.colours, state.scores, range(4))
