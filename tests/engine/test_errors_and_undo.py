"""Typed rule errors (stable codes, messages that name the rule), the
operator's undo of the last placement, and resignation."""

import pytest

from games.engine import (
    GameOptions,
    PlacePiece,
    Resign,
    SelectPieces,
    UndoLastPlacement,
    fold,
)
from games.engine.errors import RuleError
from games.engine.events import (
    GAME_FINISHED,
    HAND_REDRAWN,
    PIECE_PLACED,
    PLACEMENT_UNDONE,
    PLAYER_RESIGNED,
    ROUND_SCORED,
)
from games.engine.messages import RULE_MESSAGES
from games.engine.rotation import CARD_TO_LOT
from games.engine.state import FINISHED, PLACEMENT, ROUND_OVER, SELECTION, lot_index
from tests.support.engine_positions import (
    BLUE,
    CENTRE,
    GREEN,
    RED,
    YELLOW,
    S,
    W,
    board_with,
    empty_board,
    execute,
    fill_lot_everywhere,
    my_legal_placements,
    new_game,
    placement_position,
    rule_error,
    run_advance,
    tower,
    types,
)

# --- typed errors ---------------------------------------------------------------------


def _selection_state(players=4):
    return new_game(players, start_player=0).state


def _placement(**kw):
    kw.setdefault("hands", {0: [0, 1, 2, 3]})
    return placement_position(kw.pop("players", 4), to_act=kw.pop("to_act", 0), **kw)


def _finished_state():
    state = new_game(4).state.copy()
    state.round = state.options.rounds
    state.phase = ROUND_OVER
    state.to_act = None
    return run_advance(state)[0]


LOT0 = CARD_TO_LOT[S][0]

ERROR_CASES = [
    # (id, state factory, seat, action, code, rule)
    ("r9-select-while-placing", _placement, 0, SelectPieces((1, 1, 2, 2, 3, 4)), "wrong_phase", "R9"),
    ("r10-place-while-selecting", _selection_state, 0, PlacePiece(0, 0, 1), "wrong_phase", "R10"),
    ("r9-select-out-of-turn", _selection_state, 2, SelectPieces((1, 1, 2, 2, 3, 4)), "not_your_turn", "R9"),
    ("r9-too-few", _selection_state, 0, SelectPieces((1, 1, 2, 2, 3)), "bad_selection", "R9"),
    ("r9-no-such-size", _selection_state, 0, SelectPieces((1, 1, 2, 2, 3, 5)), "bad_selection", "R9"),
    ("r9-more-than-reserve", _selection_state, 0, SelectPieces((4, 4, 4, 4, 3, 3)), "bad_selection", "R9"),
    (
        "r9-partner-colour-first",
        lambda: _selection_state(2),
        0,
        SelectPieces((1, 2, 3, 4), colour=GREEN),
        "not_your_turn",
        "R9",
    ),
    ("r10-place-out-of-turn", _placement, 1, PlacePiece(0, 0, 1), "not_your_turn", "R10"),
    ("r3-bad-card", _placement, 0, PlacePiece(9, 0, 1), "bad_card", "R3"),
    ("r1-bad-city", _placement, 0, PlacePiece(0, 6, 1), "bad_city", "R1"),
    ("r2-bad-size", _placement, 0, PlacePiece(0, 0, 5), "bad_size", "R2"),
    ("r10-card-not-in-hand", _placement, 0, PlacePiece(8, 0, 1), "card_not_in_hand", "R10"),
    (
        "r9-piece-not-selected",
        lambda: _placement(selection={RED: [1, 1]}),
        0,
        PlacePiece(0, 0, 2),
        "piece_not_in_supply",
        "R9",
    ),
    (
        "r14-takeover-too-small",
        lambda: _placement(board=board_with({(0, LOT0): tower((BLUE, 3))})),
        0,
        PlacePiece(0, 0, 2),
        "takeover_too_small",
        "R14",
    ),
    ("r15-colour-required", lambda: _placement(players=2), 0, PlacePiece(0, 0, 1), "colour_required", "R15"),
    (
        "r15-not-your-colour",
        lambda: _placement(players=2),
        0,
        PlacePiece(0, 0, 1, colour=YELLOW),
        "not_your_colour",
        "R15",
    ),
    ("r19-game-finished", _finished_state, 0, PlacePiece(0, 0, 1), "game_finished", "R19"),
]


@pytest.mark.parametrize(
    ("make", "seat", "action", "code", "rule"),
    [case[1:] for case in ERROR_CASES],
    ids=[case[0] for case in ERROR_CASES],
)
def test_rule_errors_have_a_code_and_name_the_rule(make, seat, action, code, rule):
    state = make()
    err = rule_error(state, seat, action)
    assert isinstance(err, RuleError)
    assert err.code == code
    assert err.rule == rule
    assert rule in err.message, f"the message {err.message!r} should name {rule}"
    assert err.as_dict() == {
        "code": code,
        "message": err.message,
        "rule": rule,
        "message_id": err.message_id,
        "params": err.params,
    }
    assert str(err) == err.message
    # The message is its catalogue template filled in, after the rule named once.
    catalogue_code, catalogue_rule, template = RULE_MESSAGES[err.message_id]
    assert (catalogue_code, catalogue_rule) == (code, rule)
    assert err.message == f"{rule}: {template.format(**err.params)}"


def test_rule_errors_leave_the_state_unchanged():
    state = _placement(board=board_with({(0, LOT0): tower((BLUE, 3))}))
    before = state.copy()
    rule_error(state, 0, PlacePiece(0, 0, 1))
    assert state == before


