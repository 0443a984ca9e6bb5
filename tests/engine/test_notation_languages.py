"""The notation in the five languages of the emails (docs/notation.md): the
words each language uses, colours, verbs, Korean written without spaces, the
canonical example in each language, and only ASCII digits as numbers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import NotationError, PlacePiece, Resign, SelectPieces, UndoLastPlacement, format_action, parse_action
from games.engine.messages import NOTATION_MESSAGES
from games.engine.notation_words import CANONICAL, COLOURS, LANGUAGES, PARTS, VERBS, word_key

RED, BLUE, GREEN, YELLOW = 0, 1, 2, 3
MOVE = PlacePiece(card=4, city=2, size=2)  # card 5 city 3 size 2


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("en", "card 5 city 3 size 2"),
        ("de", "Karte 5 Stadt 3 Größe 2"),
        ("nl", "kaart 5 stad 3 grootte 2"),
        ("fr", "carte 5 ville 3 taille 2"),
        ("ko", "카드 5 도시 3 크기 2"),
    ],
)
def test_the_canonical_example_in_each_language(language, text):
    assert format_action(MOVE, language=language) == text
    assert parse_action(text) == MOVE


@pytest.mark.parametrize(
    ("language", "action", "text"),
    [
        ("de", PlacePiece(4, 2, 2, colour=GREEN), "Karte 5 Stadt 3 Größe 2 grün"),
        ("nl", SelectPieces((1, 1, 2, 3), colour=RED), "kies rood 1 1 2 3"),
        ("fr", SelectPieces((1, 1, 2, 3, 4, 4)), "choisir 1 1 2 3 4 4"),
        ("ko", PlacePiece(0, 5, 4, colour=YELLOW), "카드 1 도시 6 크기 4 노랑"),
        ("de", Resign(), "aufgeben"),
        ("nl", Resign(), "opgeven"),
        ("fr", Resign(), "abandonner"),
        ("ko", Resign(), "포기"),
        ("ko", UndoLastPlacement("오타"), "undo 오타"),
    ],
)
def test_other_actions_in_each_language(language, action, text):
    assert format_action(action, language=language) == text
    assert parse_action(text) == action


@pytest.mark.parametrize(("tag", "language"), [("de-AT", "de"), ("fr_CA", "fr"), ("NL", "nl"), ("ko-KR", "ko")])
def test_a_language_tag_picks_its_language(tag, language):
    assert format_action(MOVE, language=tag) == format_action(MOVE, language=language)


@pytest.mark.parametrize("tag", ["es", "", "x-klingon", None, 7])
def test_an_unknown_language_writes_english(tag):
    assert format_action(MOVE, language=tag) == "card 5 city 3 size 2"


actions = st.one_of(
    st.builds(
        PlacePiece,
        card=st.integers(0, 8),
        city=st.integers(0, 5),
        size=st.integers(1, 4),
        colour=st.sampled_from([None, RED, BLUE, GREEN, YELLOW]),
    ),
    st.builds(
        SelectPieces,
        pieces=st.lists(st.integers(1, 4), min_size=1, max_size=6).map(tuple),
        colour=st.sampled_from([None, RED, BLUE, GREEN, YELLOW]),
    ),
    st.just(Resign()),
    st.builds(UndoLastPlacement, reason=st.text(alphabet="abc XYZ123éü오타", max_size=20).map(str.strip)),
)


@settings(max_examples=300, deadline=None)
@given(action=actions, language=st.sampled_from(LANGUAGES))
def test_every_action_round_trips_in_every_language(action, language):
    text = format_action(action, language=language)
    assert parse_action(text) == action
    if not isinstance(action, UndoLastPlacement):  # an undo keeps its reason as written
        assert parse_action(text.upper()) == action
        assert parse_action(text.replace(" ", "  ")) == action


@pytest.mark.parametrize(
    "text",
    [
        # German
        "Karte 5 Stadt 3 Größe 2",
        "karte 5 stadt 3 grösse 2",
        "KARTE 5 STADT 3 GRÖSSE 2",
        "Karte 5 Stadt 3 Groesse 2",
        "Baukarte 5 Stadt 3 Hochhausteil 2",
        "Karte 5 Stadt 3 Stockwerke 2",
        "Karte 5 Stadt 3 Stockwerk 2",
        "Karte 5 Stadt 3 Teil 2",
        "setzen Karte 5 Stadt 3 Größe 2",
        # Dutch
        "kaart 5 stad 3 grootte 2",
        "bouwkaart 5 stadsdeel 3 verdiepingen 2",
        "kaart 5 stad 3 verdieping 2",
        "plaats 5 3 2",
        # French, accents optional
        "carte 5 ville 3 taille 2",
        "carte 5 ville 3 étages 2",
        "carte 5 ville 3 etages 2",
        "carte 5 ville 3 étage 2",
        "Carte 5, Ville 3, Étages 2.",
        "placer carte 5 ville 3 taille 2",
        # Korean, with and without spaces
        "카드 5 도시 3 크기 2",
        "카드5 도시3 크기2",
        "카드5도시3크기2",
        "빌딩카드 5 구역 3 층 2",
        "빌딩카드5 구역3 층2",
        "크기2 카드5 도시3",
        # mixed, as a reply might be
        "Karte 5 city 3 taille 2",
    ],
)
def test_placement_words_of_every_language(text):
    assert parse_action(text) == MOVE


@pytest.mark.parametrize(
    ("word", "colour"),
    [
        *[(w, RED) for w in ("rot", "Rote", "rood", "rode", "rouge", "빨강", "빨간색", "빨간")],
        *[(w, BLUE) for w in ("blau", "blauw", "bleu", "bleue", "파랑", "파란색")],
        *[(w, GREEN) for w in ("grün", "GRÜN", "gruen", "groen", "vert", "verte", "초록", "초록색", "녹색")],
        *[(w, YELLOW) for w in ("gelb", "geel", "jaune", "노랑", "노란색")],
    ],
)
def test_colour_names_of_every_language(word, colour):
    assert parse_action(f"5 3 2 {word}") == PlacePiece(4, 2, 2, colour=colour)
    assert parse_action(f"select {word} 1 1 2 3") == SelectPieces((1, 1, 2, 3), colour=colour)


def test_korean_colour_without_spaces():
    assert parse_action("카드5도시3크기2초록") == PlacePiece(4, 2, 2, colour=GREEN)


@pytest.mark.parametrize(
    "verb",
    ["wählen", "WÄHLEN", "wahlen", "auswählen", "kiezen", "kies", "choisir", "sélectionner", "selectionner", "선택"],
)
def test_select_verbs_of_every_language(verb):
    assert parse_action(f"{verb} 1 1 2 3 4 4") == SelectPieces((1, 1, 2, 3, 4, 4))
    assert parse_action(f"{verb}112344") == SelectPieces((1, 1, 2, 3, 4, 4))


@pytest.mark.parametrize("verb", ["aufgeben", "Aufgeben", "opgeven", "abandonner", "포기", "기권"])
def test_resign_verbs_of_every_language(verb):
    assert parse_action(verb) == Resign()
    with pytest.raises(NotationError):
        parse_action(f"{verb} 5")


@pytest.mark.parametrize(
    ("text", "token"),
    [
        ("card ² city 1 size 1", "²"),
        ("card ④ city 1 size 1", "④"),
        ("card ٣ city 1 size 1", "٣"),
        ("card ５ city 1 size 1", "５"),
        ("select 1 1 ² 3", "²"),
        ("카드٣ 도시3 크기2", "٣"),
        ("k5² c3 s2", "²"),
    ],
)
def test_only_ascii_digits_are_numbers(text, token):
    with pytest.raises(NotationError) as caught:
        parse_action(text)
    error = caught.value
    assert error.code == "bad_notation"
    assert error.message_id == "not_ascii_digit"
    assert error.token == token
    assert text[error.position : error.position + len(token)] == token
    assert error.params == {"token": token, "column": error.position + 1}


@pytest.mark.parametrize(
    "text",
    [
        "card 10 city 3 size 2",
        "hello 5 3 2",
        "card 5 card 6 city 3 size 2",
        "card city 3 size 2",
        "5 3",
        "5 3 2 red blue",
        "card 5 city 3",
        "select 1 1 5",
        "select",
        "resign now",
        "",
        "card 5 city 3 size 1" + "0" * 5000,
    ],
)
def test_notation_errors_carry_their_template_and_params(text):
    with pytest.raises(NotationError) as caught:
        parse_action(text)
    error = caught.value
    assert error.code == "bad_notation"
    assert error.message == NOTATION_MESSAGES[error.message_id].format(**error.params)
    assert error.as_dict()["params"] == error.params
    assert isinstance(error, ValueError)  # callers catch it as one


def test_no_word_has_two_meanings():
    for table in (PARTS, VERBS, COLOURS):
        assert all(key == word_key(key) for key in table)
    assert not set(PARTS) & set(VERBS)
    assert not set(PARTS) & set(COLOURS)
    assert not set(VERBS) & set(COLOURS)
    for words in CANONICAL.values():
        assert PARTS[word_key(words.card)] == "card"
        assert PARTS[word_key(words.city)] == "city"
        assert PARTS[word_key(words.size)] == "size"
        assert VERBS[word_key(words.select)] == "select"
        assert VERBS[word_key(words.resign)] == "resign"
        assert [COLOURS[word_key(name)] for name in words.colours] == [RED, BLUE, GREEN, YELLOW]


NOTATION_DOC = (Path(__file__).resolve().parents[2] / "docs" / "notation.md").read_text()


def doc_words(first_cell: str) -> list[str]:
    """The words in backticks on the docs' table row that starts with ``first_cell``."""
    row = next(line for line in NOTATION_DOC.splitlines() if line.startswith(f"| {first_cell} |"))
    return re.findall(r"`([^`]+)`", row)


@pytest.mark.parametrize("part", ["card", "city", "size"])
def test_every_word_the_docs_list_for_a_part_is_read(part):
    words = doc_words(part)
    assert len(words) >= 8
    for word in words:
        assert PARTS[word_key(word)] == part, word


@pytest.mark.parametrize(("name", "colour"), [("red", RED), ("blue", BLUE), ("green", GREEN), ("yellow", YELLOW)])
def test_every_colour_word_the_docs_list_is_read(name, colour):
    words = doc_words(name)
    assert len(words) >= 8
    for word in words:
        assert COLOURS[word_key(word)] == colour, word
