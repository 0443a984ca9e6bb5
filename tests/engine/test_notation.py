"""The move notation (games/engine/notation.py, docs/notation.md)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import (
    NotationError,
    PlacePiece,
    Resign,
    SelectPieces,
    UndoLastPlacement,
    format_action,
    parse_action,
)

RED, BLUE, GREEN, YELLOW = 0, 1, 2, 3
CARD5_CITY3_SIZE2 = PlacePiece(card=4, city=2, size=2)


# --- the canonical form -----------------------------------------------------


@pytest.mark.parametrize(
    ("action", "text"),
    [
        (PlacePiece(card=4, city=2, size=2), "card 5 city 3 size 2"),
        (PlacePiece(card=0, city=0, size=1), "card 1 city 1 size 1"),
        (PlacePiece(card=8, city=5, size=4), "card 9 city 6 size 4"),
        (PlacePiece(card=4, city=2, size=2, colour=GREEN), "card 5 city 3 size 2 green"),
        (PlacePiece(card=0, city=5, size=3, colour=RED), "card 1 city 6 size 3 red"),
        (PlacePiece(card=6, city=1, size=1, colour=BLUE), "card 7 city 2 size 1 blue"),
        (PlacePiece(card=2, city=3, size=4, colour=YELLOW), "card 3 city 4 size 4 yellow"),
        (SelectPieces(pieces=(1, 1, 2, 3, 4, 4)), "select 1 1 2 3 4 4"),
        (SelectPieces(pieces=(4, 1, 3, 1, 2, 4)), "select 1 1 2 3 4 4"),
        (SelectPieces(pieces=(1, 1, 2, 3), colour=RED), "select red 1 1 2 3"),
        (SelectPieces(pieces=(2, 2, 2, 2), colour=YELLOW), "select yellow 2 2 2 2"),
        (Resign(), "resign"),
        (UndoLastPlacement("wrong city"), "undo wrong city"),
        (UndoLastPlacement(""), "undo"),
    ],
)
def test_canonical_format(action, text):
    assert format_action(action) == text
    assert parse_action(text) == action


def test_format_is_one_based_for_cards_and_cities_but_not_sizes():
    text = format_action(PlacePiece(card=0, city=0, size=1))
    assert text == "card 1 city 1 size 1"
    assert "0" not in text


def test_every_placement_round_trips():
    for card, city, size in itertools.product(range(9), range(6), (1, 2, 3, 4)):
        for colour in (None, RED, BLUE, GREEN, YELLOW):
            action = PlacePiece(card=card, city=city, size=size, colour=colour)
            assert parse_action(format_action(action)) == action


@settings(max_examples=50, deadline=None)
@given(
    pieces=st.lists(st.integers(1, 4), min_size=1, max_size=6),
    colour=st.sampled_from([None, RED, BLUE, GREEN, YELLOW]),
)
def test_every_selection_round_trips(pieces, colour):
    action = SelectPieces(pieces=tuple(pieces), colour=colour)
    assert parse_action(format_action(action)) == action


@settings(max_examples=50, deadline=None)
@given(reason=st.text(alphabet="abcdefghij XYZ0123456789éü", max_size=30).map(str.strip))
def test_undo_reason_round_trips(reason):
    action = UndoLastPlacement(reason)
    assert parse_action(format_action(action)) == action


# --- forgiving parsing of placements -----------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "card 5 city 3 size 2",
        "CARD 5 CITY 3 SIZE 2",
        "Card 5 City 3 Size 2",
        "   card   5    city 3   size 2   ",
        "card\t5\ncity 3 size 2",
        "card 5, city 3, size 2",
        "card: 5; city: 3; size: 2.",
        "card #5 city #3 size #2!",
        "card=5 city=3 size=2",
        "card5 city3 size2",
        "Card5 City3 Size2",
        "k5 c3 s2",
        "K5 C3 S2",
        "k5c3s2",
        "k 5 c 3 s 2",
        "5 3 2",
        "5,3,2",
        "5, 3, 2",
        "5-3-2",
        "5/3/2",
        "5.3.2",
        "(5 3 2)",
        "size 2 city 3 card 5",
        "city 3 card 5 size 2",
        "s2 k5 c3",
        "place card 5 city 3 size 2",
        "place 5 3 2",
        "Play 5 3 2",
        "build k5 c3 s2",
        "p 5 3 2",
        "cards 5 city 3 size 2",
        "crd 5 cty 3 sz 2",
        "card 5 town 3 height 2",
        "card 5 block 3 storeys 2",
        "card 5 city 3 storey 2",
        "card 5 city 3 floors 2",
        "card 5 city 3 floor 2",
        "card 5 city 3 piece 2",
        "kaart 5 stad 3 size 2",
        "karte 5 stadt 3 size 2",
        "carte 5 ville 3 size 2",
    ],
)
def test_placement_spellings(text):
    assert parse_action(text) == CARD5_CITY3_SIZE2


@pytest.mark.parametrize(
    ("text", "colour"),
    [
        ("card 5 city 3 size 2 red", RED),
        ("card 5 city 3 size 2 RED", RED),
        ("red card 5 city 3 size 2", RED),
        ("card 5 red city 3 size 2", RED),
        ("5 3 2 r", RED),
        ("5 3 2 R", RED),
        ("5 3 2 rot", RED),
        ("5 3 2 rood", RED),
        ("5 3 2 rouge", RED),
        ("k5 c3 s2 blue", BLUE),
        ("5 3 2 b", BLUE),
        ("5 3 2 blau", BLUE),
        ("5 3 2 blauw", BLUE),
        ("5 3 2 bleu", BLUE),
        ("k5 c3 s2 green", GREEN),
        ("green 5 3 2", GREEN),
        ("5 3 2 g", GREEN),
        ("5 3 2 grün", GREEN),
        ("5 3 2 GRÜN", GREEN),
        ("5 3 2 gruen", GREEN),
        ("5 3 2 groen", GREEN),
        ("5 3 2 vert", GREEN),
        ("5, 3, 2, yellow", YELLOW),
        ("5 3 2 y", YELLOW),
        ("5 3 2 gelb", YELLOW),
        ("5 3 2 geel", YELLOW),
        ("5 3 2 jaune", YELLOW),
    ],
)
def test_placement_colours(text, colour):
    assert parse_action(text) == PlacePiece(card=4, city=2, size=2, colour=colour)


def test_colour_is_optional():
    assert parse_action("5 3 2").colour is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1 1 1", PlacePiece(card=0, city=0, size=1)),
        ("9 6 4", PlacePiece(card=8, city=5, size=4)),
        ("card 9 city 6 size 4", PlacePiece(card=8, city=5, size=4)),
        ("card 1 city 6 size 3", PlacePiece(card=0, city=5, size=3)),
        ("card 09 city 01 size 04", PlacePiece(card=8, city=0, size=4)),
    ],
)
def test_placement_numbers_are_one_based(text, expected):
    assert parse_action(text) == expected


def test_bare_numbers_are_card_city_size_in_that_order():
    assert parse_action("2 6 3") == PlacePiece(card=1, city=5, size=3)
    assert parse_action("6 2 3") == PlacePiece(card=5, city=1, size=3)


# --- selection, resign, undo ---------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "select 112344",
        "select 1 1 2 3 4 4",
        "SELECT 1 1 2 3 4 4",
        "select 1,1,2,3,4,4",
        "select: 1-1-2-3-4-4.",
        "select 11 23 44",
        "select 4 4 3 2 1 1",
        "select 443211",
        "sel 112344",
        "take 1 1 2 3 4 4",
        "pick 1 1 2 3 4 4",
        "choose 112344",
    ],
)
def test_selection_spellings(text):
    assert parse_action(text) == SelectPieces(pieces=(1, 1, 2, 3, 4, 4))


@pytest.mark.parametrize(
    ("text", "colour"),
    [
        ("select red 1 1 2 3", RED),
        ("select RED 1123", RED),
        ("select r 1 1 2 3", RED),
        ("select 1 1 2 3 red", RED),
        ("select rouge 1123", RED),
        ("select blue 1 1 2 3", BLUE),
        ("select blauw 1123", BLUE),
        ("select green 1 1 2 3", GREEN),
        ("select grün 1 1 2 3", GREEN),
        ("select yellow 1 1 2 3", YELLOW),
        ("select gelb 1 1 2 3", YELLOW),
    ],
)
def test_selection_with_colour(text, colour):
    assert parse_action(text) == SelectPieces(pieces=(1, 1, 2, 3), colour=colour)


def test_selection_keeps_any_number_of_pieces_for_the_rules_to_judge():
    # The notation reads what was written; R9's "exactly k pieces" is the engine's check.
    assert parse_action("select 1 2") == SelectPieces(pieces=(1, 2))
    assert parse_action("select 1111111") == SelectPieces(pieces=(1,) * 7)


@pytest.mark.parametrize("text", ["resign", "RESIGN", "Resign.", "  resign  ", "resign!", "concede", "quit"])
def test_resign_spellings(text):
    assert parse_action(text) == Resign()


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("undo", ""),
        ("UNDO", ""),
        ("undo wrong city", "wrong city"),
        ("undo: misclick", "misclick"),
        ("Undo - typo in the card", "typo in the card"),
        ("undo Player Asked, Card 5 Not 6", "Player Asked, Card 5 Not 6"),
        ("  undo   spaced out  ", "spaced out"),
    ],
)
def test_undo_with_reason(text, reason):
    assert parse_action(text) == UndoLastPlacement(reason)


# --- errors point at the wrong token -----------------------------------------------


def error_for(text: str) -> NotationError:
    with pytest.raises(NotationError) as caught:
        parse_action(text)
    return caught.value


@pytest.mark.parametrize(
    ("text", "token", "position"),
    [
        ("card 10 city 3 size 2", "10", 5),
        ("card 0 city 3 size 2", "0", 5),
        ("card 5 city 7 size 2", "7", 12),
        ("card 5 city 0 size 2", "0", 12),
        ("card 5 city 3 size 5", "5", 19),
        ("card 5 city 3 size 0", "0", 19),
        ("k5 c3 s9", "9", 7),
        ("10 3 2", "10", 0),
        ("5 7 2", "7", 2),
        ("5 3 5", "5", 4),
        ("card 5 city 3 size 2 purple", "purple", 21),
        ("5 3 2 PURPLE", "purple", 6),
        ("hello 5 3 2", "hello", 0),
        ("card 5 city 3 size 2 @", "@", 21),
        ("card 5 card 6 city 3 size 2", "card", 7),
        ("card 5 city 3 k 6 size 2", "k", 14),
        ("card city 3 size 2", "card", 0),
        ("card 5 city 3 size", "size", 14),
        ("5 3", "5", 0),
        ("5 3 2 1", "5", 0),
        ("card 5 3 2", "3", 7),
        ("5 3 2 red blue", "blue", 10),
        ("select 1 1 5", "5", 11),
        ("select 115", "5", 9),
        ("select 1 1 0 2", "0", 11),
        ("select 1 1 x", "x", 11),
        ("select red blue 1 1 2 3", "blue", 11),
        ("resign now", "now", 7),
        ("resign 5 3 2", "5", 7),
    ],
)
def test_errors_point_at_the_wrong_token(text, token, position):
    error = error_for(text)
    assert error.token == token
    assert error.position == position
    assert error.text == text
    assert text[position : position + len(token)].lower() == token
    assert f"column {position + 1}" in error.message
    assert error.code == "bad_notation"
    assert isinstance(error, ValueError)


@pytest.mark.parametrize(
    ("text", "missing"),
    [
        ("card 5 city 3", "size"),
        ("city 3 size 2", "card"),
        ("card 5 size 2", "city"),
        ("place", "card"),
        ("red", "card"),
    ],
)
def test_missing_part_points_at_the_end(text, missing):
    error = error_for(text)
    assert error.position == len(text)
    assert error.token == ""
    assert f"no {missing}" in error.message


@pytest.mark.parametrize("text", ["", "   ", ",,,", " . "])
def test_empty_move(text):
    error = error_for(text)
    assert error.position == 0
    assert error.token == ""
    assert "empty" in error.message


@pytest.mark.parametrize("text", ["select", "select red", "choose  "])
def test_selection_without_pieces(text):
    error = error_for(text)
    assert error.position == len(text)
    assert error.token == ""


def test_pointer_puts_a_caret_under_the_token():
    error = error_for("card 10 city 3 size 2")
    assert error.pointer() == "card 10 city 3 size 2\n     ^"
    error = error_for("k5 c3 s2 purple")
    lines = error.pointer().split("\n")
    assert lines == ["k5 c3 s2 purple", "         ^"]
    assert lines[1].index("^") == lines[0].index("purple")


def test_pointer_for_a_missing_part_points_past_the_end():
    error = error_for("card 5 city 3")
    text, caret = error.pointer().split("\n")
    assert text == "card 5 city 3"
    assert caret == " " * len(text) + "^"


def test_error_messages_say_what_is_wrong():
    assert "card must be from 1 to 9" in error_for("card 10 city 3 size 2").message
    assert "city must be from 1 to 6" in error_for("card 5 city 7 size 2").message
    assert "size must be from 1 to 4" in error_for("card 5 city 3 size 5").message
    assert "given twice" in error_for("card 5 card 6 city 3 size 2").message
    assert "expected a number after 'card'" in error_for("card city 3 size 2").message
    assert "ambiguous" in error_for("5 3").message
    assert "colour is given twice" in error_for("5 3 2 red blue").message
    assert "sizes 1 to 4" in error_for("select 1 1 5").message
    assert "unknown word" in error_for("hello 5 3 2").message
    assert "'resign' takes nothing after it" in error_for("resign now").message
