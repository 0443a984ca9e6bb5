"""What the server knows and how a leak is found in one document: the game's
truth folded after every event (hands, draw pile, reshuffles, the seed) and
the card sequences, JSON keys and card attributes that would give it away.
tests/reliability/test_secret_crawler.py says what is checked, and why."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from games import engine
from games.engine.events import apply_in_place, initial_state
from games.models import Game, GameEvent, GameSecret

API = "/api/v1"
HAND_LENGTHS = (4,)
PILE_WINDOW = 6
DRAW_EVENTS = ("piece_placed", "hand_redrawn", "placement_undone")
FORBIDDEN_KEYS = frozenset({"draw_pile", "reshuffle", "seed", "deck", "secret"})
# Piece sizes listed in order ("sizes 1, 2, 3, 4" in an email's options) are public trivia.
STATIC_PUBLIC = frozenset({(1, 2, 3, 4)})

RUN = re.compile(r"(?<![\d.])\d+(?:\s*,\s*\d+)+(?![\d.])")
CARD_ATTRIBUTES = (
    re.compile(r'data-card="(\d+)"'),
    re.compile(r'title="Card (\d+)"'),
    re.compile(r'aria-label="Card (\d+)"'),
)
DATA_CARD = CARD_ATTRIBUTES[0]
EMAIL_TITLE_CARD = CARD_ATTRIBUTES[1]
EMAIL_HAND_LINE = re.compile(r"Your hand: ([^\n]*)")


def seed_for(name: str) -> str:
    """A fixed shuffle seed per game, looking like the real ones (32 hex digits)."""
    return hashlib.sha256(f"secret-crawler:{name}".encode()).hexdigest()[:32]


# --- what the server knows -----------------------------------------------------------------


def _windows(seq: tuple[int, ...], lengths: Iterable[int]) -> Iterator[tuple[int, ...]]:
    for length in lengths:
        for i in range(len(seq) - length + 1):
            yield seq[i : i + length]


def _int_lists(node: Any) -> Iterator[tuple[int, ...]]:
    """Every list of integers anywhere in a JSON value."""
    if isinstance(node, dict):
        for value in node.values():
            yield from _int_lists(value)
    elif isinstance(node, list):
        if node and all(isinstance(x, int) and not isinstance(x, bool) for x in node):
            yield tuple(node)
        for value in node:
            yield from _int_lists(value)


@dataclass(frozen=True)
class Snapshot:
    """The state after one event, reduced to what the checks need."""

    hands: tuple[tuple[int, ...], ...]
    pile: tuple[int, ...]
    discards: tuple[tuple[int, ...], ...]
    counts: tuple[tuple[int, ...], ...]
    finished: bool

    @classmethod
    def of(cls, state: engine.GameState) -> Snapshot:
        counts: list[tuple[int, ...]] = []
        for colour in sorted(state.reserve):
            for c in (state.selection[colour], state.reserve[colour]):
                counts.append(tuple(c))
                counts.append(tuple(s for s in (1, 2, 3, 4) for _ in range(c[s - 1])))
        return cls(
            hands=tuple(tuple(h) for h in state.hands),
            pile=tuple(state.draw_pile),
            discards=tuple(tuple(d) for d in state.discards),
            counts=tuple(counts),
            finished=state.is_finished,
        )


class Truth:
    """One game as the server knows it, folded after every event, and what
    each viewer (a seat, or ``None`` for everyone else) may know of it."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.players = game.players
        self.payloads: list[dict[str, Any]] = []
        self.snaps: dict[int, Snapshot] = {}
        self.state: engine.GameState | None = None
        self.seed: str | None = None
        self.reshuffles: list[tuple[int, tuple[int, ...]]] = []
        self.public: dict[int | None, set[tuple[int, ...]]] = {
            key: set(STATIC_PUBLIC) for key in [*range(self.players), None]
        }
        self._cache: dict[tuple[Any, ...], dict[tuple[int, ...], str]] = {}
        self.gated = 0

    @property
    def version(self) -> int:
        return len(self.payloads)

    @property
    def finished(self) -> bool:
        return bool(self.snaps) and self.snaps[self.version].finished

    def refresh(self) -> list[dict[str, Any]]:
        """Read the events appended since the last call; returns them."""
        rows = list(
            GameEvent.objects.filter(game=self.game, seq__gt=self.version)
            .order_by("seq")
            .values_list("payload", flat=True)
        )
        for payload in rows:
            self.payloads.append(payload)
            n = self.version
            if n == 1:
                self.state = initial_state(payload)
            else:
                assert self.state is not None
                apply_in_place(self.state, payload)
            assert self.state is not None
            snap = Snapshot.of(self.state)
            self.snaps[n] = snap
            if "reshuffle" in payload:
                self.reshuffles.append((n, tuple(payload["reshuffle"])))
            self._publish(payload, snap)
        if rows:
            self._cache.clear()
        if self.seed is None:
            secret = GameSecret.objects.filter(game=self.game).first()
            self.seed = secret.seed if secret else None
        return rows

    def _add_public(self, key: int | None, seq: tuple[int, ...], *, cards: bool) -> None:
        target = self.public[key]
        variants = {seq, tuple(sorted(seq))}
        if cards:
            variants |= {tuple(c + 1 for c in v) for v in variants}
        for v in variants:
            target.update(_windows(v, (*HAND_LENGTHS, PILE_WINDOW)))

    def _publish(self, payload: dict[str, Any], snap: Snapshot) -> None:
        """What every viewer learns from this event and the state after it."""
        for key in self.public:
            for discard in snap.discards:
                self._add_public(key, discard, cards=True)
            for counts in snap.counts:
                self._add_public(key, counts, cards=False)
            if key is not None:
                self._add_public(key, snap.hands[key], cards=True)
            for numbers in _int_lists(engine.redact_event(payload, key)):
                self._add_public(key, numbers, cards=True)
        if payload["type"] == "game_finished":
            # The record of a finished game is public by design (RECORD.md): every
            # hand at the start of every round and every card drawn.
            record = engine.game_record(self.payloads)
            for key in self.public:
                for numbers in _int_lists(record):
                    self._add_public(key, numbers, cards=True)

    def own_hands(self, seat: int | None, ns: Iterable[int]) -> set[tuple[int, ...]]:
        """The viewer's own hand (1-based, in order) after each event in ``ns``."""
        if seat is None:
            return set()
        return {tuple(c + 1 for c in self.snaps[n].hands[seat]) for n in ns if n in self.snaps}

    def secrets_for(self, seat: int | None, ns: Iterable[int]) -> dict[tuple[int, ...], str]:
        """Distinctive card sequences ``seat`` must not see in a document about
        the states after the events ``ns``: signature -> what it is."""
        ns = tuple(sorted({n for n in ns if n in self.snaps}))
        key = (seat, ns, self.version)
        if key in self._cache:
            return self._cache[key]
        public = self.public[seat]
        out: dict[tuple[int, ...], str] = {}

        def add(signature: tuple[int, ...], what: str) -> None:
            if signature in public:
                self.gated += 1
            else:
                out.setdefault(signature, what)

        def add_order(order: tuple[int, ...], what: str) -> None:
            if len(order) < PILE_WINDOW:
                return
            for direction in (order, order[::-1]):
                for window in _windows(direction, (PILE_WINDOW,)):
                    for base in (0, 1):
                        add(tuple(c + base for c in window), what)

        for n in ns:
            snap = self.snaps[n]
            for p, hand in enumerate(snap.hands):
                if p == seat or len(hand) not in HAND_LENGTHS:
                    continue
                for order in (hand, tuple(sorted(hand))):
                    for base in (0, 1):
                        add(tuple(c + base for c in order), f"seat {p}'s hand after event {n}")
            add_order(snap.pile, f"the draw pile's order after event {n}")
        if ns:
            add_order(tuple(self.payloads[0]["draw_pile"]), "the initial draw pile's order")
            for seq, order in self.reshuffles:
                if seq <= ns[-1]:
                    add_order(order, f"the order of the reshuffle in event {seq}")
        self._cache[key] = out
        return out


