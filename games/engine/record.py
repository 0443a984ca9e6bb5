"""Export a finished game's log as the JSON game record of shared/RECORD.md.

The record lets anyone check every move and score without this engine, so it
shows what happened, not how the log stored it: 1-based cards, cities and
lots, colour names, and no trace of undone placements.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .constants import COLOUR_NAMES, SIDE_NAMES
from .events import (
    GAME_FINISHED,
    HAND_REDRAWN,
    PIECE_LOST,
    PIECE_PLACED,
    PIECES_SELECTED,
    PLACEMENT_UNDONE,
    PLAYER_RESIGNED,
    ROUND_SCORED,
    ROUND_STARTED,
    Event,
    apply_in_place,
    initial_state,
)
from .state import GameState

RECORD_FORMAT = "manhattan-record/1"


class GameNotFinished(ValueError):
    """Records are made of finished games only: a live record would leak hands."""


def _cards(cards: Iterable[int]) -> list[int]:
    return [c + 1 for c in cards]


def _new_round(state: GameState) -> dict[str, Any]:
    return {
        "round": state.round,
        "start_player": state.start_player,
        "hands_before": [_cards(h) for h in state.hands],
        "selections": [],
        "turns": [],
        "scores": {},
    }


def game_record(events: Iterable[Event]) -> dict[str, Any]:
    """The record of a finished game from its whole log."""
    iterator = iter(events)
    state = initial_state(next(iterator))
    rounds = [_new_round(state)]
    resigned: list[int] = []
    for event in iterator:
        kind = event["type"]
        current = rounds[-1]
        if kind == PIECES_SELECTED:
            current["selections"].append(
                {"player": event["player"], "colour": COLOUR_NAMES[event["colour"]], "pieces": sorted(event["pieces"])}
            )
        elif kind == PIECE_PLACED:
            current["turns"].append(
                {
                    "player": event["player"],
                    "colour": COLOUR_NAMES[event["colour"]],
                    "card": event["card"] + 1,
                    "city": event["city"] + 1,
                    "lot": event["lot"] + 1,
                    "size": event["size"],
                    "drew": event["drew"] + 1 if event["drew"] is not None else None,
                }
            )
        elif kind == PLACEMENT_UNDONE:
            current["turns"].pop()
        elif kind == HAND_REDRAWN:
            current["turns"].append(
                {
                    "player": event["player"],
                    "redraw": {"discarded": _cards(event["discarded"]), "drew": _cards(event["drew"])},
                }
            )
        elif kind == PIECE_LOST:
            current["turns"].append(
                {"player": event["player"], "lost": {"colour": COLOUR_NAMES[event["colour"]], "size": event["size"]}}
            )
        elif kind == ROUND_SCORED:
            current["scores"] = dict(event["points"])
        elif kind == PLAYER_RESIGNED:
            resigned.append(event["player"])
        apply_in_place(state, event)
        if kind == ROUND_STARTED:
            rounds.append(_new_round(state))
        if kind == GAME_FINISHED:
            break
    if not state.is_finished:
        raise GameNotFinished("only a finished game has a record")
    record: dict[str, Any] = {
        "format": RECORD_FORMAT,
        "players": state.players,
        "options": {
            "six_rounds": state.options.six_rounds,
            "copies_per_position": state.options.copies_per_position,
        },
        "sides": [SIDE_NAMES[s] for s in state.sides],
        "colours": [[COLOUR_NAMES[c] for c in cs] for cs in state.colours],
        "rounds": rounds,
        "totals": {COLOUR_NAMES[c]: state.scores[c] for c in state.all_colours},
        "player_totals": state.player_totals(),
        "winners": list(state.winners),
    }
    if resigned:
        record["resigned"] = resigned  # an extension: RECORD.md has no resignations
    return record
