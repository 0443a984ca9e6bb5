"""A short text notation for actions, for email replies and the command line.

Written for someone typing on a phone: case, spacing and punctuation do not
matter, words can be abbreviated, and the parts of a placement may come in
any order. ``format`` writes the canonical form; ``parse(format(a)) == a``.
See docs/notation.md for the full description with examples.

    card 5 city 3 size 2        place a 2-storey piece with card 5 in city 3
    5 3 2                       the same, as three bare numbers: card, city, size
    k5 c3 s2 green              a two-colour player names the colour
    select 1 1 2 3 4 4          choose this round's pieces (or: select 112344)
    resign
"""

from __future__ import annotations

import re
from typing import NoReturn

from .actions import Action, PlacePiece, Resign, SelectPieces, UndoLastPlacement
from .constants import COLOUR_NAMES
from .errors import NotationError

_TOKEN = re.compile(r"[^\W\d_]+|\d+|\S")
_SEPARATORS = set(",;:.#/-()!?'\"=")

_FIELDS = {
    "card": "card", "cards": "card", "k": "card", "crd": "card", "kaart": "card", "karte": "card",
    "carte": "card",
    "city": "city", "cty": "city", "town": "city", "block": "city", "stad": "city", "stadt": "city",
    "ville": "city", "c": "city",
    "size": "size", "s": "size", "piece": "size", "height": "size", "storeys": "size", "storey": "size",
    "floors": "size", "floor": "size", "sz": "size",
}  # fmt: skip
_RANGES = {"card": (1, 9), "city": (1, 6), "size": (1, 4)}
_PLACE_WORDS = {"place", "play", "build", "p"}
_SELECT_WORDS = {"select", "sel", "take", "pick", "choose"}
_RESIGN_WORDS = {"resign", "concede", "quit"}
_UNDO_WORDS = {"undo"}
_COLOURS = {name: i for i, name in enumerate(COLOUR_NAMES)} | {
    "r": 0, "b": 1, "g": 2, "y": 3, "rot": 0, "blau": 1, "gruen": 2, "grün": 2, "gelb": 3,
    "rood": 0, "blauw": 1, "groen": 2, "geel": 3, "rouge": 0, "bleu": 1, "vert": 2, "jaune": 3,
}  # fmt: skip


def format_action(action: Action) -> str:
    """The canonical notation of ``action`` (1-based card and city)."""
    if isinstance(action, PlacePiece):
        text = f"card {action.card + 1} city {action.city + 1} size {action.size}"
        return text if action.colour is None else f"{text} {COLOUR_NAMES[action.colour]}"
    if isinstance(action, SelectPieces):
        colour = "" if action.colour is None else f" {COLOUR_NAMES[action.colour]}"
        return f"select{colour} " + " ".join(str(p) for p in action.pieces)
    if isinstance(action, Resign):
        return "resign"
    return f"undo {action.reason}".rstrip()


def parse_action(text: str) -> Action:
    """Read one action written in notation; a ``NotationError`` points at the wrong token."""
    tokens = [(m.group().lower(), m.start()) for m in _TOKEN.finditer(text)]
    tokens = [(t, pos) for t, pos in tokens if t not in _SEPARATORS]
    if not tokens:
        raise NotationError("The move is empty: write e.g. 'card 5 city 3 size 2'.", text=text, position=0, token="")
    word, pos = tokens[0]
    if word in _UNDO_WORDS:
        return UndoLastPlacement(reason=text[pos + len(word) :].strip(" :-"))
    if word in _RESIGN_WORDS:
        if len(tokens) > 1:
            _fail(text, tokens[1], "'resign' takes nothing after it")
        return Resign()
    if word in _SELECT_WORDS:
        return _parse_selection(text, tokens[1:])
    if word in _PLACE_WORDS:
        tokens = tokens[1:]
    return _parse_placement(text, tokens)


def _fail(text: str, token: tuple[str, int], message: str) -> NoReturn:
    word, pos = token
    raise NotationError(f"{message} (at '{word}', column {pos + 1}).", text=text, position=pos, token=word)


def _parse_selection(text: str, tokens: list[tuple[str, int]]) -> SelectPieces:
    pieces: list[int] = []
    colour: int | None = None
    for word, pos in tokens:
        if word.isdigit():
            for offset, digit in enumerate(word):
                if digit not in "1234":
                    _fail(text, (digit, pos + offset), "pieces have sizes 1 to 4")
                pieces.append(int(digit))
        elif word in _COLOURS and colour is None:
            colour = _COLOURS[word]
        else:
            _fail(text, (word, pos), "expected piece sizes such as 'select 1 1 2 3 4 4'")
    if not pieces:
        raise NotationError(
            "Say which pieces to select, e.g. 'select 1 1 2 3 4 4'.", text=text, position=len(text), token=""
        )
    return SelectPieces(pieces=tuple(pieces), colour=colour)


def _parse_placement(text: str, tokens: list[tuple[str, int]]) -> PlacePiece:
    values: dict[str, int] = {}
    bare: list[tuple[str, int]] = []
    colour: int | None = None
    i = 0
    while i < len(tokens):
        word, pos = tokens[i]
        if word in _FIELDS:
            field = _FIELDS[word]
            if field in values:
                _fail(text, (word, pos), f"{field} is given twice")
            if i + 1 >= len(tokens) or not tokens[i + 1][0].isdigit():
                _fail(text, (word, pos), f"expected a number after '{word}'")
            values[field] = _number(text, tokens[i + 1], field)
            i += 2
            continue
        if word in _COLOURS:
            if colour is not None:
                _fail(text, (word, pos), "the colour is given twice")
            colour = _COLOURS[word]
        elif word.isdigit():
            bare.append((word, pos))
        else:
            _fail(text, (word, pos), "unknown word; write e.g. 'card 5 city 3 size 2'")
        i += 1
    if bare:
        if values or len(bare) != 3:
            _fail(text, bare[0], "a bare number is ambiguous: write 'card N city N size N', or just three numbers")
        for field, token in zip(("card", "city", "size"), bare, strict=True):
            values[field] = _number(text, token, field)
    for field in ("card", "city", "size"):
        if field not in values:
            raise NotationError(
                f"The move has no {field}: write e.g. 'card 5 city 3 size 2'.",
                text=text,
                position=len(text),
                token="",
            )
    return PlacePiece(card=values["card"] - 1, city=values["city"] - 1, size=values["size"], colour=colour)


def _number(text: str, token: tuple[str, int], field: str) -> int:
    lo, hi = _RANGES[field]
    value = int(token[0])
    if not lo <= value <= hi:
        _fail(text, token, f"{field} must be from {lo} to {hi}")
    return value
