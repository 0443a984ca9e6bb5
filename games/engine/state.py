"""The state a game's events fold into.

A ``GameState`` is treated as a value: the engine never changes one that it
has handed out. ``apply_event`` copies the containers before changing them
(copy-on-write), and only ``fold`` mutates a private working copy in place,
which is what keeps replaying a whole game fast.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from .constants import BOARD_LOTS, LOTS_PER_CITY
from .options import GameOptions

SELECTION = "selection"
PLACEMENT = "placement"
ROUND_OVER = "round_over"
FINISHED = "finished"


class Building(NamedTuple):
    """One stack of pieces on a lot. Immutable: a placement makes a new one.

    ``storeys[colour]`` counts each colour's storeys wherever they sit in the
    stack (R14); ``owner`` is the colour of the top piece (R13).
    """

    pieces: tuple[tuple[int, int], ...]
    owner: int
    height: int
    storeys: tuple[int, int, int, int]

    def add(self, colour: int, size: int) -> Building:
        storeys = list(self.storeys)
        storeys[colour] += size
        return Building(
            (*self.pieces, (colour, size)),
            colour,
            self.height + size,
            tuple(storeys),  # type: ignore[arg-type]
        )

    def remove_top(self) -> Building | None:
        if len(self.pieces) == 1:
            return None
        colour, size = self.pieces[-1]
        storeys = list(self.storeys)
        storeys[colour] -= size
        rest = self.pieces[:-1]
        return Building(rest, rest[-1][0], self.height - size, tuple(storeys))  # type: ignore[arg-type]

    @staticmethod
    def new(colour: int, size: int) -> Building:
        storeys = [0, 0, 0, 0]
        storeys[colour] = size
        return Building(((colour, size),), colour, size, tuple(storeys))  # type: ignore[arg-type]


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
    board: list[Building | None] = field(default_factory=lambda: [None] * BOARD_LOTS)
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

    def pieces_left(self, colour: int) -> int:
        return sum(self.selection[colour])

    def player_pieces_left(self, player: int) -> int:
        return sum(sum(self.selection[c]) for c in self.colours[player])

    def player_totals(self) -> list[int]:
        """R18: a player's score is the sum of their colours' scores."""
        return [sum(self.scores[c] for c in cs) for cs in self.colours]

    def copy(self) -> GameState:
        """A copy whose containers can be changed without touching this one.

        Buildings are immutable, so the board list is copied shallowly.
        """
        return GameState(
            options=self.options,
            sides=self.sides,
            colours=self.colours,
            colour_player=self.colour_player,
            clockwise=self.clockwise,
            board=list(self.board),
            hands=[list(h) for h in self.hands],
            draw_pile=list(self.draw_pile),
            discards=[list(d) for d in self.discards],
            reserve={c: list(v) for c, v in self.reserve.items()},
            selection={c: list(v) for c, v in self.selection.items()},
            lost=dict(self.lost),
            scores=dict(self.scores),
            round_scores=[dict(r) for r in self.round_scores],
            round=self.round,
            phase=self.phase,
            start_player=self.start_player,
            to_act=self.to_act,
            selection_queue=list(self.selection_queue),
            resigned=list(self.resigned),
            placements=self.placements,
            undoable=self.undoable,
            winners=self.winners,
            engine_version=self.engine_version,
            seq=self.seq,
        )
