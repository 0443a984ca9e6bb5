"""The board: 54 lots kept as flat arrays, with the scoring (R17) kept up to date.

A placement changes one lot, so everything R17 needs — how many buildings
each colour owns in each city, who leads each city, the tallest height, how
many buildings reach it and who owns the single tallest — is updated in a few
steps instead of being recounted over the board. Scoring a round and judging
a move (bots, search) then cost next to nothing.

Callers that want buildings still get them: a ``Board`` is a read-only
sequence of ``Building | None``, built on demand from the arrays.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import NamedTuple, overload

from .constants import BOARD_LOTS, BUILDING_POINTS, CITIES, LOTS_PER_CITY, MAJORITY_POINTS, TALLEST_POINTS

COLOURS = 4
NOBODY = -1
"""The owner of an empty lot, and the leader of a city or the tallest building that nobody holds alone."""

CITY_OF: tuple[int, ...] = tuple(index // LOTS_PER_CITY for index in range(BOARD_LOTS))


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


EMPTY_STACK = 1
"""A lot's pieces are packed in one int, 4 bits a piece (colour * 4 + size - 1) above a
leading 1 bit: placing is a shift and an or, where a tuple would be three allocations."""


def _stack_pieces(stack: int) -> tuple[tuple[int, int], ...]:
    pieces = []
    while stack > EMPTY_STACK:
        pieces.append(((stack & 15) >> 2, (stack & 3) + 1))
        stack >>= 4
    return tuple(reversed(pieces))


class Board(Sequence[Building | None]):
    """The 54 lots (index ``city * 9 + lot``) as flat arrays.

    Per lot: ``owner`` (``NOBODY`` when empty), ``height``,
    ``storeys[index * 4 + colour]`` and the pieces, packed in ``stacks``.

    The counts R17 needs are kept from their first use on (``counted``): per
    colour, the ``buildings`` it owns and the cities it leads alone
    (``majorities``); per city, ``city_counts[city * 4 + colour]`` and its
    ``leaders`` (brought up to date when points are next asked for:
    ``unsettled`` marks the cities changed since, a bit each); and the
    ``tallest`` height, how many buildings reach it (``tallest_count``) and
    the ``tallest_owner`` when there is just one. A replay never asks for
    points, so it never pays for them; a game or a search pays a few steps
    a placement.

    Only the engine changes a board (``place``, ``remove_top``); to everyone
    else it is a read-only sequence of ``Building | None``.
    """

    __slots__ = (
        "buildings",
        "city_counts",
        "counted",
        "height",
        "leaders",
        "majorities",
        "owner",
        "stacks",
        "storeys",
        "tallest",
        "tallest_count",
        "tallest_owner",
        "unsettled",
        "untallest",
    )

    def __init__(self) -> None:
        self.owner = [NOBODY] * BOARD_LOTS
        self.height = [0] * BOARD_LOTS
        self.storeys = [0] * (BOARD_LOTS * COLOURS)
        self.stacks = [EMPTY_STACK] * BOARD_LOTS
        self.counted = False
        self.city_counts: list[int] = []
        self.leaders: list[int] = []
        self.buildings: list[int] = []
        self.majorities: list[int] = []
        self.tallest = 0
        self.tallest_count = 0
        self.tallest_owner = NOBODY
        self.unsettled = 0
        self.untallest: list[int] | None = None  # points but the tallest bonus, once asked for

    @classmethod
    def from_buildings(cls, buildings: Iterable[Building | None]) -> Board:
        """A board holding ``buildings`` (54 of them, ``None`` for an empty lot)."""
        board = cls()
        lots = list(buildings)
        if len(lots) != BOARD_LOTS:
            raise ValueError(f"a board has {BOARD_LOTS} lots, not {len(lots)}")
        for index, building in enumerate(lots):
            if building is not None:
                board.owner[index] = building.owner
                board.height[index] = building.height
                stack = EMPTY_STACK
                for colour, size in building.pieces:
                    stack = stack << 4 | colour << 2 | size - 1
                board.stacks[index] = stack
                board.storeys[index * COLOURS : index * COLOURS + COLOURS] = building.storeys
        return board

    def copy(self) -> Board:
        new = Board.__new__(Board)
        new.owner = self.owner[:]
        new.height = self.height[:]
        new.storeys = self.storeys[:]
        new.stacks = self.stacks[:]
        new.counted = self.counted
        new.city_counts = self.city_counts[:]
        new.leaders = self.leaders[:]
        new.buildings = self.buildings[:]
        new.majorities = self.majorities[:]
        new.tallest = self.tallest
        new.tallest_count = self.tallest_count
        new.tallest_owner = self.tallest_owner
        new.unsettled = self.unsettled
        new.untallest = self.untallest
        return new

    # --- changes (the engine's own) -------------------------------------------------

    def place(self, index: int, colour: int, size: int) -> None:
        """Put a ``size`` piece of ``colour`` on lot ``index`` (legality is the caller's business)."""
        self.stacks[index] = self.stacks[index] << 4 | colour << 2 | size - 1
        self.untallest = None
        self.storeys[index * COLOURS + colour] += size
        height = self.height[index] + size
        self.height[index] = height
        before = self.owner[index]
        self.owner[index] = colour
        if not self.counted:
            return
        if before != colour:
            city = CITY_OF[index]
            counts = self.city_counts
            if before != NOBODY:
                counts[city * COLOURS + before] -= 1
                self.buildings[before] -= 1
            counts[city * COLOURS + colour] += 1
            self.buildings[colour] += 1
            self.unsettled |= 1 << city
        # Buildings only grow, so a taller one is alone at the top and an equal one ties it.
        if height > self.tallest:
            self.tallest = height
            self.tallest_count = 1
            self.tallest_owner = colour
        elif height == self.tallest:
            self.tallest_count += 1
            self.tallest_owner = NOBODY

    def remove_top(self, index: int) -> None:
        """Take the top piece off lot ``index`` (an operator's undo; rare, so it recounts)."""
        stack = self.stacks[index]
        colour, size = (stack & 15) >> 2, (stack & 3) + 1
        rest = stack >> 4
        self.stacks[index] = rest
        self.storeys[index * COLOURS + colour] -= size
        self.height[index] -= size
        self.owner[index] = (rest & 15) >> 2 if rest > EMPTY_STACK else NOBODY
        self.untallest = None
        if self.counted:
            self.recount()

    def recount(self) -> None:
        """Count everything R17 needs from the per-lot arrays, and keep it counted from now on."""
        owners = self.owner
        # Counted a city (nine lots) and a colour at a time by ``list.count``, not lot by lot.
        counts: list[int] = []
        for start in range(0, BOARD_LOTS, LOTS_PER_CITY):
            counts += map(owners[start : start + LOTS_PER_CITY].count, range(COLOURS))
        self.city_counts = counts
        self.buildings = list(map(owners.count, range(COLOURS)))
        self.leaders = [NOBODY] * CITIES
        self.majorities = [0] * COLOURS
        self.unsettled = 0
        self.untallest = None
        for city in range(CITIES):
            self._lead(city)
        heights = self.height
        self.tallest = tallest = max(heights)
        self.tallest_count = heights.count(tallest) if tallest else 0
        self.tallest_owner = owners[heights.index(tallest)] if self.tallest_count == 1 else NOBODY
        self.counted = True

    def _settle(self) -> None:
        """Make the counts current: counted at all, and every changed city's leader known."""
        if not self.counted:
            self.recount()
        unsettled = self.unsettled
        self.unsettled = 0
        for city in range(CITIES):
            if unsettled >> city & 1:
                self._lead(city)

    def _lead(self, city: int) -> None:
        """Recompute who leads ``city`` alone (R17's majority), after its counts changed."""
        base = city * COLOURS
        counts = self.city_counts[base : base + COLOURS]
        top = max(counts)
        leader = counts.index(top) if top and counts.count(top) == 1 else NOBODY
        before = self.leaders[city]
        if leader != before:
            if before != NOBODY:
                self.majorities[before] -= 1
            if leader != NOBODY:
                self.majorities[leader] += 1
            self.leaders[city] = leader

    # --- questions ------------------------------------------------------------------

    def accepts(self, index: int, colour: int, size: int) -> bool:
        """R14: an empty lot or one's own building always; another colour's only
        if the placer then has at least the owner's storeys."""
        owner = self.owner[index]
        if owner < 0 or owner == colour:  # empty (NOBODY is -1) or its own
            return True
        base = index * COLOURS
        return self.storeys[base + colour] + size >= self.storeys[base + owner]

    def points(self) -> list[int]:
        """R17: the points each colour (0-3) would score if the round ended now."""
        if self.unsettled or not self.counted:
            self._settle()
        points = [BUILDING_POINTS * self.buildings[c] + MAJORITY_POINTS * self.majorities[c] for c in range(COLOURS)]
        if self.tallest_count == 1:
            points[self.tallest_owner] += TALLEST_POINTS
        return points

    def outcomes(self, index: int, colour: int) -> tuple[tuple[list[int], list[int], list[int]], int]:
        """What a piece of ``colour`` on lot ``index`` would make of everyone's ``points()``,
        worked out once for every size: the change of owner and of the city's leader is
        the same for all, and only whether the building becomes the tallest differs.

        Returns the points for a piece smaller than, equal to and larger than
        ``taller_from``, and ``taller_from``: the size that ties the tallest building
        (so ``outcomes[(size >= taller_from) + (size > taller_from)]`` is a size's).
        """
        tie = self.points_untallest(index, colour)
        lower = tie[:]
        if self.tallest_count == 1:  # below the tallest, its owner keeps the bonus
            lower[self.tallest_owner] += TALLEST_POINTS
        taller = tie[:]
        taller[colour] += TALLEST_POINTS  # above it, alone at the top; equal, a tie scores nobody
        return (lower, tie, taller), self.tallest - self.height[index]

    def base_points(self) -> list[int]:
        """Everyone's points now but for the tallest building's bonus, with the counts settled
        (``tallest``, ``tallest_count`` and ``tallest_owner`` current). Shared: do not change it."""
        if self.unsettled or not self.counted:
            self._settle()
        base = self.untallest
        if base is None:
            buildings, majorities = self.buildings, self.majorities
            base = self.untallest = [
                BUILDING_POINTS * buildings[c] + MAJORITY_POINTS * majorities[c] for c in range(COLOURS)
            ]
        return base

    def points_untallest(self, index: int, colour: int) -> list[int]:
        """Everyone's points after a piece of ``colour`` on lot ``index`` but for the
        tallest building's bonus (for a size that ties the tallest, the points themselves).
        Afterwards ``tallest``, ``tallest_count`` and ``tallest_owner`` are current.
        The list may be shared: do not change it."""
        base = self.base_points()
        before = self.owner[index]
        if before == colour:  # one's own building: no owner changes, no leader either
            return base
        points = base[:]
        city = CITY_OF[index]
        start = city * COLOURS
        counts = self.city_counts[start : start + COLOURS]
        if before != NOBODY:
            counts[before] -= 1
            points[before] -= BUILDING_POINTS
        counts[colour] += 1
        points[colour] += BUILDING_POINTS
        top = max(counts)
        leader = counts.index(top) if counts.count(top) == 1 else NOBODY
        old_leader = self.leaders[city]
        if leader != old_leader:
            if old_leader != NOBODY:
                points[old_leader] -= MAJORITY_POINTS
            if leader != NOBODY:
                points[leader] += MAJORITY_POINTS
        return points

    def buildings_owned(self, colour: int) -> int:
        if not self.counted:
            self.recount()
        return self.buildings[colour]

    def score(self, colours: Iterable[int]) -> dict[int, int]:
        """R17 for the colours in the game, as ``score_board`` gives it. A board that does not keep
        its counts is counted on a copy: a round's scoring is no reason to keep them up after it."""
        points = (self if self.counted else self.copy()).points()
        return {c: points[c] for c in colours}

    def building(self, index: int) -> Building | None:
        owner = self.owner[index]
        if owner == NOBODY:
            return None
        base = index * COLOURS
        storeys = self.storeys
        return Building(
            _stack_pieces(self.stacks[index]),
            owner,
            self.height[index],
            (storeys[base], storeys[base + 1], storeys[base + 2], storeys[base + 3]),
        )

    # --- the read-only sequence of buildings ------------------------------------------

    def __len__(self) -> int:
        return BOARD_LOTS

    @overload
    def __getitem__(self, index: int) -> Building | None: ...

    @overload
    def __getitem__(self, index: slice) -> list[Building | None]: ...

    def __getitem__(self, index: int | slice) -> Building | list[Building | None] | None:
        if isinstance(index, slice):
            return [self.building(i) for i in range(BOARD_LOTS)[index]]
        if not -BOARD_LOTS <= index < BOARD_LOTS:
            raise IndexError("board index out of range")
        return self.building(index % BOARD_LOTS)

    def __iter__(self) -> Iterator[Building | None]:
        return (self.building(i) for i in range(BOARD_LOTS))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Board):
            return (
                self.stacks == other.stacks
                and self.owner == other.owner
                and self.height == other.height
                and self.storeys == other.storeys
            )
        if isinstance(other, Sequence) and not isinstance(other, str):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        built = {i: _stack_pieces(s) for i, s in enumerate(self.stacks) if s != EMPTY_STACK}
        return f"Board({built!r})"


def as_board(board: Sequence[Building | None]) -> Board:
    """``board`` itself if it is a ``Board``, else a ``Board`` holding the same buildings."""
    return board if isinstance(board, Board) else Board.from_buildings(board)
