"""The board as cells to draw: six cities of nine lots, each with what a
reader needs (height, owner, storeys of each colour, a title), laid out for
the SVG of the pages and the tables of the emails; the text board of the
plain-text emails; and the landmarks of scoring (the tallest building, each
city's majority)."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.engine import COLOUR_NAMES, SIDE_NAMES, PlayerView

from .vocabulary import HEX, INK, SIDE_EDGE_LABELS, colour_label

LOT = 38  # the side of a lot in the SVG, in its units
GAP = 4
CITY = 3 * LOT + 2 * GAP
CITY_GAP = 18
WIDTH = 3 * CITY + 4 * CITY_GAP
HEIGHT = 2 * CITY + 3 * CITY_GAP + 16
BAR_ROOM = LOT - 6  # the storey bars of a building share this width, whatever its height
SOUTH = 0


def _from_display(row: int, col: int, rows: int, cols: int, side: int) -> tuple[int, int]:
    """The south view's (row, col) of what a player on ``side`` sees at (row, col)
    of a grid that has ``rows`` × ``cols`` cells seen from the south: the board
    turned by the side's quarter turns, as R6 turns the cards."""
    if side == 1:  # west
        return col, cols - 1 - row
    if side == 2:  # north
        return rows - 1 - row, cols - 1 - col
    if side == 3:  # east
        return rows - 1 - col, row
    return row, col


def _display_positions(rows: int, cols: int, side: int) -> dict[int, tuple[int, int]]:
    """South index (row-major) -> (row, col) where a player on ``side`` sees it."""
    shown_rows, shown_cols = (cols, rows) if side in (1, 3) else (rows, cols)
    where = {}
    for row in range(shown_rows):
        for col in range(shown_cols):
            r, c = _from_display(row, col, rows, cols, side)
            where[r * cols + c] = (row, col)
    return where


@dataclass(frozen=True)
class Storeys:
    colour: str
    label: str
    count: int
    hex: str
    initial: str  # R, B, G, Y: the text board's and the email's short form
    x: float  # the bar in the SVG
    width: float


@dataclass(frozen=True)
class Lot:
    city: int  # 1-based, as people read it
    lot: int
    x: int
    y: int
    height: int
    owner: str  # a colour name, "" when empty
    owner_label: str
    fill: str
    ink: str
    storeys: list[Storeys]
    title: str
    highlighted: bool
    label: str = ""  # what a screen reader says: "City 3, lot 7, 2 storeys, owned by blue"
    last: bool = False  # the last building placed
    tallest: bool = False  # the single tallest building (R17)
    review_mark: str = ""  # a reviewed move's lot: "best" (the bot's), "played", or "both"

    @property
    def short(self) -> str:
        """The text board's cell: height and owner's initial (" 4R"), or a dot."""
        return f"{self.height}{self.owner[:1].upper()}".rjust(3) if self.height else "  ."


@dataclass(frozen=True)
class City:
    number: int
    x: int
    y: int
    name: str
    lots: list[Lot]
    leader: str = ""  # the colour with the majority (R17), if one has it
    leader_label: str = ""

    @property
    def leader_hex(self) -> str:
        return HEX.get(self.leader, "")

    @property
    def rows(self) -> list[list[Lot]]:
        return [self.lots[i : i + 3] for i in range(0, 9, 3)]


def _storeys(storeys: tuple[int, ...] | list[int], height: int, x: int) -> list[Storeys]:
    bars = []
    left = float(x + 3)
    for colour, count in enumerate(storeys):
        if not count:
            continue
        name = COLOUR_NAMES[colour]
        width = BAR_ROOM * count / height
        bars.append(Storeys(name, colour_label(name), count, HEX[name], name[:1].upper(), round(left, 2), width))
        left += width
    return bars


@dataclass(frozen=True)
class Drawing:
    """The board to draw (templates ``games/_board.svg.html``, ``emails/_game.html``)."""

    cities: list[City]
    width: int = WIDTH
    height: int = HEIGHT
    side: int = SOUTH  # the side it is drawn from
    side_label: str = ""

    @property
    def middle(self) -> float:
        return self.width / 2

    @property
    def highlighted(self) -> int:
        return sum(lot.highlighted for city in self.cities for lot in city.lots)


def drawing(
    view: PlayerView,
    highlight: set[tuple[int, int]] | None = None,
    *,
    side: int = SOUTH,
    last: tuple[int, int] | None = None,
) -> Drawing:
    """The board drawn from ``side`` (south by default), with the landmarks of
    scoring marked and ``last`` (city, lot; 0-based), the last building placed."""
    shown = cities(view, highlight, side=side, last=last)
    turned = side in (1, 3)
    cols, rows = (2, 3) if turned else (3, 2)
    return Drawing(
        shown,
        width=cols * CITY + (cols + 1) * CITY_GAP,
        height=rows * CITY + (rows + 1) * CITY_GAP + 16,
        side=side,
        side_label=str(SIDE_EDGE_LABELS[SIDE_NAMES[side]]),
    )


