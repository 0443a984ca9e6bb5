"""The words of the move notation, in the five languages the emails use.

Parsing accepts every word of every language at once (a reply may mix them);
writing uses one language's canonical words. Words are matched case-folded
and without accents, so ``Größe``, ``GROESSE`` and ``grosse`` are one word and
French accents are optional; see ``word_key``.
"""

from __future__ import annotations

import unicodedata
from typing import Final, NamedTuple

LANGUAGES: Final = ("en", "de", "nl", "fr", "ko")
"""The languages ``format_action`` writes; ``parse_action`` reads them all."""


def word_key(word: str) -> str:
    """How a word is looked up: case-folded (ß is ss) and without accents.

    Decomposing and recomposing leaves Hangul as it was: its syllables
    decompose into letters, not into accents.
    """
    decomposed = unicodedata.normalize("NFD", word.casefold())
    return unicodedata.normalize("NFC", "".join(ch for ch in decomposed if not unicodedata.combining(ch)))


class Canonical(NamedTuple):
    """The words one language writes moves with."""

    card: str
    city: str
    size: str
    select: str
    resign: str
    colours: tuple[str, str, str, str]


CANONICAL: Final[dict[str, Canonical]] = {
    "en": Canonical("card", "city", "size", "select", "resign", ("red", "blue", "green", "yellow")),
    "de": Canonical("Karte", "Stadt", "Größe", "wählen", "aufgeben", ("rot", "blau", "grün", "gelb")),
    "nl": Canonical("kaart", "stad", "grootte", "kies", "opgeven", ("rood", "blauw", "groen", "geel")),
    "fr": Canonical("carte", "ville", "taille", "choisir", "abandonner", ("rouge", "bleu", "vert", "jaune")),
    "ko": Canonical("카드", "도시", "크기", "선택", "포기", ("빨강", "파랑", "초록", "노랑")),
}

_PART_WORDS: Final = {
    "card": (
        "card cards crd k",  # English
        "karte karten baukarte baukarten",  # German
        "kaart kaarten bouwkaart bouwkaarten",  # Dutch
        "carte cartes",  # French
        "카드 빌딩카드",  # Korean
    ),
    "city": (
        "city cty c town block",
        "stadt",
        "stad stadsdeel",
        "ville",
        "도시 구역",
    ),
    "size": (
        "size sz s piece height storey storeys floor floors",
        "größe groesse hochhausteil teil stockwerk stockwerke höhe hoehe",
        "grootte verdieping verdiepingen hoogte",
        "taille étage étages hauteur",
        "크기 층",
    ),
}

_VERBS: Final = {
    "place": "place play build p  setzen setze bauen baue spielen spiele  plaats plaatsen bouw bouwen speel spelen  "
    "placer pose poser construire jouer joue  배치 건설",
    "select": "select sel take pick choose  wählen wähle auswählen auswahl  kies kiezen selecteer selecteren  "
    "choisir choisis sélectionner sélectionne  선택",
    "resign": "resign concede quit  aufgeben  opgeven  abandonner abandon  포기 기권",
    "undo": "undo",
}

_COLOUR_WORDS: Final = (
    "red r  rot rote roter  rood rode  rouge  빨강 빨강색 빨간 빨간색",
    "blue b  blau blaue blauer  blauw blauwe  bleu bleue  파랑 파랑색 파란 파란색",
    "green g  grün gruen grüne grüner  groen groene  vert verte  초록 초록색 녹색",
    "yellow y  gelb gelbe gelber  geel gele  jaune  노랑 노랑색 노란 노란색",
)


def _table(groups: dict[str, str]) -> dict[str, str]:
    table: dict[str, str] = {}
    for meaning, words in groups.items():
        for word in words.split():
            key = word_key(word)
            if table.get(key, meaning) != meaning:
                raise AssertionError(f"the notation word {word!r} means both {table[key]} and {meaning}")
            table[key] = meaning
    return table


PARTS: Final = _table({part: " ".join(words) for part, words in _PART_WORDS.items()})
"""Word key -> the part of a placement it names: card, city or size."""
VERBS: Final = _table(_VERBS)
"""Word key -> what a move's first word makes it: place, select, resign or undo."""
COLOURS: Final = {key: colour for colour, words in enumerate(_COLOUR_WORDS) for key in map(word_key, words.split())}
"""Word key -> colour index (0 red, 1 blue, 2 green, 3 yellow)."""

_clashes = (set(PARTS) & set(COLOURS)) | (set(VERBS) & set(COLOURS)) | (set(PARTS) & set(VERBS))
if _clashes:  # pragma: no cover - a vocabulary mistake, caught on import
    raise AssertionError(f"notation words with two meanings: {sorted(_clashes)}")
