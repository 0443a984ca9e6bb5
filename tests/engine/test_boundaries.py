"""Every public entry point refuses junk with the engine's own errors (a
``RuleError`` or ``NotationError`` with a code from the catalogue) — never a
raw TypeError, ValueError or IndexError, and never by playing it.

Hypothesis feeds ``execute``/``decide``, the action classes, ``action_from_json``,
``parse_action`` and ``GameOptions``/``GameOptions.from_json`` random values of
every type."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import (
    Action,
    GameOptions,
    NotationError,
    PlacePiece,
    Resign,
    RuleError,
    SelectPieces,
    UndoLastPlacement,
    action_from_json,
    decide,
    execute,
    parse_action,
)
from games.engine.messages import NOTATION_MESSAGES, RULE_MESSAGES
from games.engine.state import GameState
from tests.support.engine_positions import new_game, placement_position

MOVE_ALPHABET = "card city size select resign 0123456789²④٣５ 카드도시크기,.-"
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=10,
)
numberish = st.one_of(
    st.integers(-3, 12),
    st.booleans(),
    st.floats(allow_nan=True),
    st.text(max_size=3),
    st.none(),
    st.lists(st.integers(0, 5), max_size=2),
    st.just(2**70),
)
colourish = st.one_of(st.none(), numberish, st.sampled_from(["red", "green", 0, 2]))


def _states() -> list[GameState]:
    two = new_game(2).state
    return [
        new_game(4).state,  # seat 0 selects
        two,  # seat 0 selects red
        placement_position(4, to_act=0, hands={0: [0, 1, 2, 3]}),
        placement_position(2, to_act=1, hands={1: [4, 4, 5, 6]}),
        placement_position(3, to_act=2),
    ]


STATES = _states()


def assert_catalogued(error: RuleError) -> None:
    code, rule, template = RULE_MESSAGES[error.message_id]
    assert (error.code, error.rule) == (code, rule)
    text = template.format(**error.params)
    assert error.message == (f"{rule}: {text}" if rule else text)
    assert all(type(v) in (int, str) for v in error.params.values()), error.params


def well_formed(action: Action) -> bool:
    """What an accepted action must be: whole numbers that are ints (not bools) in range."""
    if isinstance(action, PlacePiece):
        numbers = (action.card, action.city, action.size)
        colour_ok = action.colour is None or (type(action.colour) is int and 0 <= action.colour <= 3)
        return all(type(n) is int for n in numbers) and colour_ok and 1 <= action.size <= 4
    if isinstance(action, SelectPieces):
        return all(type(p) is int and 1 <= p <= 4 for p in action.pieces)
    if isinstance(action, UndoLastPlacement):
        return isinstance(action.reason, str)
    return isinstance(action, Resign)


def outcome(call: Callable[[], Any]) -> tuple[Any, Exception | None]:
    """``call()``'s result, or the ``RuleError``/``NotationError`` it raised (anything else escapes)."""
    try:
        return call(), None
    except (RuleError, NotationError) as error:
        return None, error


def build(kind: str, values: dict[str, Any]) -> Any:
    """An action made from junk (its constructor may refuse, with a RuleError), or the junk itself."""
    if kind == "place":
        return PlacePiece(values["card"], values["city"], values["size"], values["colour"])
    if kind == "select":
        return SelectPieces(values["pieces"], values["colour"])
    if kind == "undo":
        return UndoLastPlacement(values["reason"])
    if kind == "resign":
        return Resign()
    return values["junk"]


@SETTINGS
@given(
    state_index=st.integers(0, len(STATES) - 1),
    player=st.one_of(st.integers(-2, 5), st.none(), st.booleans(), st.floats(), st.text(max_size=2)),
    kind=st.sampled_from(["place", "select", "undo", "resign", "junk"]),
    values=st.fixed_dictionaries(
        {
            "card": numberish,
            "city": numberish,
            "size": numberish,
            "colour": colourish,
            "pieces": st.one_of(st.lists(numberish, max_size=7), numberish, st.tuples(st.integers(1, 4))),
            "reason": st.one_of(st.text(max_size=5), numberish),
            "junk": json_values,
        }
    ),
    in_place=st.booleans(),
)
def test_execute_and_decide_refuse_junk_with_rule_errors(state_index, player, kind, values, in_place):
    state = STATES[state_index].copy()
    before = state.copy()
    action, error = outcome(lambda: build(kind, values))
    if error is not None:  # only SelectPieces refuses in its constructor
        assert kind == "select"
        assert isinstance(error, RuleError)
        assert error.code == "bad_selection"
        assert_catalogued(error)
        return
    _, by_decide = outcome(lambda: decide(state, player, action, random.Random(0)))
    _, by_execute = outcome(lambda: execute(state, player, action, random.Random(0), in_place=in_place))
    if by_decide is None:
        assert by_execute is None
        assert well_formed(action), f"{action!r} by {player!r} was played"
        assert type(player) is int or isinstance(action, UndoLastPlacement)
        return
    for error in (by_decide, by_execute):
        assert isinstance(error, RuleError)
        assert_catalogued(error)
    assert str(by_decide) == str(by_execute)
    assert state == before, "a refused action leaves the state as it was"


