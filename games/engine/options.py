"""The choices made when a game is created, and their validation."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .constants import PIECES_PER_COLOUR
from .errors import RuleError


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
        if not isinstance(self.players, int) or self.players not in (2, 3, 4):
            raise RuleError("bad_option", "R7: Manhattan is played by 2, 3 or 4 players.", rule="R7")
        if not isinstance(self.copies_per_position, int) or not 2 <= self.copies_per_position <= 12:
            raise RuleError(
                "bad_option",
                "R3: copies_per_position must be a whole number from 2 to 12 (5 gives the 45-card deck).",
                rule="R3",
            )
        if self.sides is not None:
            sides = tuple(self.sides)
            if (
                len(sides) != self.players
                or len(set(sides)) != len(sides)
                or not all(isinstance(s, int) and 0 <= s <= 3 for s in sides)
            ):
                raise RuleError(
                    "bad_option",
                    "R5: sides must give each player a different side of the board (S, W, N or E).",
                    rule="R5",
                )
            object.__setattr__(self, "sides", sides)
        if self.start_player is not None and (
            not isinstance(self.start_player, int) or not 0 <= self.start_player < self.players
        ):
            raise RuleError("bad_option", "R8: the start player must be one of the seats.", rule="R8")

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
    def from_json(cls, data: dict[str, Any]) -> GameOptions:
        known = {"players", "six_rounds", "copies_per_position", "sides", "start_player"}
        unknown = set(data) - known
        if unknown:
            raise RuleError("bad_option", f"Unknown option(s): {', '.join(sorted(unknown))}.")
        sides = data.get("sides")
        six_rounds = data.get("six_rounds", False)
        if not isinstance(six_rounds, bool):
            raise RuleError("bad_option", "R7: six_rounds must be true or false.", rule="R7")
        if sides is not None and not isinstance(sides, (list, tuple)):
            raise RuleError("bad_option", "R5: sides must be a list.", rule="R5")
        return cls(
            players=data.get("players", 4),
            six_rounds=six_rounds,
            copies_per_position=data.get("copies_per_position", 5),
            sides=tuple(sides) if sides is not None else None,
            start_player=data.get("start_player"),
        )
