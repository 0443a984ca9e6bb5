"""The Manhattan rules engine: pure Python, no Django, no I/O.

A game is its event log; its state is the fold of the log. Commands are
validated against a state and become events (``decide``/``execute``); every
chance outcome is decided there, with a generator the caller seeds, and
written into the events. Players see the game only through ``player_view``
and ``redact_events``.

What it owns: the rules (R1–R19 of the rulebook) as commands, events and their fold;
legal actions and the notation of moves; the views a seat or a spectator may have; the
bots and the arena (``bots``, ``search``, ``arena``).

Why it is safe: it imports nothing but the standard library, so every rule is the same
for the API, the pages, email replies and the bots, and is tested without a database.
A command is checked against the state before any event is made (a refusal is a
``RuleError`` and changes nothing); chance comes only from the generator its caller
seeds (the seed stays in the server's ``GameSecret``), so a log folds to the same state
every time; and ``views`` is the one place that strips what a seat may not see (other
hands, the draw pile), which the bots use too, so they never peek.
"""

from .actions import (
    Action,
    PlacePiece,
    Resign,
    SelectPieces,
    UndoLastPlacement,
    action_from_json,
    action_to_json,
)
from .commands import check_selection, create_game, decide, execute
from .constants import COLOUR_NAMES, ENGINE_VERSION, EVENT_SCHEMA_VERSION, SIDE_NAMES
from .errors import NotationError, RuleError
from .events import CorruptLog, Event, apply_event, fold, fold_from, initial_state
from .legal import LegalActions, enumerate_actions, legal_actions
from .notation import format_action, parse_action
from .options import GameOptions
from .record import GameNotFinished, game_record
from .rules import Placement, legal_placements, score_board
from .state import FINISHED, PLACEMENT, ROUND_OVER, SELECTION, Building, GameState
from .views import PlayerView, player_view, redact_event, redact_events, spectator_view

__all__ = [
    "COLOUR_NAMES",
    "ENGINE_VERSION",
    "EVENT_SCHEMA_VERSION",
    "FINISHED",
    "PLACEMENT",
    "ROUND_OVER",
    "SELECTION",
    "SIDE_NAMES",
    "Action",
    "Building",
    "CorruptLog",
    "Event",
    "GameNotFinished",
    "GameOptions",
    "GameState",
    "LegalActions",
    "NotationError",
    "PlacePiece",
    "Placement",
    "PlayerView",
    "Resign",
    "RuleError",
    "SelectPieces",
    "UndoLastPlacement",
    "action_from_json",
    "action_to_json",
    "apply_event",
    "check_selection",
    "create_game",
    "decide",
    "enumerate_actions",
    "execute",
    "fold",
    "fold_from",
    "format_action",
    "game_record",
    "initial_state",
    "legal_actions",
    "legal_placements",
    "parse_action",
    "player_view",
    "redact_event",
    "redact_events",
    "score_board",
    "spectator_view",
]
