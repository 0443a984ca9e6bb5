"""What each seat may see: the one place where secrets are stripped.

Every response to a player, every email and every bot goes through
``player_view`` (or ``spectator_view``) and ``redact_events``. Nothing here
ever includes another seat's hand, the draw pile's order, or a reshuffle.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

from .board import Board, Building
from .constants import COLOUR_NAMES, LOTS_PER_CITY, SIDE_NAMES
from .events import GAME_CREATED, HAND_REDRAWN, PIECE_PLACED, PLACEMENT_UNDONE, Event
from .options import GameOptions
from .rules import Placement, legal_placements
from .state import SELECTION, GameState


class PlayerView(NamedTuple):
    """A game as one seat (or a spectator, ``seat is None``) sees it.

    The containers are shared with the state they were taken from and must
    not be changed; ``to_json`` gives an independent, JSON-ready copy. (A
    named tuple rather than a frozen dataclass: bots build one every turn, and
    it is several times cheaper to make.)
    """

    seat: int | None
    options: GameOptions
    sides: tuple[int, ...]
    colours: tuple[tuple[int, ...], ...]
    board: Board
    hand: tuple[int, ...] | None
    hand_sizes: tuple[int, ...]
    discards: tuple[tuple[int, ...], ...]
    draw_pile_size: int
    reserve: dict[int, list[int]]
    selection: dict[int, list[int]]
    lost: dict[int, int]
    scores: dict[int, int]
    round_scores: tuple[dict[int, int], ...]
    round: int
    phase: str
    to_act: int | None
    selecting_colour: int | None
    start_player: int
    resigned: tuple[bool, ...]
    winners: tuple[int, ...]
    version: int

    @property
    def my_turn(self) -> bool:
        return self.seat is not None and self.seat == self.to_act

    def legal_placements(self) -> list[Placement]:
        """The seat's legal placements now (empty unless it is their turn to place)."""
        if self.seat is None or self.hand is None or self.phase != "placement" or not self.my_turn:
            return []
        selections = {c: self.selection[c] for c in self.colours[self.seat]}
        return legal_placements(self.board, self.hand, self.sides[self.seat], selections)

    def to_json(self) -> dict[str, Any]:
        def counts(c: list[int]) -> dict[str, int]:
            return {str(size): c[size - 1] for size in (1, 2, 3, 4)}

        colour_names = [COLOUR_NAMES[c] for c in sorted(self.scores)]
        return {
            "seat": self.seat,
            "options": self.options.to_json(),
            "players": [
                {
                    "seat": p,
                    "side": SIDE_NAMES[self.sides[p]],
                    "colours": [COLOUR_NAMES[c] for c in self.colours[p]],
                    "hand_size": self.hand_sizes[p],
                    "discards": [card + 1 for card in self.discards[p]],
                    "score": sum(self.scores[c] for c in self.colours[p]),
                    "resigned": self.resigned[p],
                }
                for p in range(len(self.sides))
            ],
            "hand": [card + 1 for card in self.hand] if self.hand is not None else None,
            "draw_pile_size": self.draw_pile_size,
            "round": self.round,
            "rounds": self.options.rounds,
            "phase": self.phase,
            "to_act": self.to_act,
            "selecting_colour": COLOUR_NAMES[self.selecting_colour] if self.selecting_colour is not None else None,
            "start_player": self.start_player,
            "colours": {
                COLOUR_NAMES[c]: {
                    "reserve": counts(self.reserve[c]),
                    "selection": counts(self.selection[c]),
                    "lost": self.lost[c],
                    "score": self.scores[c],
                }
                for c in sorted(self.scores)
            },
            "round_scores": [{COLOUR_NAMES[c]: n for c, n in r.items()} for r in self.round_scores],
            "board": [
                [_building_json(self.board[city * LOTS_PER_CITY + lot]) for lot in range(LOTS_PER_CITY)]
                for city in range(6)
            ],
            "colour_names": colour_names,
            "winners": list(self.winners),
            "version": self.version,
        }


def _building_json(building: Building | None) -> dict[str, Any] | None:
    if building is None:
        return None
    return {
        "owner": COLOUR_NAMES[building.owner],
        "height": building.height,
        "pieces": [{"colour": COLOUR_NAMES[c], "size": s} for c, s in building.pieces],
        "storeys": {COLOUR_NAMES[c]: n for c, n in enumerate(building.storeys) if n},
    }


def player_view(state: GameState, seat: int | None) -> PlayerView:
    """What ``seat`` may see of ``state``; ``None`` gives the spectator view.

    The board, reserves, selections, lost pieces and scores are shared, not
    copied: a view is read-only and states are copy-on-write, so they never
    change under it (unless its caller advances the state with
    ``execute(in_place=True)``, and then it must drop its views).
    """
    # Made as a bare tuple, in PlayerView's field order: bots take a view every turn, and the
    # generated ``__new__`` (a Python function of 22 arguments) would cost a third of it.
    phase = state.phase
    queue = state.selection_queue
    return _new_view(
        PlayerView,
        (
            seat,
            state.options,
            state.sides,
            state.colours,
            state.board,
            tuple(state.hands[seat]) if seat is not None else None,
            tuple(map(len, state.hands)),
            tuple(map(tuple, state.discards)),
            len(state.draw_pile),
            state.reserve,
            state.selection,
            state.lost,
            state.scores,
            tuple(state.round_scores),
            state.round,
            phase,
            state.to_act,
            queue[0] if queue and phase == SELECTION else None,  # GameState.selecting_colour
            state.start_player,
            tuple(state.resigned),
            state.winners,
            state.seq,
        ),
    )


_new_view = tuple.__new__


def spectator_view(state: GameState) -> PlayerView:
    """Only public information: no hand at all."""
    return player_view(state, None)


def redact_event(event: Event, seat: int | None) -> Event:
    """``event`` as ``seat`` may see it (``None``: a spectator)."""
    kind = event["type"]
    if kind == GAME_CREATED:
        out = {k: v for k, v in event.items() if k not in ("hands", "draw_pile")}
        out["hands"] = [list(h) if p == seat else None for p, h in enumerate(event["hands"])]
        out["hand_sizes"] = [len(h) for h in event["hands"]]
        out["draw_pile_size"] = len(event["draw_pile"])
        return out
    if kind in (PIECE_PLACED, HAND_REDRAWN, PLACEMENT_UNDONE):
        out = {k: v for k, v in event.items() if k != "reshuffle"}
        if "reshuffle" in event:
            out["reshuffled"] = True
        if event["player"] != seat:
            drew = event["drew"]
            if isinstance(drew, list):
                out["drew"] = None
                out["drew_count"] = len(drew)
            else:
                out["drew"] = None
                out["drew_count"] = 0 if drew is None else 1
        return out
    return dict(event)


def redact_events(events: Iterable[Event], seat: int | None) -> list[Event]:
    """A log as ``seat`` may see it: another player's draw is only "drew a card"."""
    return [redact_event(e, seat) for e in events]
