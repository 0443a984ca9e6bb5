"""Legal actions for the seat to act, in the shapes clients need.

Selection is described (the reserve and how many to pick) rather than
enumerated, since a client picks sizes one by one; placements are listed
and grouped by card so a UI can show "this card can build here".
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import combinations_with_replacement
from typing import Any

from .actions import Action, PlacePiece, Resign, SelectPieces
from .constants import COLOUR_NAMES
from .rules import Placement, legal_placements
from .state import PLACEMENT, SELECTION
from .views import PlayerView


@dataclass(frozen=True, slots=True)
class SelectionChoice:
    """R9: pick ``count`` pieces for ``colour`` from ``reserve`` (counts by size)."""

    colour: int
    count: int
    reserve: tuple[int, int, int, int]


@dataclass(frozen=True, slots=True)
class LegalActions:
    seat: int
    phase: str
    my_turn: bool
    selection: SelectionChoice | None = None
    placements: list[Placement] = field(default_factory=list)

    def placement_actions(self, *, two_colours: bool) -> list[PlacePiece]:
        """Placements as actions; the colour is named only for a two-colour player."""
        return [
            PlacePiece(card=p.card, city=p.city, size=p.size, colour=p.colour if two_colours else None)
            for p in self.placements
        ]

    def to_json(self) -> dict[str, Any]:
        by_card: dict[int, list[dict[str, Any]]] = {}
        for p in self.placements:
            by_card.setdefault(p.card + 1, []).append(
                {"city": p.city + 1, "lot": p.lot + 1, "size": p.size, "colour": COLOUR_NAMES[p.colour]}
            )
        sel = self.selection
        return {
            "seat": self.seat,
            "phase": self.phase,
            "my_turn": self.my_turn,
            "selection": None
            if sel is None
            else {
                "colour": COLOUR_NAMES[sel.colour],
                "count": sel.count,
                "reserve": {str(s): sel.reserve[s - 1] for s in (1, 2, 3, 4)},
            },
            "placements": [{"card": card, "options": opts} for card, opts in sorted(by_card.items())],
            "can_resign": self.phase in (SELECTION, PLACEMENT),
        }


def legal_actions(view: PlayerView) -> LegalActions:
    """What the viewing seat may do now, from its own view (no secrets needed)."""
    seat = view.seat
    if seat is None:
        raise ValueError("a spectator has no actions")
    phase = view.phase
    if view.to_act != seat or view.resigned[seat]:
        return LegalActions(seat=seat, phase=phase, my_turn=False)
    if phase == PLACEMENT:  # the usual question, asked first
        assert view.hand is not None
        selection = view.selection
        selections = {c: selection[c] for c in view.colours[seat]}
        placements = legal_placements(view.board, view.hand, view.sides[seat], selections)
        return LegalActions(seat=seat, phase=phase, my_turn=True, placements=placements)
    colour = view.selecting_colour
    if phase == SELECTION and colour is not None:
        reserve = view.reserve[colour]
        choice = SelectionChoice(
            colour=colour,
            count=view.options.pieces_per_round,
            reserve=(reserve[0], reserve[1], reserve[2], reserve[3]),
        )
        return LegalActions(seat=seat, phase=phase, my_turn=True, selection=choice)
    return LegalActions(seat=seat, phase=phase, my_turn=False)


def all_selections(choice: SelectionChoice) -> Iterator[tuple[int, ...]]:
    """Every distinct legal selection (multiset of sizes) for ``choice``."""
    for combo in combinations_with_replacement((1, 2, 3, 4), choice.count):
        if all(combo.count(s) <= choice.reserve[s - 1] for s in (1, 2, 3, 4)):
            yield combo


def enumerate_actions(view: PlayerView) -> list[Action]:
    """Every legal action of the viewing seat as action objects (tests, bots, tools)."""
    legal = legal_actions(view)
    if not legal.my_turn:
        return []
    actions: list[Action] = []
    assert view.seat is not None
    two_colours = len(view.colours[view.seat]) > 1
    if legal.selection is not None:
        colour = legal.selection.colour if two_colours else None
        actions.extend(SelectPieces(pieces=p, colour=colour) for p in all_selections(legal.selection))
    actions.extend(legal.placement_actions(two_colours=two_colours))
    actions.append(Resign())
    return actions
