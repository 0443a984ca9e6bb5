"""Typed rule errors: stable codes, messages that name the rule, and a state left as it was."""

from __future__ import annotations

import pytest

from games.engine import (
    GameOptions,
    PlacePiece,
    SelectPieces,
)
from games.engine.errors import RuleError
from games.engine.messages import RULE_MESSAGES
from games.engine.rotation import CARD_TO_LOT
from games.engine.state import ROUND_OVER
from tests.support.engine_positions import (
    BLUE,
    GREEN,
    RED,
    YELLOW,
    S,
    board_with,
    new_game,
    placement_position,
    rule_error,
    run_advance,
    tower,
)


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


def test_r9_r15_two_colour_player_asking_for_a_size_neither_colour_holds():
    # Neither red nor green has a 4 left this round: naming a colour would not help,
    # so the refusal is R9's (only the round's selected pieces can be placed).
    state = _placement(players=2, selection={RED: [1, 2], GREEN: [1, 3]})
    err = rule_error(state, 0, PlacePiece(0, 0, 4))
    assert err.code == "piece_not_in_supply"
    assert err.rule == "R9"