# --- finding leaks in one document -------------------------------------------------------


def sequences_in(text: str, own_cards: set[int]) -> set[tuple[int, ...]]:
    """Every run of 4 and of 6 numbers in ``text``: comma-separated (JSON lists,
    "3, 5, 5, 9") and the mini-cards of HTML pages and emails in page order.

    Mini-cards stand side by side (an email shows the hand, then the cards
    that can be played), so a run of them is evidence only if it holds a card
    the viewer does not hold (``own_cards``, 1-based)."""
    found: set[tuple[int, ...]] = set()
    for match in RUN.finditer(text):
        run = tuple(int(x) for x in re.split(r"\s*,\s*", match.group()))
        found.update(_windows(run, (*HAND_LENGTHS, PILE_WINDOW)))
    for pattern in CARD_ATTRIBUTES:
        cards = tuple(int(x) for x in pattern.findall(text))
        found.update(w for w in _windows(cards, (*HAND_LENGTHS, PILE_WINDOW)) if not set(w) <= own_cards)
    return found


def json_problems(data: Any, seat: int | None, truth: Truth, ns: Iterable[int]) -> list[str]:
    """Structural checks of a JSON body: no secret keys, no other seat's hand, no other seat's draw."""
    problems: list[str] = []
    own = truth.own_hands(seat, ns)

    def walk(node: Any, path: str) -> None:
        if isinstance(node, dict):
            for key in sorted(FORBIDDEN_KEYS & node.keys()):
                problems.append(f"the key {key!r} at {path}")
            hands = node.get("hands")
            if isinstance(hands, list):
                for i, hand in enumerate(hands):
                    if hand is not None and i != seat:
                        problems.append(f"seat {i}'s hand in 'hands' at {path}")
            if "hands_before" in node and not truth.finished:
                problems.append(f"'hands_before' of a game that is not finished at {path}")
            hand = node.get("hand")
            if isinstance(hand, list) and tuple(hand) not in own:
                problems.append(f"a hand {hand} that is not the viewer's own at {path}")
            if node.get("type") in DRAW_EVENTS and node.get("player") != seat and node.get("drew") is not None:
                problems.append(f"seat {node.get('player')}'s draw {node.get('drew')} at {path}")
            for key, value in node.items():
                walk(value, f"{path}.{key}")
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, f"{path}[{i}]")

    walk(data, "$")
    return problems


