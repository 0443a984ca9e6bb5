"""A short text notation for actions, for email replies and the command line.

Written for someone typing on a phone: case, spacing, accents and punctuation
do not matter, words can be abbreviated, the parts of a placement may come
in any order, and the words of the five languages the emails use are all
understood (``notation_words.py``). ``format_action`` writes the canonical
form, in a language if asked; ``parse_action(format_action(a, language=L)) == a``.
See docs/notation.md for the full description with examples.

    card 5 city 3 size 2        place a 2-storey piece with card 5 in city 3
    Karte 5 Stadt 3 Größe 2     the same in German (카드5 도시3 크기2 in Korean)
    5 3 2                       the same, as three bare numbers: card, city, size
    k5 c3 s2 green              a two-colour player names the colour
    select 1 1 2 3 4 4          choose this round's pieces (or: select 112344)
    resign

Only the ASCII digits 0-9 are numbers: ``²``, ``④`` or Arabic-Indic digits are
refused with a ``NotationError``, like every other text that cannot be read.
"""

from __future__ import annotations

import re
from typing import NamedTuple, NoReturn

from .actions import Action, PlacePiece, Resign, SelectPieces, UndoLastPlacement
from .errors import unreadable
from .notation_words import CANONICAL, COLOURS, LANGUAGES, PARTS, VERBS, word_key

# A number is ASCII digits; a word is letters (of any script, but not digits of any kind).
_TOKEN = re.compile(r"[0-9]+|[^\W\d_]+|\S")
_SEPARATORS = frozenset(",;:.#/-()!?'\"=")
_RANGES = {"card": (1, 9), "city": (1, 6), "size": (1, 4)}


class _Token(NamedTuple):
    word: str  # lower-cased as written, for error messages
    key: str  # as looked up (notation_words.word_key); digits as written
    start: int
    end: int

    @property
    def is_number(self) -> bool:
        return "0" <= self.word[0] <= "9"


def format_action(action: Action, language: str = "en") -> str:
    """The canonical notation of ``action`` (1-based card and city), in ``language``.

    ``language`` is one of ``notation_words.LANGUAGES`` (en, de, nl, fr, ko),
    or a tag such as ``de-AT``; any other gives English. The operator's undo
    is written in English in every language.
    """
    words = CANONICAL[_language(language)]
    if isinstance(action, PlacePiece):
        text = f"{words.card} {action.card + 1} {words.city} {action.city + 1} {words.size} {action.size}"
        return text if action.colour is None else f"{text} {words.colours[action.colour]}"
    if isinstance(action, SelectPieces):
        colour = "" if action.colour is None else f" {words.colours[action.colour]}"
        return f"{words.select}{colour} " + " ".join(str(p) for p in action.pieces)
    if isinstance(action, Resign):
        return words.resign
    return f"undo {action.reason}".rstrip()


def _language(language: object) -> str:
    if isinstance(language, str):
        primary = language.strip().lower().replace("_", "-").split("-")[0]
        if primary in LANGUAGES:
            return primary
    return "en"


def parse_action(text: str) -> Action:
    """Read one action written in notation; a ``NotationError`` points at the wrong token."""
    if not isinstance(text, str):
        raise unreadable("not_text", text=str(type(text).__name__), position=0)
    tokens = _tokens(text)
    if not tokens:
        raise unreadable("empty", text=text, position=0)
    first = tokens[0]
    verb = VERBS.get(first.key)
    if verb == "undo":
        return UndoLastPlacement(reason=text[first.end :].strip(" :-"))
    if verb == "resign":
        if len(tokens) > 1:
            _fail(text, tokens[1], "resign_alone")
        return Resign()
    if verb == "select":
        return _parse_selection(text, tokens[1:])
    if verb == "place":
        tokens = tokens[1:]
    return _parse_placement(text, tokens)


def _tokens(text: str) -> list[_Token]:
    tokens = []
    for match in _TOKEN.finditer(text):
        word = match.group()
        if word in _SEPARATORS:
            continue
        token = _Token(word.lower(), word if "0" <= word[0] <= "9" else word_key(word), match.start(), match.end())
        if not token.is_number and any(ch.isnumeric() for ch in word):
            _fail(text, token, "not_ascii_digit")
        tokens.append(token)
    return tokens


def _fail(text: str, token: _Token, message_id: str, **params: int | str) -> NoReturn:
    raise unreadable(message_id, text=text, position=token.start, token=token.word, **params)


def _parse_selection(text: str, tokens: list[_Token]) -> SelectPieces:
    pieces: list[int] = []
    colour: int | None = None
    for token in tokens:
        if token.is_number:
            for offset, digit in enumerate(token.word):
                if digit not in "1234":
                    at = token.start + offset
                    _fail(text, _Token(digit, digit, at, at + 1), "selection_size")
                pieces.append(int(digit))
        elif token.key in COLOURS and colour is None:
            colour = COLOURS[token.key]
        else:
            _fail(text, token, "selection_word")
    if not pieces:
        raise unreadable("selection_empty", text=text, position=len(text))
    return SelectPieces(pieces=tuple(pieces), colour=colour)


def _parse_placement(text: str, tokens: list[_Token]) -> PlacePiece:
    values: dict[str, int] = {}
    bare: list[_Token] = []
    colour: int | None = None
    i = 0
    while i < len(tokens):
        token = tokens[i]
        part = PARTS.get(token.key)
        if part is not None:
            if part in values:
                _fail(text, token, "given_twice", part=part)
            if i + 1 >= len(tokens) or not tokens[i + 1].is_number:
                _fail(text, token, "number_expected", word=token.word)
            values[part] = _number(text, tokens[i + 1], part)
            i += 2
            continue
        if token.key in COLOURS:
            if colour is not None:
                _fail(text, token, "colour_twice")
            colour = COLOURS[token.key]
        elif token.is_number:
            bare.append(token)
        else:
            _fail(text, token, "unknown_word")
        i += 1
    if bare:
        if values or len(bare) != 3:
            _fail(text, bare[0], "ambiguous_numbers")
        for part, token in zip(("card", "city", "size"), bare, strict=True):
            values[part] = _number(text, token, part)
    for part in ("card", "city", "size"):
        if part not in values:
            raise unreadable("missing_part", text=text, position=len(text), part=part)
    return PlacePiece(card=values["card"] - 1, city=values["city"] - 1, size=values["size"], colour=colour)


def _number(text: str, token: _Token, part: str) -> int:
    lo, hi = _RANGES[part]
    digits = token.word.lstrip("0") or "0"
    # A long run of digits is out of range without converting it (int() refuses over 4,300 digits).
    value = int(digits) if len(digits) <= 3 else hi + 1
    if not lo <= value <= hi:
        _fail(text, token, "out_of_range", part=part, lo=lo, hi=hi)
    return value
