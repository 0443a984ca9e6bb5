"""Fixed facts of the game's components (R1–R3, R5) and the engine's versions."""

from typing import Final

ENGINE_VERSION: Final = "1.0.0"
"""Recorded in every game's creation event, so old logs can be told apart."""

EVENT_SCHEMA_VERSION: Final = 1
"""The ``v`` field of every event; bump it when an event's payload changes shape."""

RULESET: Final = "manhattan"
"""Which ruleset folds a log; the only one so far (see RULES.md, seed 004)."""

CITIES: Final = 6
LOTS_PER_CITY: Final = 9
BOARD_LOTS: Final = CITIES * LOTS_PER_CITY
CARD_POSITIONS: Final = 9

PIECE_SIZES: Final = (1, 2, 3, 4)
PIECES_PER_SIZE: Final = (11, 6, 4, 3)
"""R2: how many pieces of height 1, 2, 3 and 4 each colour owns (24 pieces, 47 storeys)."""
PIECES_PER_COLOUR: Final = sum(PIECES_PER_SIZE)

HAND_SIZE: Final = 4
COLOUR_NAMES: Final = ("red", "blue", "green", "yellow")
SIDE_NAMES: Final = ("S", "W", "N", "E")
"""R5: sides in clockwise order; a side's index is its number of quarter turns from south."""

DEFAULT_SIDES: Final = {2: (0, 2), 3: (0, 1, 2), 4: (0, 1, 2, 3)}
"""R5 [decision]: 2 players face to face, 3 players S, W, N, 4 players all sides."""

DEFAULT_COLOURS: Final = {
    2: ((0, 2), (1, 3)),
    3: ((0,), (1,), (2,)),
    4: ((0,), (1,), (2,), (3,)),
}
"""Colour indexes played by each seat; two per seat in the two-player game (R15)."""

TALLEST_POINTS: Final = 3
MAJORITY_POINTS: Final = 2
BUILDING_POINTS: Final = 1