def find_leaks(
    truth: Truth, seat: int | None, text: str, ns: Iterable[int], *, data: Any = None
) -> tuple[list[str], int]:
    """What ``text`` (and its parsed JSON ``data``) tells ``seat`` that it must not
    know about the states after the events ``ns``; and how many signatures were checked."""
    ns = {truth.version, *ns} if truth.version else set()
    problems: list[str] = []
    if truth.seed and truth.seed.lower() in text.lower():
        problems.append("the shuffle seed")
    if data is not None:
        problems += json_problems(data, seat, truth, ns)
    cards = [int(x) for x in DATA_CARD.findall(text)]
    if cards and tuple(cards) not in truth.own_hands(seat, ns):
        problems.append(f"hand cards {cards} on a page that are not the viewer's own hand")
    own_cards = {card for hand in truth.own_hands(seat, ns) for card in hand}
    found = sequences_in(text, own_cards)
    signatures = truth.secrets_for(seat, ns)
    problems += [f"{what}: {list(sig)} {locate(text, sig)}" for sig, what in signatures.items() if sig in found]
    return problems, len(signatures)


def locate(text: str, signature: tuple[int, ...]) -> str:
    """Where a sequence was found, to make a finding easy to chase."""
    pattern = r"(?<![\d.])" + r"\s*,\s*".join(map(str, signature)) + r"(?![\d.])"
    match = re.search(pattern, text)
    if match is None:
        return "(in the mini-cards' attributes)"
    start, end = max(0, match.start() - 60), match.end() + 60
    return "in ..." + " ".join(text[start:end].split()) + "..."
