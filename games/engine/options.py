"""The choices made when a game is created, and their validation."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .constants import PIECES_PER_COLOUR
from .errors import refuse


@dataclass(frozen=True, slots=True)
class GameOptions:
    """What a game's creator chooses.

    ``sides`` (R5) and ``start_player`` (R8) are optional: left out, the
    default seating is used and the start player is drawn at random.
    """

    players: int = 4
    six_rounds: bool = False
    copies_per_position: int = 5
    sides: tuple[int, ...] | None = None
    start_player: int | None = None

    def __post_init__(self) -> None:
        # Whole numbers are ints and not bools (True is not a player count), flags are bools.
        if type(self.players) is not int or self.players not in (2, 3, 4):
            raise refuse("option_players")
        if type(self.six_rounds) is not bool:
            raise refuse("option_six_rounds")
        if type(self.copies_per_position) is not int or not 2 <= self.copies_per_position <= 12:
            raise refuse("option_copies")
        if self.sides is not None:
            if not isinstance(self.sides, (tuple, list)):
                raise refuse("option_sides_list")
            sides = tuple(self.sides)
            if (
                len(sides) != self.players
                or not all(type(s) is int and 0 <= s <= 3 for s in sides)
                or len(set(sides)) != len(sides)
            ):
                raise refuse("option_sides")
            object.__setattr__(self, "sides", sides)
        if self.start_player is not None and (
            type(self.start_player) is not int or not 0 <= self.start_player < self.players
        ):
            raise refuse("option_start_player")

    @property
    def rounds(self) -> int:
        """R7: four rounds for four players, six otherwise or with ``six_rounds``."""
        return 4 if self.players == 4 and not self.six_rounds else 6

    @property
    def pieces_per_round(self) -> int:
        return PIECES_PER_COLOUR // self.rounds

    @property
    def deck_size(self) -> int:
        return 9 * self.copies_per_position

    def to_json(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "six_rounds": self.six_rounds,
            "copies_per_position": self.copies_per_position,
            "sides": list(self.sides) if self.sides is not None else None,
            "start_player": self.start_player,
        }

    @classmethod
    def from_json(cls, data: Any) -> GameOptions:
        """Options from their JSON form; anything else is refused with a ``RuleError``."""
        if not isinstance(data, dict):
            raise refuse("options_not_object")
        known = {"players", "six_rounds", "copies_per_position", "sides", "start_player"}
        unknown = {str(key) for key in data} - known
        if unknown:
            raise refuse("option_unknown", names=", ".join(sorted(unknown)))
        sides = data.get("sides")
        if sides is not None and not isinstance(sides, (list, tuple)):
            raise refuse("option_sides_list")
        return cls(
            players=data.get("players", 4),
            six_rounds=data.get("six_rounds", False),
            copies_per_position=data.get("copies_per_position", 5),
            sides=tuple(sides) if sides is not None else None,
            start_player=data.get("start_player"),
        )
