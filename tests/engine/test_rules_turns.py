"""R10–R12: the turn (a card, a piece, a draw), the discard piles and their
reshuffle, and the end of a round."""

from collections import Counter

import pytest

from games.engine import PlacePiece, player_view
from games.engine.constants import COLOUR_NAMES
from games.engine.events import PIECE_PLACED, ROUND_SCORED, ROUND_STARTED
from games.engine.rules import score_board
from games.engine.state import PLACEMENT, ROUND_OVER, SELECTION, lot_index
from tests.support.engine_positions import (
    BLUE,
    GREEN,
    RED,
    YELLOW,
    E,
    N,
    S,
    W,
    card_total,
    execute,
    new_game,
    placement_position,
    rule_error,
    run_advance,
    storeys_on_board,
    tower,
    types,
)

# --- R10 Turn ---------------------------------------------------------------------


def test_r10_start_player_places_first():
    game = new_game(4, start_player=2)
    game.select_all()
    assert game.state.phase == PLACEMENT
    assert game.state.to_act == 2


def test_r10_turns_go_clockwise_from_the_start_player():
    game = new_game(4, start_player=3)
    game.select_all()
    players = []
    for _ in range(8):
        players += [e["player"] for e in game.place_first_legal() if e["type"] == PIECE_PLACED]
    assert players == [3, 0, 1, 2, 3, 0, 1, 2]


def test_r10_turns_follow_explicit_sides():
    # Seats sit N, S, E, W: clockwise order is seat 1 (S), 3 (W), 0 (N), 2 (E).
    game = new_game(4, sides=(N, S, E, W), start_player=1)
    game.select_all()
    players = []
    for _ in range(4):
        players += [e["player"] for e in game.place_first_legal() if e["type"] == PIECE_PLACED]
    assert players == [1, 3, 0, 2]


def test_r10_a_turn_plays_a_card_places_one_piece_on_the_named_lot_and_draws():
    state = placement_position(to_act=1, hands={1: [2, 5, 5, 8]})
    top = state.draw_pile[-1]
    before = storeys_on_board(state)
    new, events = execute(state, 1, PlacePiece(card=5, city=4, size=3))
    placed = events[0]
    assert placed["type"] == PIECE_PLACED
    # Card 5 (printed middle right) read from the west names lot 7 (bottom middle).
    assert placed["lot"] == 7
    assert new.board[lot_index(4, 7)] == tower((BLUE, 3))
    assert storeys_on_board(new) == before + 3
    assert sum(b is not None for b in new.board) == 1
    assert new.selection[BLUE] == [2, 2, 0, 1]  # one 3 fewer
    assert sorted(new.hands[1]) == sorted([2, 5, 8, top])
    assert placed["drew"] == top
    assert new.draw_pile == state.draw_pile[:-1]
    assert new.discards[1] == [5]
    assert new.to_act == 2


def test_r10_exactly_one_piece_per_turn():
    state = placement_position(to_act=0)
    new, _ = execute(state, 0, PlacePiece(card=state.hands[0][0], city=0, size=1))
    assert new.to_act == 1
    err = rule_error(new, 0, PlacePiece(card=new.hands[0][0], city=1, size=1))
    assert err.code == "not_your_turn"
    assert err.rule == "R10"
    assert sum(map(sum, new.selection.values())) == sum(map(sum, state.selection.values())) - 1


def test_r10_card_must_be_in_hand():
    state = placement_position(to_act=0, hands={0: [0, 0, 1, 2]})
    err = rule_error(state, 0, PlacePiece(card=8, city=0, size=1))
    assert err.code == "card_not_in_hand"
    assert err.rule == "R10"
    assert "1, 1, 2, 3" in err.message  # the hand, 1-based


def test_r10_placing_during_selection_is_refused():
    game = new_game(4)
    err = rule_error(game.state, 0, PlacePiece(card=game.state.hands[0][0], city=0, size=1))
    assert err.code == "wrong_phase"
    assert err.rule == "R10"


def test_r10_players_who_have_placed_everything_are_skipped():
    state = placement_position(to_act=0, selection={BLUE: [], GREEN: [1]})
    new, _ = execute(state, 0, PlacePiece(card=state.hands[0][0], city=0, size=1))
    assert new.to_act == 2
    new, _ = execute(new, 2, PlacePiece(card=new.hands[2][0], city=1, size=1))
    assert new.to_act == 3  # green is done, blue was done


# --- R11 Discards -----------------------------------------------------------------


