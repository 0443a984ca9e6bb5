"""R7–R15: game length, set-up, the round, the turn, discards, the end of a
round, ownership, legal placement and the two-player game."""

from collections import Counter

import pytest

from games.engine import GameOptions, PlacePiece, SelectPieces, fold, player_view
from games.engine.commands import check_selection
from games.engine.constants import COLOUR_NAMES
from games.engine.errors import RuleError
from games.engine.events import PIECE_LOST, PIECE_PLACED, PIECES_SELECTED, ROUND_SCORED, ROUND_STARTED
from games.engine.rotation import CARD_TO_LOT, LOT_TO_CARD
from games.engine.rules import can_place, legal_placements, score_board, smallest_takeover
from games.engine.simulate import play_game
from games.engine.state import PLACEMENT, ROUND_OVER, SELECTION, lot_index
from tests.engine.factories import (
    BLUE,
    GREEN,
    RED,
    YELLOW,
    E,
    N,
    S,
    W,
    board_with,
    card_total,
    counts,
    execute,
    new_game,
    placement_position,
    rule_error,
    run_advance,
    storeys_on_board,
    tower,
    types,
)

VARIANTS = [
    # (players, six_rounds, rounds, pieces per round)
    (4, False, 4, 6),
    (4, True, 6, 4),
    (3, False, 6, 4),
    (2, False, 6, 4),
]

# --- R7 Rounds ----------------------------------------------------------------------


@pytest.mark.parametrize(("players", "six_rounds", "rounds", "k"), VARIANTS)
def test_r7_rounds_and_pieces_per_round_for_every_variant(players, six_rounds, rounds, k):
    options = GameOptions(players=players, six_rounds=six_rounds)
    assert options.rounds == rounds
    assert options.pieces_per_round == k
    assert rounds * k == 24


def test_r7_six_rounds_option_changes_nothing_for_three_players():
    assert GameOptions(players=3, six_rounds=True).rounds == 6
    assert GameOptions(players=3, six_rounds=True).pieces_per_round == 4


@pytest.mark.parametrize("players", [1, 5, 0])
def test_r7_two_to_four_players(players):
    with pytest.raises(RuleError) as info:
        GameOptions(players=players)
    assert info.value.code == "bad_option"
    assert info.value.rule == "R7"


@pytest.mark.parametrize(("players", "six_rounds", "rounds", "k"), VARIANTS)
def test_r7_every_colour_uses_all_24_pieces_in_a_whole_game(players, six_rounds, rounds, k):
    game = play_game(GameOptions(players=players, six_rounds=six_rounds), ["random"] * players, f"r7-{players}")
    events, state = game.events, game.state
    assert state.is_finished
    colours = state.all_colours
    assert len(colours) == (3 if players == 3 else 4)
    used = Counter(e["colour"] for e in events if e["type"] in (PIECE_PLACED, PIECE_LOST))
    assert used == dict.fromkeys(colours, 24)
    placed: Counter[int] = Counter()
    for e in events:
        if e["type"] == PIECE_PLACED or e["type"] == PIECE_LOST:
            placed[(e["colour"], e["size"])] += 1
    for colour in colours:
        assert [placed[(colour, s)] for s in (1, 2, 3, 4)] == [11, 6, 4, 3]
        assert state.reserve[colour] == [0, 0, 0, 0]
    assert types(events).count(ROUND_SCORED) == rounds
    selections = [e for e in events if e["type"] == PIECES_SELECTED]
    assert len(selections) == rounds * len(colours)
    assert all(len(e["pieces"]) == k for e in selections)


# --- R8 Set-up --------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_r8_scores_start_at_zero_and_four_cards_are_dealt(players):
    state = new_game(players).state
    assert all(v == 0 for v in state.scores.values())
    assert state.player_totals() == [0] * players
    assert [len(h) for h in state.hands] == [4] * players
    assert card_total(state) == 45
    assert state.round == 1
    assert state.phase == SELECTION


@pytest.mark.parametrize("start", [0, 1, 2, 3])
def test_r8_start_player_is_the_creators_choice(start):
    assert new_game(4, start_player=start).state.start_player == start


def test_r8_start_player_is_random_when_not_chosen():
    starts = {new_game(4, seed=seed, start_player=None).state.start_player for seed in range(60)}
    assert starts == {0, 1, 2, 3}


def test_r8_start_player_must_be_a_seat():
    with pytest.raises(RuleError) as info:
        GameOptions(players=3, start_player=3)
    assert info.value.code == "bad_option"
    assert info.value.rule == "R8"


def test_r8_deck_is_shuffled():
    deals = {tuple(new_game(4, seed=seed).state.draw_pile) for seed in range(5)}
    assert len(deals) == 5
    ordered = sorted(new_game(4, seed=0).state.draw_pile)
    assert all(list(pile) != ordered for pile in deals)


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
