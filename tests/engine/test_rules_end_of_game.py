"""R19: the end of the game, the winner and the tie-breaks."""

import pytest

from games.engine import PlacePiece
from games.engine.errors import RuleError
from games.engine.events import GAME_FINISHED, PIECES_SELECTED, ROUND_SCORED, ROUND_STARTED
from games.engine.rules import winners
from games.engine.state import FINISHED, ROUND_OVER, Board
from tests.support.engine_positions import (
    BLUE,
    GREEN,
    RED,
    YELLOW,
    board_with,
    empty_board,
    execute,
    new_game,
    one,
    run_advance,
    tower,
    types,
)

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
