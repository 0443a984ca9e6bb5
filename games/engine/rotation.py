"""R6: which lot of a city a card names, seen from each side of the board."""

from .constants import CARD_POSITIONS


def _rotate(position: int, side: int) -> int:
    row, col = divmod(position, 3)
    if side == 0:  # south: as printed
        r, c = row, col
    elif side == 1:  # west
        r, c = col, 2 - row
    elif side == 2:  # north
        r, c = 2 - row, 2 - col
    else:  # east
        r, c = 2 - col, row
    return 3 * r + c


CARD_TO_LOT: tuple[tuple[int, ...], ...] = tuple(
    tuple(_rotate(card, side) for card in range(CARD_POSITIONS)) for side in range(4)
)
"""``CARD_TO_LOT[side][card]``: the lot (0–8, row-major from the south) a card names."""

LOT_TO_CARD: tuple[tuple[int, ...], ...] = tuple(
    tuple(row.index(lot) for lot in range(CARD_POSITIONS)) for row in CARD_TO_LOT
)
"""The inverse: the card a player on ``side`` needs to build on ``lot``."""


CARD_INDEXES: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(city * 9 + CARD_TO_LOT[side][card] for city in range(6)) for card in range(CARD_POSITIONS))
    for side in range(4)
)
"""``CARD_INDEXES[side][card]``: the board indexes (``city * 9 + lot``) of the six lots a card names."""
