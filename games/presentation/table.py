"""The players, their pieces, their scores and a hand of cards, as rows to
show (the page's tables, the emails' lists), from a secret-free view."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from games.engine import COLOUR_NAMES, SIDE_NAMES, PlayerView
from games.engine.rotation import CARD_TO_LOT

from .vocabulary import HEX, SIDE_LABELS, colour_label


@dataclass
class ColourChip:
    name: str
    label: str

    @property
    def hex(self) -> str:
        return HEX.get(self.name, "#999999")


@dataclass
class PlayerRow:
    index: int
    name: str
    is_me: bool
    side: str
    colours: list[ColourChip]
    score: int
    hand_size: int
    resigned: bool
    to_act: bool
    winner: bool
    profile_url: str = ""

    @property
    def colour_labels(self) -> str:
        return ", ".join(chip.label for chip in self.colours)


def player_rows(view: PlayerView, names: dict[int, str], links: dict[int, str] | None = None) -> list[PlayerRow]:
    """One row a seat; ``links``: seat index -> the URL its player's name links to."""
    links = links or {}
    return [
        PlayerRow(
            index=p,
            name=names.get(p, str(p + 1)),
            is_me=view.seat == p,
            side=str(SIDE_LABELS[SIDE_NAMES[view.sides[p]]]),
            colours=[ColourChip(COLOUR_NAMES[c], colour_label(c)) for c in view.colours[p]],
            score=sum(view.scores[c] for c in view.colours[p]),
            hand_size=view.hand_sizes[p],
            resigned=view.resigned[p],
            to_act=view.to_act == p,
            winner=p in view.winners,
            profile_url=links.get(p, ""),
        )
        for p in range(len(view.sides))
    ]


@dataclass
class SizeCount:
    size: int
    selected: int
    reserve: int


@dataclass
class SupplyRow:
    """One colour's pieces: this round's selection and the reserve, by size."""

    colour: str
    label: str
    player: str
    mine: bool
    sizes: list[SizeCount]
    selected_total: int
    reserve_total: int
    lost: int
    score: int

    @property
    def hex(self) -> str:
        return HEX.get(self.colour, "#999999")

    @property
    def selected_line(self) -> str:
        return ", ".join(str(size.selected) for size in self.sizes)

    @property
    def reserve_line(self) -> str:
        return ", ".join(str(size.reserve) for size in self.sizes)


def supply_rows(view: PlayerView, names: dict[int, str]) -> list[SupplyRow]:
    owner = {c: p for p, cs in enumerate(view.colours) for c in cs}
    rows = [
        SupplyRow(
            colour=COLOUR_NAMES[c],
            label=colour_label(c),
            player=names.get(owner[c], ""),
            mine=view.seat is not None and owner[c] == view.seat,
            sizes=[SizeCount(s, view.selection[c][s - 1], view.reserve[c][s - 1]) for s in (1, 2, 3, 4)],
            selected_total=sum(view.selection[c]),
            reserve_total=sum(view.reserve[c]),
            lost=view.lost[c],
            score=view.scores[c],
        )
        for c in sorted(view.scores)
    ]
    rows.sort(key=lambda r: not r.mine)
    return rows


@dataclass
class RoundScoreRow:
    round: int
    points: list[tuple[str, int]] = field(default_factory=list)

    @property
    def labels(self) -> list[tuple[str, str]]:
        """The colours of the columns with their names, for the table's header."""
        return [(colour, colour_label(colour)) for colour, _ in self.points]


def round_score_rows(view: PlayerView) -> list[RoundScoreRow]:
    return [
        RoundScoreRow(round=i + 1, points=[(COLOUR_NAMES[c], scores.get(c, 0)) for c in sorted(view.scores)])
        for i, scores in enumerate(view.round_scores)
    ]


def card_cells(card: int) -> list[bool]:
    """The 3×3 grid of a card (1–9, row-major as printed): which cell is marked."""
    return [i == card - 1 for i in range(9)]


def card_rows(card: int) -> list[list[bool]]:
    """The same grid as three rows, for tables."""
    cells = card_cells(card)
    return [cells[i : i + 3] for i in range(0, 9, 3)]


def lot_of_card(card: int, side: int) -> int:
    """The lot (1–9, row-major as the board is drawn, from the south) ``card`` names."""
    return CARD_TO_LOT[side][card - 1] + 1


@dataclass
class HandCard:
    index: int
    card: int
    cells: list[bool]
    lot: int
    lot_cells: list[bool]
    cities: list[int]

    @property
    def rows(self) -> list[list[bool]]:
        return card_rows(self.card)


def hand_cards(view: PlayerView, legal_cities: dict[int, list[int]] | None = None) -> list[HandCard]:
    """The viewer's hand, as printed, with the lot each card names on the board."""
    if view.hand is None or view.seat is None:
        return []
    side = view.sides[view.seat]
    cards = []
    for index, card0 in enumerate(view.hand):
        card = card0 + 1
        lot = lot_of_card(card, side)
        cards.append(
            HandCard(
                index=index,
                card=card,
                cells=card_cells(card),
                lot=lot,
                lot_cells=card_cells(lot),
                cities=(legal_cities or {}).get(card, []),
            )
        )
    return cards


@dataclass
class OptionGroup:
    """The cities (each with the lot the card names there) where the same sizes fit."""

    sizes: list[int]
    places: list[tuple[int, int]]  # (city, lot), 1-based

    @property
    def sizes_text(self) -> str:
        return ", ".join(map(str, self.sizes))


@dataclass
class CardOptions:
    """Where a card can build, for "you can play"."""

    card: int
    groups: list[OptionGroup]

    @property
    def cells(self) -> list[list[bool]]:
        return card_rows(self.card)


def card_options(legal: dict[str, Any]) -> list[CardOptions]:
    """``legal_actions(view).to_json()`` grouped by card, then by the sizes that fit."""
    out = []
    for entry in legal["placements"]:
        by_city: dict[int, tuple[int, set[int]]] = {}
        for option in entry["options"]:
            lot, sizes = by_city.setdefault(option["city"], (option["lot"], set()))
            sizes.add(option["size"])
        groups: dict[tuple[int, ...], list[tuple[int, int]]] = {}
        for city, (lot, sizes) in sorted(by_city.items()):
            groups.setdefault(tuple(sorted(sizes)), []).append((city, lot))
        out.append(CardOptions(entry["card"], [OptionGroup(list(s), p) for s, p in sorted(groups.items())]))
    return out