def test_r11_played_cards_stay_face_up_in_the_players_discard_pile():
    state = placement_position(to_act=0, hands={0: [3, 6, 6, 1]})
    new, _ = execute(state, 0, PlacePiece(card=6, city=0, size=1))
    new, _ = execute(new, 1, PlacePiece(card=new.hands[1][0], city=0, size=1))
    assert new.discards[0] == [6]
    for seat in (1, 2, 3):
        assert player_view(new, seat).discards[0] == (6,)
        assert player_view(new, seat).to_json()["players"][0]["discards"] == [7]


def test_r11_empty_draw_pile_is_refilled_from_every_discard_pile():
    discards = {0: [1, 1], 1: [7], 2: [], 3: [4, 2, 0]}
    state = placement_position(to_act=0, hands={0: [5, 3, 3, 8]}, draw_pile=[], discards=discards)
    new, events = execute(state, 0, PlacePiece(card=5, city=0, size=1), seed=7)
    placed = events[0]
    reshuffle = placed["reshuffle"]
    # Every discard pile, including the card just played.
    assert sorted(reshuffle) == sorted([1, 1, 7, 4, 2, 0, 5])
    assert placed["drew"] == reshuffle[-1]
    assert new.draw_pile == reshuffle[:-1]
    assert new.discards == [[], [], [], []]
    assert sorted(new.hands[0]) == sorted([3, 3, 8, reshuffle[-1]])
    assert card_total(new) == card_total(state)


def test_r11_no_reshuffle_while_cards_remain():
    state = placement_position(to_act=0, hands={0: [5, 3, 3, 8]}, draw_pile=[2], discards={1: [7, 7]})
    new, events = execute(state, 0, PlacePiece(card=5, city=0, size=1))
    assert "reshuffle" not in events[0]
    assert events[0]["drew"] == 2
    assert new.draw_pile == []
    assert new.discards[1] == [7, 7]
    # The next draw must reshuffle.
    new2, events2 = execute(new, 1, PlacePiece(card=new.hands[1][0], city=1, size=1))
    assert sorted(events2[0]["reshuffle"]) == sorted([7, 7, 5, new.hands[1][0]])
    assert new2.discards == [[], [], [], []]


# --- R12 End of round -------------------------------------------------------------


def test_r12_round_ends_when_every_colour_has_placed_and_is_scored_at_once():
    game = new_game(4, start_player=0)
    events = game.play_round()
    placed = [e for e in events if e["type"] == PIECE_PLACED]
    assert len(placed) == 24
    assert Counter(e["colour"] for e in placed) == dict.fromkeys((RED, BLUE, GREEN, YELLOW), 6)
    i = types(events).index(ROUND_SCORED)
    assert i == len(events) - 2
    assert events[i - 1]["type"] == PIECE_PLACED
    board_at_end = game.state.board
    expected = score_board(board_at_end, (RED, BLUE, GREEN, YELLOW))
    assert events[i]["points"] == {COLOUR_NAMES[c]: n for c, n in expected.items()}
    assert game.state.scores == expected
    assert game.state.round_scores == [expected]


def test_r12_start_player_passes_clockwise_and_buildings_stay():
    game = new_game(4, start_player=0)
    events = game.play_round()
    assert events[-1]["type"] == ROUND_STARTED
    assert events[-1]["start_player"] == 1
    state = game.state
    assert state.round == 2
    assert state.phase == SELECTION
    assert state.to_act == 1
    assert storeys_on_board(state) == sum(s * n for s, n in zip((1, 2, 3, 4), (2, 2, 1, 1), strict=True)) * 4
    before = list(state.board)
    game.play_round()
    assert game.state.start_player == 2
    for old, new in zip(before, game.state.board, strict=True):
        if old is not None:
            assert new is not None
            assert new.pieces[: len(old.pieces)] == old.pieces


@pytest.mark.parametrize(
    ("players", "sides", "start", "next_start"),
    [
        (4, None, 3, 0),
        (3, None, 2, 0),
        (2, None, 1, 0),
        (2, None, 0, 1),
        (4, (N, S, E, W), 1, 3),  # S -> W
        (4, (N, S, E, W), 2, 1),  # E -> S
        (3, (E, S, N), 2, 0),  # N -> E
    ],
)
def test_r12_start_player_marker_passes_to_the_left(players, sides, start, next_start):
    state = new_game(players, sides=sides, start_player=start).state.copy()
    state.phase = ROUND_OVER
    state.to_act = None
    new, events = run_advance(state)
    assert types(events)[:2] == [ROUND_SCORED, ROUND_STARTED]
    assert events[1]["start_player"] == next_start
    assert new.start_player == next_start
    assert new.selecting_colour in new.colours[next_start]
