"""The state a game's events fold into.

``Building`` lives in ``board.py`` with the flat ``Board``; it is imported
here too, where callers have always found it.

A ``GameState`` is treated as a value: the engine never changes one that it
has handed out. ``apply_event`` copies the containers before changing them
(copy-on-write), and only ``fold`` mutates a private working copy in place,
which is what keeps replaying a whole game fast.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .board import Board, Building
from .constants import LOTS_PER_CITY
from .options import GameOptions

SELECTION = "selection"
PLACEMENT = "placement"
ROUND_OVER = "round_over"
FINISHED = "finished"


def lot_index(city: int, lot: int) -> int:
    """Index into ``GameState.board`` of ``lot`` (0–8) in ``city`` (0–5)."""
    return city * LOTS_PER_CITY + lot


@dataclass(slots=True)
class GameState:
    """Everything about a game, secrets included: never send it to a client.

    Per-player lists are indexed by seat, per-colour lists by colour index
    (0 red, 1 blue, 2 green, 3 yellow). Piece counts are lists of four
    counts, one per height 1–4. The draw pile's top is its last element.
    """

    options: GameOptions
    sides: tuple[int, ...]
    colours: tuple[tuple[int, ...], ...]
    colour_player: dict[int, int]
    clockwise: tuple[int, ...]
    board: Board = field(default_factory=Board)
    hands: list[list[int]] = field(default_factory=list)
    draw_pile: list[int] = field(default_factory=list)
    discards: list[list[int]] = field(default_factory=list)
    reserve: dict[int, list[int]] = field(default_factory=dict)
    selection: dict[int, list[int]] = field(default_factory=dict)
    lost: dict[int, int] = field(default_factory=dict)
    scores: dict[int, int] = field(default_factory=dict)
    round_scores: list[dict[int, int]] = field(default_factory=list)
    round: int = 1
    phase: str = SELECTION
    start_player: int = 0
    to_act: int | None = None
    selection_queue: list[int] = field(default_factory=list)
    resigned: list[bool] = field(default_factory=list)
    placements: int = 0
    undoable: dict[str, object] | None = None
    winners: tuple[int, ...] = ()
    engine_version: str = ""
    seq: int = 0
    seats_after: tuple[tuple[int, ...], ...] = field(default=(), repr=False, compare=False)
    """Derived from ``clockwise``: for each seat, every seat after it clockwise, itself last (R10)."""

    @property
    def players(self) -> int:
        return self.options.players

    @property
    def all_colours(self) -> tuple[int, ...]:
        return tuple(sorted(self.colour_player))

    @property
    def is_finished(self) -> bool:
        return self.phase == FINISHED

    @property
    def selecting_colour(self) -> int | None:
        """During selection, the colour whose pieces are chosen next (R9)."""
        if self.phase != SELECTION or not self.selection_queue:
            return None
        return self.selection_queue[0]

    def player_totals(self) -> list[int]:
        """R18: a player's score is the sum of their colours' scores."""
        return [sum(self.scores[c] for c in cs) for cs in self.colours]

    def copy(self) -> GameState:
        """A copy whose containers can be changed without touching this one.

        Made field by field rather than through ``__init__``: search copies a
        state for every iteration.
        """
        new = GameState.__new__(GameState)
        new.options = self.options
        new.sides = self.sides
        new.colours = self.colours
        new.colour_player = self.colour_player
        new.clockwise = self.clockwise
        new.board = self.board.copy()
        new.hands = [h[:] for h in self.hands]
        new.draw_pile = self.draw_pile[:]
        new.discards = [d[:] for d in self.discards]
        new.reserve = {c: v[:] for c, v in self.reserve.items()}
        new.selection = {c: v[:] for c, v in self.selection.items()}
        new.lost = self.lost.copy()
        new.scores = self.scores.copy()
        new.round_scores = [r.copy() for r in self.round_scores]
        new.round = self.round
        new.phase = self.phase
        new.start_player = self.start_player
        new.to_act = self.to_act
        new.selection_queue = self.selection_queue[:]
        new.resigned = self.resigned[:]
        new.placements = self.placements
        new.undoable = self.undoable
        new.winners = self.winners
        new.engine_version = self.engine_version
        new.seq = self.seq
        new.seats_after = self.seats_after
        return new


__all__ = ["FINISHED", "PLACEMENT", "ROUND_OVER", "SELECTION", "Board", "Building", "GameState", "lot_index"]