def test_the_reported_cases_are_refused_with_codes():
    state = placement_position(4, to_act=0, hands={0: [0, 1, 2, 3]})
    cases = [
        (0, PlacePiece(0.0, 0, 1), "bad_card"),
        (0, PlacePiece("1", 0, 1), "bad_card"),
        (0, PlacePiece(True, 0, 1), "bad_card"),  # True is not card 2
        (0, PlacePiece(0, True, 1), "bad_city"),
        (0, PlacePiece(0, 0, True), "bad_size"),
        (0, PlacePiece(0, 0, 1.0), "bad_size"),
        (0, PlacePiece(0, 0, 1, colour=7), "bad_colour"),
        (0, PlacePiece(0, 0, 1, colour=True), "bad_colour"),
        (0, UndoLastPlacement("from a seat"), "undo_forbidden"),
        (True, PlacePiece(0, 0, 1), "not_your_turn"),
        ("0", PlacePiece(0, 0, 1), "not_your_turn"),
        (0.0, PlacePiece(0, 0, 1), "not_your_turn"),
        (0, "card 1 city 1 size 1", "bad_action"),
        (0, {"type": "place"}, "bad_action"),
        (None, UndoLastPlacement(5), "bad_action"),
    ]
    for player, action, code in cases:
        with pytest.raises(RuleError) as caught:
            execute(state, player, action, random.Random(0))
        assert caught.value.code == code, (player, action)
        assert_catalogued(caught.value)
    with pytest.raises(RuleError) as caught:
        SelectPieces((1, True, 2))
    assert caught.value.code == "bad_selection"
    selecting = new_game(4).state
    with pytest.raises(RuleError) as caught:
        execute(selecting, 0, SelectPieces((1, 1, 2, 2, 3, 4), colour=7), random.Random(0))
    assert caught.value.code == "bad_colour"


@SETTINGS
@given(
    data=st.one_of(
        json_values,
        st.fixed_dictionaries(
            {"type": st.sampled_from(["place", "select", "undo", "resign", "x"])},
            optional={
                "card": json_values,
                "city": json_values,
                "size": json_values,
                "colour": json_values,
                "pieces": json_values,
                "reason": json_values,
            },
        ),
    )
)
def test_action_from_json_refuses_junk_with_rule_errors(data):
    try:
        action = action_from_json(data)
    except RuleError as error:
        assert_catalogued(error)
    else:
        assert well_formed(action)


@SETTINGS
@given(text=st.one_of(st.text(), st.text(alphabet=MOVE_ALPHABET), json_values))
def test_parse_action_refuses_junk_with_notation_errors(text):
    action, error = outcome(lambda: parse_action(text))
    if error is None:
        assert isinstance(text, str)
        assert well_formed(action)
        return
    assert isinstance(error, NotationError)
    assert error.code == "bad_notation"
    assert error.message == NOTATION_MESSAGES[error.message_id].format(**error.params)
    assert 0 <= error.position <= len(error.text)


@SETTINGS
@given(
    kwargs=st.fixed_dictionaries(
        {},
        optional={
            "players": numberish,
            "six_rounds": st.one_of(st.booleans(), numberish),
            "copies_per_position": numberish,
            "sides": st.one_of(st.none(), st.lists(numberish, max_size=5), numberish),
            "start_player": numberish,
        },
    ),
    as_json=st.booleans(),
)
def test_game_options_refuse_junk_with_rule_errors(kwargs, as_json):
    options, error = outcome(lambda: GameOptions.from_json(kwargs) if as_json else GameOptions(**kwargs))
    if error is not None:
        assert isinstance(error, RuleError)
        assert error.code == "bad_option"
        assert_catalogued(error)
        return
    assert type(options.players) is int
    assert options.players in (2, 3, 4)
    assert type(options.six_rounds) is bool
    assert type(options.copies_per_position) is int
    assert options.sides is None or all(type(s) is int for s in options.sides)
    assert options.start_player is None or type(options.start_player) is int


@SETTINGS
@given(data=json_values)
def test_game_options_from_json_refuses_any_json(data):
    _, error = outcome(lambda: GameOptions.from_json(data))
    if error is not None:
        assert isinstance(error, RuleError)
        assert_catalogued(error)
