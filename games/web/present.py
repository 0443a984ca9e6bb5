"""Presentation helpers for the play pages: names, labels, sentences and the
landmarks of the board (tallest building, city majorities).

Everything here reads a secret-free ``PlayerView`` or redacted events; every
user-visible string goes through translation.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from accounts.models import User
from games.engine import COLOUR_NAMES, SIDE_NAMES, GameOptions, PlayerView, RuleError
from games.engine.rotation import CARD_TO_LOT
from games.models import Game, Seat

COLOUR_LABELS: dict[str, Promise] = {
    "red": gettext_lazy("red"),
    "blue": gettext_lazy("blue"),
    "green": gettext_lazy("green"),
    "yellow": gettext_lazy("yellow"),
}
SIDE_LABELS: dict[str, Promise] = {
    "S": gettext_lazy("south"),
    "W": gettext_lazy("west"),
    "N": gettext_lazy("north"),
    "E": gettext_lazy("east"),
}
PHASE_LABELS: dict[str, Promise] = {
    "selection": gettext_lazy("choosing pieces"),
    "placement": gettext_lazy("building"),
    "round_over": gettext_lazy("scoring"),
    "finished": gettext_lazy("finished"),
}
STATUS_LABELS: dict[str, Promise] = {
    Game.Status.LOBBY: gettext_lazy("Waiting for players"),
    Game.Status.ACTIVE: gettext_lazy("Being played"),
    Game.Status.FINISHED: gettext_lazy("Finished"),
    Game.Status.ABANDONED: gettext_lazy("Abandoned"),
}
BOT_LABELS: dict[str, Promise] = {
    "greedy": gettext_lazy("greedy bot"),
    "random": gettext_lazy("random bot"),
}


def colour_label(colour: int | str) -> str:
    name = COLOUR_NAMES[colour] if isinstance(colour, int) else colour
    return str(COLOUR_LABELS.get(name, name))


def rounds_of(game: Game) -> int | None:
    try:
        return GameOptions.from_json(game.options).rounds
    except (RuleError, TypeError, ValueError):
        return None


# --- seats and players ---------------------------------------------------------------


def seat_name(seat: Seat) -> str:
    """How a seat is called on the pages (never an invitee's email address)."""
    if seat.user is not None:
        return seat.user.public_name
    if seat.bot:
        kind = str(BOT_LABELS.get(seat.bot, seat.bot))
        return _("Bot %(seat)s (%(kind)s)") % {"seat": seat.index + 1, "kind": kind}
    if seat.invited_email:
        return _("Invited player")
    return _("Open seat")


def seat_names(seats: Iterable[Seat], me: User | None) -> dict[int, str]:
    """Seat index -> name; the viewer's own seat is marked "(you)"."""
    names: dict[int, str] = {}
    for seat in seats:
        name = seat_name(seat)
        if me is not None and seat.user_id == me.pk:
            name = _("%(name)s (you)") % {"name": name}
        names[seat.index] = name
    return names


@dataclass
class ColourChip:
    name: str
    label: str


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


def player_rows(view: PlayerView, names: dict[int, str]) -> list[PlayerRow]:
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


def round_score_rows(view: PlayerView) -> list[RoundScoreRow]:
    return [
        RoundScoreRow(round=i + 1, points=[(COLOUR_NAMES[c], scores.get(c, 0)) for c in sorted(view.scores)])
        for i, scores in enumerate(view.round_scores)
    ]


# --- cards -------------------------------------------------------------------------------


def card_cells(card: int) -> list[bool]:
    """The 3×3 grid of a card (1–9, row-major as printed): which cell is marked."""
    return [i == card - 1 for i in range(9)]


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


# --- landmarks -------------------------------------------------------------------------------


@dataclass
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


@dataclass
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
        result.append(
            CityMajority(
                city=city + 1,
                counts=[(COLOUR_NAMES[c], colour_label(c), n) for c, n in counts],
                leader=leader,
            )
        )
    return result


# --- the log as sentences ---------------------------------------------------------------------


def _pieces(sizes: Sequence[int]) -> str:
    return ", ".join(str(s) for s in sizes)


def describe_event(event: dict[str, Any], names: dict[int, str]) -> list[str]:
    """A redacted event as one or more sentences (the viewer's own draws included)."""

    def who(seat: Any) -> str:
        return names.get(seat, str(seat)) if isinstance(seat, int) else ""

    kind = event.get("type")
    if kind == "game_created":
        return [_("The game began; %(player)s starts.") % {"player": who(event.get("start_player"))}]
    if kind == "pieces_selected":
        return [
            _("%(player)s chose the %(colour)s pieces for this round: %(pieces)s.")
            % {
                "player": who(event.get("player")),
                "colour": colour_label(event["colour"]),
                "pieces": _pieces(event.get("pieces", [])),
            }
        ]
    if kind == "piece_placed":
        size = int(event["size"])
        lines = [
            ngettext(
                "%(player)s played card %(card)s: %(size)s storey of %(colour)s in city %(city)s, lot %(lot)s.",
                "%(player)s played card %(card)s: %(size)s storeys of %(colour)s in city %(city)s, lot %(lot)s.",
                size,
            )
            % {
                "player": who(event.get("player")),
                "card": event["card"] + 1,
                "size": size,
                "colour": colour_label(event["colour"]),
                "city": event["city"] + 1,
                "lot": event["lot"] + 1,
            }
        ]
        if isinstance(event.get("drew"), int):
            lines.append(_("You drew card %(card)s.") % {"card": event["drew"] + 1})
        if event.get("reshuffled"):
            lines.append(_("The discard piles were shuffled into a new draw pile."))
        return lines
    if kind == "hand_redrawn":
        lines = [
            _("%(player)s could not build with any card and drew a new hand.") % {"player": who(event.get("player"))}
        ]
        drew = event.get("drew")
        if isinstance(drew, list) and drew:
            lines.append(_("You drew cards %(cards)s.") % {"cards": ", ".join(str(c + 1) for c in drew)})
        if event.get("reshuffled"):
            lines.append(_("The discard piles were shuffled into a new draw pile."))
        return lines
    if kind == "piece_lost":
        size = int(event["size"])
        return [
            ngettext(
                "%(player)s could not build: a %(colour)s piece of %(size)s storey went back to the box.",
                "%(player)s could not build: a %(colour)s piece of %(size)s storeys went back to the box.",
                size,
            )
            % {"player": who(event.get("player")), "size": size, "colour": colour_label(event["colour"])}
        ]
    if kind == "round_scored":
        points = ", ".join(f"{colour_label(name)} +{n}" for name, n in event.get("points", {}).items())
        return [_("Round %(round)s was scored: %(points)s.") % {"round": event.get("round"), "points": points}]
    if kind == "round_started":
        return [
            _("Round %(round)s began; %(player)s starts.")
            % {"round": event.get("round"), "player": who(event.get("start_player"))}
        ]
    if kind == "game_finished":
        winners = [who(p) for p in event.get("winners", [])]
        if not winners:
            return [_("The game is over.")]
        return [
            ngettext(
                "The game is over. The winner is %(names)s.",
                "The game is over. The winners are %(names)s.",
                len(winners),
            )
            % {"names": ", ".join(winners)}
        ]
    if kind == "player_resigned":
        return [_("%(player)s resigned.") % {"player": who(event.get("player"))}]
    if kind == "placement_undone":
        return [
            _("An operator took back a placement by %(player)s (card %(card)s, city %(city)s): %(reason)s")
            % {
                "player": who(event.get("player")),
                "card": event["card"] + 1,
                "city": event["city"] + 1,
                "reason": event.get("reason") or "—",
            }
        ]
    return [_("Something happened: %(kind)s.") % {"kind": kind}]


@dataclass
class LogLine:
    seq: int
    lines: list[str]
    mine: bool


def log_lines(
    events: Sequence[dict[str, Any]], first_seq: int, names: dict[int, str], seat: int | None
) -> list[LogLine]:
    """Redacted events numbered from ``first_seq``, newest first."""
    out = [
        LogLine(seq=first_seq + i, lines=describe_event(e, names), mine=seat is not None and e.get("player") == seat)
        for i, e in enumerate(events)
    ]
    out.reverse()
    return out


# --- the "my games" list ---------------------------------------------------------------------


@dataclass
class GameRow:
    game: Game
    status: str
    round: int
    rounds: int | None
    phase: str
    to_act: str
    players: list[str]
    my_seat: int | None
    my_turn: bool
    invited: bool
    can_start: bool

    @property
    def waiting_for_me(self) -> bool:
        return self.my_turn or self.invited or self.can_start


_STATUS_ORDER: dict[str, int] = {
    Game.Status.ACTIVE: 0,
    Game.Status.LOBBY: 1,
    Game.Status.FINISHED: 2,
    Game.Status.ABANDONED: 3,
}


def game_row(game: Game, user: User) -> GameRow:
    seats = sorted(game.seats.all(), key=lambda s: s.index)  # prefetched
    mine = next((s for s in seats if s.user_id == user.pk), None)
    lobby = game.status == Game.Status.LOBBY
    invited = (
        lobby
        and mine is None
        and any(s.user_id is None and not s.bot and s.invited_email.lower() == user.email.lower() for s in seats)
    )
    to_act = ""
    if game.status == Game.Status.ACTIVE and game.to_act_seat is not None:
        seat = next((s for s in seats if s.index == game.to_act_seat), None)
        to_act = seat_name(seat) if seat is not None else ""
    return GameRow(
        game=game,
        status=str(STATUS_LABELS.get(game.status, game.status)),
        round=game.round,
        rounds=rounds_of(game),
        phase=str(PHASE_LABELS.get(game.phase, game.phase)) if game.phase else "",
        to_act=to_act,
        players=[seat_name(s) for s in seats],
        my_seat=mine.index if mine is not None else None,
        my_turn=game.status == Game.Status.ACTIVE and mine is not None and game.to_act_seat == mine.index,
        invited=invited,
        can_start=lobby and game.creator_id == user.pk and all(s.is_filled for s in seats),
    )


def sort_rows(rows: list[GameRow]) -> tuple[list[GameRow], list[GameRow]]:
    """Games waiting for me first (most recently updated first), then the others by status."""
    waiting = [r for r in rows if r.waiting_for_me]
    others = [r for r in rows if not r.waiting_for_me]
    others.sort(key=lambda r: _STATUS_ORDER.get(r.game.status, 9))  # stable: keeps "-updated" within a status
    return waiting, others