@pytest.mark.parametrize(
    ("options", "rule"),
    [
        ({"players": 5}, "R7"),
        ({"players": 1}, "R7"),
        ({"copies_per_position": 1}, "R3"),
        ({"players": 2, "sides": (0, 0)}, "R5"),
        ({"players": 2, "start_player": 2}, "R8"),
    ],
)
def test_r3_r5_r7_r8_bad_options_are_typed_errors_naming_the_rule(options, rule):
    with pytest.raises(RuleError) as info:
        GameOptions(**options)
    assert info.value.code == "bad_option"
    assert info.value.rule == rule
    assert rule in info.value.message


def test_r7_bad_six_rounds_option_from_json_names_the_rule():
    with pytest.raises(RuleError) as info:
        GameOptions.from_json({"players": 4, "six_rounds": "yes"})
    assert info.value.code == "bad_option"
    assert info.value.rule == "R7"
    assert "R7" in info.value.message


def test_only_a_seat_of_the_game_can_act():
    state = _placement()
    for seat in (None, 4, -1):
        err = rule_error(state, seat, PlacePiece(0, 0, 1))
        assert err.code == "not_your_turn"


def test_r14_takeover_message_gives_the_storeys_needed_and_given():
    state = _placement(board=board_with({(0, LOT0): tower((GREEN, 1), (BLUE, 3))}))
    err = rule_error(state, 0, PlacePiece(0, 0, 1))
    assert err.message.startswith("R14:")
    assert "at least 3 storeys" in err.message
    assert "blue" in err.message
    assert "gives you 1" in err.message


def test_r9_piece_not_in_supply_lists_what_is_left():
    state = _placement(selection={RED: [1, 3, 3]})
    err = rule_error(state, 0, PlacePiece(0, 0, 4))
    assert "left: 1, 3, 3" in err.message


# --- undo -------------------------------------------------------------------------------


def _game_in_placement(players=4, seed=2):
    game = new_game(players, seed=seed, start_player=0)
    game.select_all()
    assert game.state.phase == PLACEMENT
    return game


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
    game = _game_in_placement()
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
    game = _game_in_placement()
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
    game = _game_in_placement()
    game.place_first_legal()
    game.act(None, UndoLastPlacement())
    err = rule_error(game.state, None, UndoLastPlacement())
    assert err.code == "undo_unavailable"


def test_undo_only_the_last_of_two_placements():
    game = _game_in_placement()
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
    game = _game_in_placement()
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


# --- resign ----------------------------------------------------------------------------


def test_resign_on_turn_passes_the_turn_and_buildings_stay():
    game = _game_in_placement()
    game.place_first_legal()  # seat 0
    built = [b for b in game.state.board if b is not None]
    events = game.act(1, Resign())
    assert types(events)[0] == PLAYER_RESIGNED
    state = game.state
    assert state.resigned == [False, True, False, False]
    assert state.to_act == 2
    assert state.selection[BLUE] == [0, 0, 0, 0]
    assert state.reserve[BLUE] == [0, 0, 0, 0]
    assert [b for b in state.board if b is not None] == built


def test_resigned_player_cannot_act():
    game = _game_in_placement()
    game.act(2, Resign())
    err = rule_error(game.state, 2, PlacePiece(0, 0, 1))
    assert err.code == "player_resigned"
    assert rule_error(game.state, 2, Resign()).code == "player_resigned"


def test_resigned_player_is_skipped_in_turns_and_later_selections():
    game = _game_in_placement()
    game.act(1, Resign())
    players = []
    for _ in range(6):
        players += [e["player"] for e in game.place_first_legal() if e["type"] == PIECE_PLACED]
    assert players == [0, 2, 3, 0, 2, 3]
    while game.state.round == 1:
        game.place_first_legal()
    assert game.state.phase == SELECTION
    assert BLUE not in game.state.selection_queue
    assert game.state.selection_queue == [GREEN, YELLOW, RED]  # round 2 starts with seat 1's turn passed


def test_resign_during_selection_removes_the_colours_from_the_queue():
    game = new_game(2, start_player=0)
    game.act(0, SelectPieces((1, 2, 3, 4), colour=RED))
    game.act(1, Resign())
    # Only two players: one left, so the game ends at once.
    assert game.state.phase == FINISHED
    assert game.state.winners == (0,)
    assert types(game.events)[-1] == GAME_FINISHED


def test_resign_in_three_players_game_continues_then_ends_with_the_last_player():
    game = new_game(3, start_player=0)
    game.act(1, Resign())
    assert game.state.selection_queue == [RED, GREEN]
    assert not game.state.is_finished
    game.act(0, Resign())
    assert game.state.is_finished
    assert game.state.winners == (2,)


def test_resigned_player_cannot_win_even_with_more_points():
    game = new_game(3, start_player=0)
    state = game.state.copy()
    state.scores = {RED: 40, BLUE: 10, GREEN: 5}
    new, _ = execute(state, 0, Resign())
    new, events = execute(new, 1, Resign())
    assert events[-1]["type"] == GAME_FINISHED
    assert new.winners == (2,)


def test_r9_r15_two_colour_player_asking_for_a_size_neither_colour_holds():
    # Neither red nor green has a 4 left this round: naming a colour would not help,
    # so the refusal is R9's (only the round's selected pieces can be placed).
    state = _placement(players=2, selection={RED: [1, 2], GREEN: [1, 3]})
    err = rule_error(state, 0, PlacePiece(0, 0, 4))
    assert err.code == "piece_not_in_supply"
    assert err.rule == "R9"
