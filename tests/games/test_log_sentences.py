"""The log in words (games/presentation/log.py): one event of each type, and each variant
a describer has, in all five languages, held to the sentences in log_sentences.json.

Those were written by the log before its describers were split into a table (issue 24),
and reviewed; when a sentence changes on purpose, regenerate them with
``WRITE_LOG_SENTENCES=1 pytest tests/games/test_log_sentences.py`` and review the diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.utils import translation

from games.engine.events import EVENT_TYPES
from games.presentation.log import DESCRIBERS, describe_event, log_lines

EXPECTED = Path(__file__).with_name("log_sentences.json")
NAMES = {0: "Alice", 1: "Bob"}
LANGUAGES = [code for code, _name in settings.LANGUAGES]

CASES: dict[str, dict[str, Any]] = {
    "game_created": {"type": "game_created", "start_player": 1},
    "game_created, a seat without a name": {"type": "game_created", "start_player": 3},
    "pieces_selected": {"type": "pieces_selected", "player": 1, "colour": "blue", "pieces": [1, 1, 2, 3, 4, 4]},
    "pieces_selected, colour by index": {"type": "pieces_selected", "player": 0, "colour": 2, "pieces": [4]},
    "piece_placed, one storey": {
        "type": "piece_placed",
        "player": 0,
        "colour": "red",
        "size": 1,
        "card": 4,
        "city": 2,
        "lot": 0,
    },
    "piece_placed, drew and reshuffled": {
        "type": "piece_placed",
        "player": 1,
        "colour": "yellow",
        "size": 3,
        "card": 8,
        "city": 5,
        "lot": 8,
        "drew": 6,
        "reshuffled": True,
    },
    "piece_placed, another's draw hidden": {
        "type": "piece_placed",
        "player": 1,
        "colour": "green",
        "size": 2,
        "card": 0,
        "city": 0,
        "lot": 3,
        "drew": None,
    },
    "hand_redrawn": {"type": "hand_redrawn", "player": 1},
    "hand_redrawn, drew and reshuffled": {"type": "hand_redrawn", "player": 0, "drew": [0, 3, 8], "reshuffled": True},
    "piece_lost, one storey": {"type": "piece_lost", "player": 0, "colour": "red", "size": 1},
    "piece_lost, storeys": {"type": "piece_lost", "player": 1, "colour": "blue", "size": 4},
    "round_scored": {"type": "round_scored", "round": 2, "points": {"red": 5, "blue": 0, "green": 12}},
    "round_started": {"type": "round_started", "round": 3, "start_player": 0},
    "game_finished, no winner": {"type": "game_finished", "winners": []},
    "game_finished, one winner": {"type": "game_finished", "winners": [1]},
    "game_finished, two winners": {"type": "game_finished", "winners": [0, 1]},
    "player_resigned": {"type": "player_resigned", "player": 1},
    "placement_undone": {
        "type": "placement_undone",
        "player": 0,
        "card": 2,
        "city": 1,
        "reason": "misclick reported by email",
    },
    "placement_undone, no reason": {"type": "placement_undone", "player": 1, "card": 0, "city": 5, "reason": ""},
    "an event this log does not know": {"type": "market_crashed", "player": 0},
}


def sentences() -> dict[str, dict[str, list[str]]]:
    out: dict[str, dict[str, list[str]]] = {}
    for language in LANGUAGES:
        with translation.override(language):
            out[language] = {case: describe_event(event, NAMES) for case, event in CASES.items()}
    return out


def test_every_event_type_has_a_describer_and_a_case():
    assert set(DESCRIBERS) == set(EVENT_TYPES)
    assert set(EVENT_TYPES) <= {event["type"] for event in CASES.values()}


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_event_reads_as_before(language):
    if os.environ.get("WRITE_LOG_SENTENCES"):
        EXPECTED.write_text(json.dumps(sentences(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    expected = json.loads(EXPECTED.read_text(encoding="utf-8"))[language]
    with translation.override(language):
        actual = {case: describe_event(event, NAMES) for case, event in CASES.items()}
    assert actual == expected


def test_log_lines_number_newest_first_and_mark_the_readers_own():
    events = [CASES["game_created"], CASES["pieces_selected"], CASES["piece_placed, one storey"]]
    with translation.override("en"):
        lines = log_lines(events, 7, NAMES, seat=1)
    assert [line.seq for line in lines] == [9, 8, 7]
    assert [line.mine for line in lines] == [False, True, False]
    assert lines[0].lines == describe_event(events[2], NAMES)
