"""R17 and R18: scoring after every round (a point a building, the tallest
building, the majority in each city), and each colour of a two-player game
scored as if it were a player."""

from games.engine.constants import COLOUR_NAMES
from games.engine.events import ROUND_SCORED
from games.engine.rules import score_board
from games.engine.state import ROUND_OVER, Board
from tests.support.engine_positions import (
    ALL_COLOURS,
    BLUE,
    GREEN,
    RED,
    YELLOW,
    board_from_cities,
    board_with,
    empty_board,
    new_game,
    one,
    run_advance,
    tower,
)

# --- R17 --------------------------------------------------------------------------


def test_r17_empty_board_scores_nothing():
    assert score_board(empty_board(), ALL_COLOURS) == dict.fromkeys(ALL_COLOURS, 0)


def test_r17_one_point_per_building_whatever_its_height():
    # Yellow's two buildings of 1 and 7 storeys score 1 each; the single tallest adds 3.
    board = board_with({(0, 0): one(YELLOW), (1, 0): tower((YELLOW, 4), (YELLOW, 3)), (1, 1): one(RED)})
    points = score_board(board, ALL_COLOURS)
    # Yellow: 2 buildings + majority in city 1 + tallest; red ties yellow in city 2.
    assert points == {RED: 1, BLUE: 0, GREEN: 0, YELLOW: 2 + 2 + 3}


def test_r17_single_tallest_building_scores_three():
    board = board_with({(0, 0): tower((RED, 3)), (1, 0): tower((BLUE, 2)), (2, 0): one(GREEN)})
    points = score_board(board, ALL_COLOURS)
    assert points[RED] == 1 + 2 + 3
    assert points[BLUE] == 1 + 2
    assert points[GREEN] == 1 + 2


def test_r17_tied_tallest_gives_nobody_the_points():
    board = board_with({(0, 0): tower((RED, 3)), (1, 0): tower((BLUE, 1), (BLUE, 2))})
    assert score_board(board, ALL_COLOURS) == {RED: 3, BLUE: 3, GREEN: 0, YELLOW: 0}


def test_r17_tied_tallest_gives_nothing_even_when_one_colour_owns_all_of_them():
    board = board_with({(0, 0): tower((RED, 4)), (3, 5): tower((RED, 4)), (2, 2): one(BLUE)})
    # Red: 2 buildings, majorities in cities 1 and 4, no tallest bonus.
    assert score_board(board, ALL_COLOURS) == {RED: 2 + 4, BLUE: 1 + 2, GREEN: 0, YELLOW: 0}


def test_r17_tallest_is_measured_in_storeys_not_pieces():
    # Four 1-storey pieces (4 storeys) beat a single 3-storey piece.
    board = board_with({(0, 0): tower((RED, 1), (RED, 1), (RED, 1), (RED, 1)), (1, 0): tower((BLUE, 3))})
    points = score_board(board, ALL_COLOURS)
    assert points[RED] == 1 + 2 + 3
    assert points[BLUE] == 1 + 2


def test_r17_majority_is_more_than_every_other_single_colour_not_all_together():
    # City 1: red 2, blue 1, green 1, yellow 1: red has the majority though 2 < 3.
    board = board_from_cities([[one(RED), one(RED), one(BLUE), one(GREEN), one(YELLOW)]])
    points = score_board(board, ALL_COLOURS)
    assert points == {RED: 2 + 2, BLUE: 1, GREEN: 1, YELLOW: 1}


def test_r17_tie_at_the_top_of_a_city_gives_nobody_the_majority():
    board = board_from_cities([[one(RED), one(RED), one(BLUE), one(BLUE), one(GREEN)]])
    assert score_board(board, ALL_COLOURS) == {RED: 2, BLUE: 2, GREEN: 1, YELLOW: 0}


def test_r17_majority_in_each_city_separately():
    board = board_from_cities([[one(RED)], [one(BLUE), one(BLUE)], [], [one(RED), one(GREEN)], [], [one(GREEN)]])
    assert score_board(board, ALL_COLOURS) == {RED: 2 + 2, BLUE: 2 + 2, GREEN: 2 + 2, YELLOW: 0}


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


# --- R18 Two players --------------------------------------------------------------


def test_r18_each_colour_is_scored_as_if_it_were_a_player():
    # Seat 0 plays red and green, seat 1 blue and yellow. Red and green compete:
    # city 1 with red 1, green 1 is a tie even though both belong to seat 0.
    board = board_from_cities([[one(RED), one(GREEN)], [one(BLUE), one(BLUE), one(GREEN)], [tower((YELLOW, 4))]])
    points = score_board(board, ALL_COLOURS)
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