def cities(
    view: PlayerView,
    highlight: set[tuple[int, int]] | None = None,
    *,
    side: int = SOUTH,
    last: tuple[int, int] | None = None,
) -> list[City]:
    """The board, seen from ``side``; ``highlight`` marks (city, lot) pairs (0-based).
    Cities and lots keep their numbers (counted from the south, as the log and
    the emails name them) wherever they are drawn."""
    highlight = highlight or set()
    top = tallest(view)
    tallest_lot = (top.buildings[0][0] - 1, top.buildings[0][1] - 1) if top is not None and top.unique else None
    majorities = city_majorities(view)
    city_at = _display_positions(2, 3, side)
    lot_at = _display_positions(3, 3, side)
    out = []
    for city in range(6):
        city_row, city_col = city_at[city]
        cx = CITY_GAP + city_col * (CITY + CITY_GAP)
        cy = CITY_GAP + 12 + city_row * (CITY + CITY_GAP)
        lots = []
        for lot in range(9):
            row, col = lot_at[lot]
            x, y = cx + col * (LOT + GAP), cy + row * (LOT + GAP)
            lots.append(_lot(view, city, lot, x, y, highlight, last=last, tallest_lot=tallest_lot))
        leader = majorities[city].leader or ""
        out.append(
            City(
                city + 1,
                cx,
                cy,
                _("City %(number)s") % {"number": city + 1},
                lots,
                leader=leader,
                leader_label=colour_label(leader) if leader else "",
            )
        )
    return out


def _lot(
    view: PlayerView,
    city: int,
    lot: int,
    x: int,
    y: int,
    highlight: set[tuple[int, int]],
    *,
    last: tuple[int, int] | None,
    tallest_lot: tuple[int, int] | None,
) -> Lot:
    where = {"number": city + 1, "lot": lot + 1}
    marks = []
    if (city, lot) == tallest_lot:
        marks.append(_("the tallest building"))
    if (city, lot) == last:
        marks.append(_("the last building placed"))
    building = view.board[city * 9 + lot]
    if building is None:
        title = _("City %(number)s, lot %(lot)s: empty") % where
        label = ", ".join([_("City %(number)s, lot %(lot)s, empty") % where, *marks])
        return Lot(city + 1, lot + 1, x, y, 0, "", "", "", "", [], title, (city, lot) in highlight, label)
    owner = COLOUR_NAMES[building.owner]
    storeys = _storeys(building.storeys, building.height, x)
    title = _("City %(number)s, lot %(lot)s: %(height)s storeys, owner %(owner)s (%(storeys)s)") % {
        **where,
        "height": building.height,
        "owner": colour_label(owner),
        "storeys": ", ".join(f"{s.label} {s.count}" for s in storeys),
    }
    described = ngettext(
        "City %(number)s, lot %(lot)s, %(height)s storey, owned by %(owner)s",
        "City %(number)s, lot %(lot)s, %(height)s storeys, owned by %(owner)s",
        building.height,
    ) % {
        **where,
        "height": building.height,
        "owner": colour_label(owner),
    }
    if len(storeys) > 1:
        described += " (" + ", ".join(f"{s.label} {s.count}" for s in storeys) + ")"
    return Lot(
        city + 1,
        lot + 1,
        x,
        y,
        building.height,
        owner,
        colour_label(owner),
        HEX[owner],
        INK[owner],
        storeys,
        title,
        (city, lot) in highlight,
        ", ".join([described, *marks]),
        last=(city, lot) == last,
        tallest=(city, lot) == tallest_lot,
    )


def text_board(board: list[City]) -> str:
    """The board in plain text: two rows of three cities of 3×3 lots, each lot
    as height and owner (``3R``) or a dot, in columns that stay aligned."""
    lines: list[str] = []
    for top in (0, 3):
        group = board[top : top + 3]
        lines.append("   ".join(_ljust(city.name, 11) for city in group).rstrip())
        for row in range(3):
            lines.append("   ".join(f"{' '.join(lot.short for lot in city.rows[row]):<11}" for city in group).rstrip())
        lines.append("")
    return "\n".join(lines).rstrip()


def _ljust(text: str, width: int) -> str:
    """``text`` padded to ``width`` columns of a fixed-width font, where a wide (e.g. Korean) character takes two."""
    columns = sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)
    return text + " " * max(width - columns, 0)


# --- landmarks ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Tallest:
    height: int
    buildings: list[tuple[int, int, str]]  # (city, lot, owner colour), 1-based

    @property
    def unique(self) -> bool:
        return len(self.buildings) == 1

    @property
    def owner(self) -> str:
        return self.buildings[0][2] if self.buildings else ""

    @property
    def owner_label(self) -> str:
        return colour_label(self.owner) if self.owner else ""


@dataclass(frozen=True)
class CityMajority:
    city: int
    counts: list[tuple[str, str, int]]  # (colour, label, buildings owned), most first
    leader: str | None

    @property
    def leader_label(self) -> str:
        return colour_label(self.leader) if self.leader else ""

    @property
    def empty(self) -> bool:
        return not self.counts


def tallest(view: PlayerView) -> Tallest | None:
    """The tallest building(s) on the board; R17 scores it only if unique."""
    best = 0
    found: list[tuple[int, int, str]] = []
    for index, building in enumerate(view.board):
        if building is None:
            continue
        city, lot = divmod(index, 9)
        if building.height > best:
            best, found = building.height, []
        if building.height == best:
            found.append((city + 1, lot + 1, COLOUR_NAMES[building.owner]))
    return Tallest(best, found) if found else None


def city_majorities(view: PlayerView) -> list[CityMajority]:
    """Per city, the buildings each colour owns and the single leader, if any (R17)."""
    result = []
    for city in range(6):
        owned: dict[int, int] = {}
        for building in view.board[city * 9 : city * 9 + 9]:
            if building is not None:
                owned[building.owner] = owned.get(building.owner, 0) + 1
        counts = sorted(owned.items(), key=lambda item: (-item[1], item[0]))
        leader = None
        if counts and (len(counts) == 1 or counts[0][1] > counts[1][1]):
            leader = COLOUR_NAMES[counts[0][0]]
        result.append(CityMajority(city + 1, [(COLOUR_NAMES[c], colour_label(c), n) for c, n in counts], leader))
    return result
