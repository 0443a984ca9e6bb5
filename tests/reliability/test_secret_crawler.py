"""The secret crawler: everything a seat can get from the site, checked for
what that seat must never learn.

Games of two, three and four players are played through the API. At every
phase (lobby, selection, placement in mid-round, right after an R16 redraw,
right after a reshuffle, finished) each seat, a stranger, an anonymous client
and a staff operator walk every GET endpoint of the API, every web page and
every email they were sent, and every response to the moves they make.
Each document is checked against the server's own knowledge of the game
(``Truth``: the log folded after every event) for

* the shuffle seed (``GameSecret.seed``), which must appear nowhere at all;
* another seat's hand, structurally in JSON (``hand``/``hands`` keys, the
  ``drew`` of another seat's draw) and web pages (the ``data-card`` of the
  hand), and as a card sequence anywhere: comma-separated runs of numbers
  (JSON lists, "3, 5, 5, 9" in text) and the mini-cards of HTML pages and
  emails (``data-card``, ``title``/``aria-label="Card n"``), 1- and 0-based,
  in the hand's order and sorted;
* the draw pile's order, every reshuffle's order and the initial pile's
  order: every run of 6 consecutive cards, either way round, 1- and 0-based.

A sequence is checked only where it is *distinctive*: if the same numbers are
public to the viewer (their own hand, anyone's discards, selected and reserve
piece counts, the viewer's redacted log, the record of a finished game) the
signature proves nothing and is skipped. The self-check tests at the end
inject leaks of every kind into the application (monkeypatching, never
editing it) and assert the crawler reports each one.

Games are deterministic: the shuffle seed is fixed by replacing
``games.services.secrets`` for the test, and the moves come from the engine's
bots with generators seeded by the version. The four-player game's deal is
rigged (``engine.create_game`` wrapped) so that seat 1 is stuck in round 1
and must redraw (R16); no bot game redraws on its own.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from email.message import EmailMessage
from types import SimpleNamespace
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import User
from accounts.services import create_api_token
from games import engine, store
from games.engine import Action, PlacePiece, Resign, SelectPieces
from games.engine.bots import bot_for
from games.engine.events import apply_in_place, initial_state
from games.models import Game, GameEvent, GameSecret
from games.presentation.table import HandCard, card_cells
from games.services import lobby
from notifications import digests, outbox, reminders, replies
from notifications import emails as notification_emails
from notifications.models import Notification, Preference
from notifications.reply_address import reply_address
from tests.notifications.helpers import digest_time

pytestmark = pytest.mark.django_db

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


# --- viewers and the crawl ----------------------------------------------------------------


@dataclass
class Viewer:
    label: str
    seat: int | None
    user: User | None
    api: APIClient
    web: Client


def api_client(user: User | None) -> APIClient:
    client = APIClient()
    client.raise_request_exception = False
    if user is not None:
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {create_api_token(user=user, name='crawler').raw}")
    return client


def web_client(user: User | None) -> Client:
    client = Client(raise_request_exception=False)
    if user is not None:
        client.force_login(user)
    return client


def make_viewer(label: str, seat: int | None, user: User | None) -> Viewer:
    return Viewer(label=label, seat=seat, user=user, api=api_client(user), web=web_client(user))


@dataclass
class Crawler:
    game: Game
    viewers: list[Viewer]
    staff: Viewer
    mailbox: list[Any]
    truth: Truth = field(init=False)
    findings: list[str] = field(default_factory=list)
    counts: Counter[tuple[str, str]] = field(default_factory=Counter)
    email_kinds: Counter[str] = field(default_factory=Counter)
    checkpoints: list[str] = field(default_factory=list)
    signatures: int = 0
    states_done: dict[str, int] = field(default_factory=dict)
    events_seen: dict[str, int] = field(default_factory=dict)
    mail_index: int = 0
    once: set[str] = field(default_factory=set)
    seconds: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.truth = Truth(self.game)

    @property
    def gid(self) -> str:
        return str(self.game.public_id)

    def viewer_by_email(self, email: str) -> Viewer | None:
        return next((v for v in self.viewers if v.user is not None and v.user.email == email.lower()), None)

    # -- checking ----------------------------------------------------------------------

    def check(
        self, viewer: Viewer, channel: str, where: str, text: str, *, ns: Iterable[int] = (), data: Any = None
    ) -> list[str]:
        with self.timed("checks"):
            problems, checked = find_leaks(self.truth, viewer.seat, text, ns, data=data)
        self.signatures += checked
        self.counts[viewer.label, channel] += 1
        found = [f"[{self.checkpoints[-1] if self.checkpoints else '-'}] {viewer.label} {where}: {p}" for p in problems]
        self.findings += found
        return found

    def check_response(self, viewer: Viewer, channel: str, where: str, response: Any, ns: Iterable[int] = ()) -> None:
        if response.status_code >= 500:
            self.findings.append(f"{viewer.label} {where}: HTTP {response.status_code}")
        text = response.content.decode("utf-8", errors="replace")
        data = None
        if "json" in response.get("Content-Type", "") and text:
            data = json.loads(text)
        for header in ("Location", "ETag", "Link"):
            if response.has_header(header):
                text += f"\n{header}: {response[header]}"
        self.check(viewer, channel, where, text, ns=ns, data=data)

    # -- one checkpoint ---------------------------------------------------------------------

    def checkpoint(self, name: str, *, last: bool = False) -> None:
        """Every viewer walks everything they can reach now (the staff walks
        the whole admin at the ``last`` checkpoint, the game's pages at every one)."""
        self.game.refresh_from_db()
        self.truth.refresh()
        self.checkpoints.append(name)
        cache.clear()  # the throttles count in the cache; the crawl is not what they are for
        for viewer in self.viewers:
            with self.timed("api"):
                self.crawl_api(viewer)
            with self.timed("web"):
                self.crawl_web(viewer)
        with self.timed("admin"):
            self.crawl_admin(self.staff, everything=last)
        with self.timed("email"):
            self.crawl_emails()

    @contextmanager
    def timed(self, what: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[what] = self.seconds.get(what, 0.0) + time.perf_counter() - start

    def history_points(self) -> list[int]:
        v = self.truth.version
        points = {1, v // 2, v - 1}
        points |= {seq for seq, _order in self.truth.reshuffles}
        points |= {i + 1 for i, p in enumerate(self.truth.payloads) if p["type"] == "hand_redrawn"}
        return sorted(n for n in points if 1 <= n <= v)

    def crawl_api(self, viewer: Viewer) -> None:
        gid, v = self.gid, self.truth.version
        urls = [
            f"{API}/games",
            f"{API}/games?status=lobby",
            f"{API}/games?status=active",
            f"{API}/games?status=finished",
            f"{API}/games?my_turn=1",
            f"{API}/games/{gid}",
            f"{API}/games/{gid}/legal-actions",
            f"{API}/games/{gid}/events?after=0",
            f"{API}/games/{gid}/events?after={self.events_seen.get(viewer.label, 0)}",
            f"{API}/games/{gid}/record",
            f"{API}/games/{gid}/states/0",
            f"{API}/games/{gid}/states/{v + 1}",
            f"{API}/me",
            f"{API}/tokens",
        ]
        if viewer.label in ("seat 0", "anonymous") and f"static:{viewer.label}" not in self.once:
            # The same for every user: read once per game by a player and by nobody.
            self.once.add(f"static:{viewer.label}")
            urls += [f"{API}/schema/", f"{API}/docs/"]
        for url in urls:
            self.check_response(viewer, "api", f"GET {url}", viewer.api.get(url))
        states = range(self.states_done.get(viewer.label, 0) + 1, v + 1)
        if viewer.user is None:
            states = range(max(v, 1), v + 1)  # refused (401) whatever n is: one is enough
        for n in states:
            url = f"{API}/games/{gid}/states/{n}"
            self.check_response(viewer, "api", f"GET {url}", viewer.api.get(url), ns=[n])
        self.states_done[viewer.label] = v
        self.events_seen[viewer.label] = v

    def crawl_web(self, viewer: Viewer) -> None:
        gid = self.gid
        pages: list[tuple[str, list[int]]] = [
            ("/games/", []),
            ("/games/new/", []),
            (f"/games/{gid}/", []),
            ("/mail/preferences/", []),
        ]
        pages += [(f"/games/{gid}/?at={n}", [n]) for n in self.history_points()]
        for url, ns in pages:
            self.check_response(viewer, "web", f"GET {url}", viewer.web.get(url), ns=ns)

    def crawl_admin(self, staff: Viewer, *, everything: bool) -> None:
        pk = self.game.pk
        pages: list[tuple[str, list[int]]] = [
            ("/admin/games/game/", []),
            (f"/admin/games/game/{pk}/change/", []),
            (f"/admin/games/game/{pk}/replay/", []),
        ]
        if everything:
            pages += [
                ("/admin/", []),
                (f"/admin/games/game/?q={self.gid}", []),
                (f"/admin/games/game/{pk}/undo/", []),
                ("/admin/games/gamesecret/", []),  # not registered: 404, and must stay so
                (f"/admin/games/gamesecret/{pk}/change/", []),
                ("/admin/games/gameevent/", []),
                ("/admin/notifications/notification/", []),
                ("/admin/accounts/apitoken/", []),
            ]
            pages += [(f"/admin/games/game/{pk}/replay/?n={n}", [n]) for n in self.history_points()]
        for url, ns in pages:
            self.check_response(staff, "admin", f"GET {url}", staff.web.get(url), ns=ns)

    def crawl_emails(self) -> None:
        """Deliver everything pending, then read every email sent since the last look."""
        self.deliver()
        messages = self.mailbox[self.mail_index :]
        self.mail_index = len(self.mailbox)
        by_message_id = {n.message_id: n for n in Notification.objects.filter(status=Notification.Status.SENT)}
        for message in messages:
            viewer = self.viewer_by_email(message.to[0])
            assert viewer is not None, f"an email to someone outside the game: {message.to}"
            notification = by_message_id.get(message.extra_headers.get("Message-ID", ""))
            assert notification is not None, f"an email without its outbox row: {message.subject}"
            self.email_kinds[notification.kind] += 1
            seq = notification.context.get("seq") or self.truth.version
            ns = [seq] if seq else []
            where = f"email {notification.kind} #{notification.pk}"
            headers = "\n".join(f"{k}: {v}" for k, v in message.extra_headers.items())
            text = f"Subject: {message.subject}\nReply-To: {message.reply_to}\n{headers}\n\n{message.body}"
            html = "\n".join(str(content) for content, _mime in message.alternatives)
            self.check(viewer, "email part", f"{where} (text)", text, ns=ns)
            self.check(viewer, "email part", f"{where} (html)", html, ns=ns)
            self.counts[viewer.label, "email"] += 1
            self.check_email_hand(viewer, where, message.body, html, seq)

    def deliver(self) -> None:
        """Send every pending email (the crawl reads them from the mailbox)."""
        with self.timed("email building"):
            while outbox.sweep_outbox(timezone.now() + timedelta(days=365)):
                pass

    def check_email_hand(self, viewer: Viewer, where: str, text: str, html: str, seq: int) -> None:
        """The hand an email shows is the recipient's own, as it was when the email was written."""
        own = self.truth.own_hands(viewer.seat, [seq, self.truth.version])
        for line in EMAIL_HAND_LINE.findall(text):
            cards = tuple(int(x) for x in re.findall(r"\d+", line))
            if cards and cards not in own:
                self.findings.append(f"{viewer.label} {where}: 'Your hand' shows {list(cards)}, not theirs")
        allowed = {card for hand in own for card in hand}
        shown = {int(x) for x in EMAIL_TITLE_CARD.findall(html)}
        if shown - allowed:
            self.findings.append(f"{viewer.label} {where}: mini-cards {sorted(shown - allowed)} not in their hand")

    def summary(self) -> str:
        kinds = dict(sorted(self.email_kinds.items()))
        lines = [f"checkpoints: {', '.join(self.checkpoints)}; emails by kind: {kinds}"]
        for viewer in [*self.viewers, self.staff]:
            c = {ch: self.counts[viewer.label, ch] for ch in ("api", "web", "email", "post", "admin")}
            lines.append(f"  {viewer.label}: " + ", ".join(f"{k} {n}" for k, n in c.items() if n))
        documents = sum(n for (_label, channel), n in self.counts.items() if channel != "email")
        lines.append(f"  documents {documents}, signatures checked {self.signatures}, gated {self.truth.gated}")
        lines.append("  seconds: " + ", ".join(f"{k} {v:.1f}" for k, v in sorted(self.seconds.items())))
        return "\n".join(lines)


# --- tables: games played through the API while the crawler looks ---------------------------


Script = dict[int, list[Action]]


class Table:
    """A game of ``players`` humans, created, joined, started and played through
    the API, every response checked, the crawler walking at each checkpoint."""

    def __init__(
        self,
        name: str,
        players: int,
        monkeypatch: pytest.MonkeyPatch,
        mailbox: list[Any],
        *,
        copies: int = 5,
        policy: str = "random",
    ) -> None:
        self.name = name
        self.players = players
        self.monkeypatch = monkeypatch
        self.seed = seed_for(name)
        self.policy = policy
        self.users = [User.objects.create_user(email=f"{name}-seat{i}@example.com") for i in range(players)]
        self.seat_viewers = [make_viewer(f"seat {i}", i, u) for i, u in enumerate(self.users)]
        stranger = User.objects.create_user(email=f"{name}-stranger@example.com")
        staff = User.objects.create_user(email=f"{name}-staff@example.com", is_staff=True, is_superuser=True)
        viewers = [*self.seat_viewers, make_viewer("stranger", None, stranger), make_viewer("anonymous", None, None)]
        creator = self.seat_viewers[0]
        body = {
            "options": {"players": players, "start_player": 0, "copies_per_position": copies},
            "seats": [{"kind": "me"}] + [{"kind": "invite", "email": u.email} for u in self.users[1:]],
        }
        response = creator.api.post(f"{API}/games", body, format="json")
        assert response.status_code == 201, response.content
        self.game = Game.objects.get(public_id=response.json()["id"])
        self.crawler = Crawler(self.game, viewers, make_viewer("staff", None, staff), mailbox)
        self.crawler.check_response(creator, "post", "POST /games", response)
        self.script: Script = {}

    @property
    def truth(self) -> Truth:
        return self.crawler.truth

    @property
    def gid(self) -> str:
        return str(self.game.public_id)

    def post(self, viewer: Viewer, path: str, body: dict[str, Any] | None = None) -> Any:
        response = viewer.api.post(f"{API}/games/{self.gid}/{path}", body or {}, format="json")
        assert response.status_code == 200, (path, response.status_code, response.content[:500])
        self.truth.refresh()
        self.crawler.check_response(viewer, "post", f"POST {path}", response)
        return response

    def join_all(self) -> None:
        """Every invitee but the last joins: the last join deals (``start``)."""
        for viewer in self.seat_viewers[1:-1]:
            self.post(viewer, "join")

    def start(self, rig: Callable[[dict[str, Any]], None] | None = None) -> None:
        self.monkeypatch.setattr(lobby, "secrets", SimpleNamespace(token_hex=lambda _n: self.seed))
        if rig is not None:
            real = engine.create_game

            def rigged(options: engine.GameOptions, rng: random.Random) -> dict[str, Any]:
                created = real(options, rng)
                rig(created)
                return created

            self.monkeypatch.setattr(engine, "create_game", rigged)
        # The last seat taken, the game deals itself.
        self.post(self.seat_viewers[-1], "join")
        assert self.truth.seed == self.seed

    def choose(self, state: engine.GameState, seat: int) -> Action:
        if self.script.get(seat):
            return self.script[seat].pop(0)
        view = engine.player_view(state, seat)
        return bot_for(self.policy)(view, random.Random(f"drive:{self.seed}:{state.seq}"))

    def move(self, action: Action | None = None, *, seat: int | None = None) -> list[dict[str, Any]]:
        """``seat`` (by default the seat to act) plays ``action`` (by default its
        scripted move, or the bot's choice); the new events."""
        state = self.truth.state
        assert state is not None
        seat = state.to_act if seat is None else seat
        assert seat is not None, "nobody is to act"
        before = self.truth.version
        action = action or self.choose(state, seat)
        body = {"action": engine.action_to_json(action), "expected_version": before}
        with self.crawler.timed("moves"):
            self.post(self.seat_viewers[seat], "actions", body)
        return self.truth.payloads[before:]

    def play_until(self, done: Callable[[list[dict[str, Any]]], bool], limit: int = 400) -> None:
        for _ in range(limit):
            if self.truth.finished:
                raise AssertionError("the game finished before the condition was met")
            if done(self.move()):
                return
        raise AssertionError("the condition was never met")

    def play_to_end(self) -> None:
        moves = 0
        while not self.truth.finished:
            self.move()
            moves += 1
            if moves % 150 == 0:
                cache.clear()

    # -- extra emails ----------------------------------------------------------------------------

    def remind_and_time_out(self) -> None:
        """A reminder (two days on), then a timeout move and its email, for the seat to act (a month later)."""
        # Not at the month: by then the timeout is past, and the warning is the one email (issue 22).
        assert reminders.send_due_reminders(now=timezone.now() + timedelta(days=2)) >= 1
        later = timezone.now() + timedelta(days=30)
        reminders.time_out_absent_players(now=later)  # the warning comes first (issue 12)
        assert reminders.time_out_absent_players(now=later + timedelta(days=2)) >= 1
        self.truth.refresh()

    def refused_reply(self) -> None:
        """The seat to act replies to their "your turn" email with a card they do not hold."""
        self.game.refresh_from_db()
        state = self.truth.state
        assert state is not None
        seat = state.to_act
        assert seat is not None
        notification = (
            Notification.objects.filter(game=self.game, seat=seat, kind__in=replies.REPLYABLE)
            .order_by("-created", "-pk")
            .first()
        )
        assert notification is not None
        missing = next(card for card in range(9) if card not in state.hands[seat])
        message = EmailMessage()
        message["From"] = self.users[seat].email
        message["To"] = reply_address(notification)
        message["Subject"] = "Re: your turn"
        message["Message-ID"] = f"<refused-{self.name}@example.com>"
        message.set_content(f"card {missing + 1} city 1 size 1\n")
        outcome = replies.handle_inbound(message)
        assert not outcome.accepted

    def digest_reader(self, seat: int) -> None:
        Preference.objects.update_or_create(
            user=self.users[seat], defaults={"frequency": Preference.Frequency.DAILY_DIGEST}
        )


def has(kind: str) -> Callable[[list[dict[str, Any]]], bool]:
    return lambda events: any(e["type"] == kind for e in events)


def reshuffled(events: list[dict[str, Any]]) -> bool:
    return any("reshuffle" in e for e in events)


def assert_clean(table: Table, *, expected_checkpoints: list[str], expected_kinds: set[str]) -> None:
    crawler = table.crawler
    print(f"\n{table.name}: {crawler.summary()}")
    assert crawler.findings == [], "\n".join(crawler.findings[:40])
    assert crawler.checkpoints == expected_checkpoints
    assert expected_kinds <= set(crawler.email_kinds), crawler.email_kinds
    for viewer in crawler.viewers:
        assert crawler.counts[viewer.label, "api"] > 0
        assert crawler.counts[viewer.label, "web"] > 0
    for viewer in table.seat_viewers:
        assert crawler.counts[viewer.label, "email"] > 0, viewer.label
    assert crawler.counts["staff", "admin"] > 0
    assert crawler.signatures > 1000, "the crawl checked next to nothing: the test would prove nothing"


# --- the crawls ------------------------------------------------------------------------------------


def test_two_players_nothing_secret_reaches_anyone(monkeypatch, mailoutbox):
    # Two copies of each card: 8 are dealt, and the pile of 10 runs out in round 1.
    table = Table("two", 2, monkeypatch, mailoutbox, copies=2)
    table.join_all()
    table.crawler.checkpoint("lobby")
    table.start()
    table.crawler.checkpoint("selection")
    table.play_until(lambda events: table.truth.state.phase == "placement" and table.truth.state.placements >= 3)
    table.crawler.checkpoint("placement")
    table.refused_reply()
    table.remind_and_time_out()
    table.crawler.checkpoint("reminder, refusal and timeout")
    table.play_until(reshuffled)
    table.crawler.checkpoint("reshuffle")
    # From here seat 1 reads one digest a day instead of an email per turn (fewer emails to build).
    table.digest_reader(1)
    table.play_to_end()  # six rounds, and a reshuffle in nearly every one
    table.crawler.deliver()  # seat 1's updates are gathered for the digest, seat 0's are sent (and read below)
    assert digests.send_digests(now=digest_time(days=1)) == 1
    table.crawler.checkpoint("finished", last=True)
    assert_clean(
        table,
        expected_checkpoints=[
            "lobby",
            "selection",
            "placement",
            "reminder, refusal and timeout",
            "reshuffle",
            "finished",
        ],
        expected_kinds={
            "invitation",
            "game_started",
            "your_turn",
            "round_scored",
            "game_over",
            "reminder",
            "timeout",
            "move_refused",
            "digest",
        },
    )


def test_three_players_nothing_secret_reaches_anyone(monkeypatch, mailoutbox):
    # Three copies of each card: 12 are dealt, and the pile of 15 runs out in round 2.
    table = Table("three", 3, monkeypatch, mailoutbox, copies=3, policy="greedy")
    table.join_all()
    table.digest_reader(2)
    table.crawler.checkpoint("lobby")
    table.start()
    table.crawler.checkpoint("selection")
    table.play_until(lambda events: table.truth.state.phase == "placement" and table.truth.state.placements >= 5)
    table.crawler.checkpoint("placement")
    table.play_until(reshuffled)
    assert digests.send_digests(now=digest_time(days=1)) >= 1
    table.crawler.checkpoint("reshuffle")
    # Seat 1 leaves: its hand stays its own while the others play on, until seat 2 leaves too.
    table.move(Resign(), seat=1)
    assert table.truth.state.resigned[1]
    table.play_until(lambda events: table.truth.state.phase == "placement" and table.truth.state.to_act == 2)
    table.crawler.checkpoint("resigned")
    table.move(Resign(), seat=2)
    assert table.truth.finished
    table.crawler.checkpoint("finished", last=True)
    assert_clean(
        table,
        expected_checkpoints=["lobby", "selection", "placement", "reshuffle", "resigned", "finished"],
        expected_kinds={"invitation", "game_started", "your_turn", "round_scored", "game_over", "digest"},
    )


# The four-player deal: seat 0 (red, south) holds card 3 (0-based 2, lot 2 from the
# south) and builds a 2-storey tower on lot 2 of every city; seat 1 (blue, west)
# chose only 1-storey pieces and is left holding four cards 1 (lot 2 from the west):
# after red's sixth placement blue cannot build and redraws (R16).
RED_SIZES, BLUE_SIZES, OTHER_SIZES = [2] * 6, [1] * 6, [1, 1, 1, 1, 2, 2]
RIGGED_HANDS = [[2, 2, 2, 2], [0, 0, 0, 4], [8, 8, 8, 8], [1, 1, 1, 1]]
RIGGED_DRAWS = [2, 4, 8, 1, 2, 4, 8, 1, 7, 4, 5, 3, 7, 4, 5, 3, 7, 0, 5, 3, 7, 4, 5, 6, 7]
RIGGED_COPIES = 7


def rig_redraw(created: dict[str, Any]) -> None:
    deck = Counter(dict.fromkeys(range(9), RIGGED_COPIES))
    deck.subtract(Counter(c for hand in RIGGED_HANDS for c in hand))
    deck.subtract(Counter(RIGGED_DRAWS))
    rest = sorted(deck.elements())
    random.Random("rest of the rigged deck").shuffle(rest)
    created["hands"] = [list(h) for h in RIGGED_HANDS]
    created["draw_pile"] = rest + RIGGED_DRAWS[::-1]  # the top of the pile is its end


def test_four_players_with_a_redraw_nothing_secret_reaches_anyone(monkeypatch, mailoutbox):
    table = Table("four", 4, monkeypatch, mailoutbox, copies=RIGGED_COPIES)
    table.join_all()
    table.crawler.checkpoint("lobby")
    table.start(rig=rig_redraw)
    assert table.truth.payloads[0]["hands"] == RIGGED_HANDS
    # Round 1 as scripted above: seat -> its actions in order (then the bots take over).
    moves: list[tuple[int, list[int], int, list[int]]] = [
        (0, RED_SIZES, 2, RED_SIZES),
        (1, BLUE_SIZES, 4, BLUE_SIZES),
        (2, OTHER_SIZES, 8, OTHER_SIZES),
        (3, OTHER_SIZES, 1, OTHER_SIZES),
    ]
    for seat, selection, card, sizes in moves:
        table.script[seat] = [SelectPieces(tuple(selection))]
        table.script[seat] += [PlacePiece(card=card, city=city, size=size) for city, size in enumerate(sizes)]
    table.crawler.checkpoint("selection")
    table.play_until(lambda events: table.truth.state.phase == "placement" and table.truth.state.placements >= 6)
    table.crawler.checkpoint("placement")
    table.play_until(has("hand_redrawn"))
    redraw = next(e for e in table.truth.payloads if e["type"] == "hand_redrawn")
    assert redraw["player"] == 1
    assert redraw["drew"] == [4, 5, 6, 7]
    table.crawler.checkpoint("redraw")
    table.play_until(reshuffled)
    table.crawler.checkpoint("reshuffle")
    for seat in (3, 2, 1):  # three leave: one player is left, and the game is over
        table.move(Resign(), seat=seat)
    assert table.truth.finished
    table.crawler.checkpoint("finished", last=True)
    assert all(not moves for moves in table.script.values())
    assert_clean(
        table,
        expected_checkpoints=["lobby", "selection", "placement", "redraw", "reshuffle", "finished"],
        expected_kinds={"invitation", "game_started", "your_turn", "round_scored", "game_over"},
    )


# --- the self-check: the crawler catches injected leaks ----------------------------------------------


@pytest.fixture
def small_table(monkeypatch, mailoutbox) -> Table:
    """A two-player game in its first placements, with emails still to deliver."""
    table = Table("small", 2, monkeypatch, mailoutbox)
    table.join_all()
    table.start()
    table.play_until(lambda events: table.truth.state.phase == "placement" and table.truth.state.placements >= 2)
    table.crawler.once |= {"static:seat 0", "static:anonymous"}  # the schema and docs: crawled by the big tests
    return table


def _other_hand(game: Game, seat: int | None) -> list[int]:
    state = store.state_of(game)
    assert state is not None
    return list(state.hands[((seat or 0) + 1) % state.players])


def leak_next_seats_hand_as_own(monkeypatch: pytest.MonkeyPatch, table: Table) -> None:
    real = engine.player_view

    def leaky(state: engine.GameState, seat: int | None) -> engine.PlayerView:
        view = real(state, seat)
        if seat is None:
            return view
        return view._replace(hand=tuple(state.hands[(seat + 1) % state.players]))

    monkeypatch.setattr(engine, "player_view", leaky)


def leak_every_hand_in_the_json(monkeypatch: pytest.MonkeyPatch, table: Table) -> None:
    real = engine.PlayerView.to_json

    def to_json(self: engine.PlayerView) -> dict[str, Any]:
        data = real(self)
        state = store.state_of(table.game)
        assert state is not None
        data["debug"] = {"all": [[c + 1 for c in h] for h in state.hands]}
        return data

    monkeypatch.setattr(engine.PlayerView, "to_json", to_json)


def leak_unredacted_events(monkeypatch: pytest.MonkeyPatch, table: Table) -> None:
    def identity(event: dict[str, Any], seat: int | None) -> dict[str, Any]:
        return dict(event)

    monkeypatch.setattr(engine, "redact_event", identity)
    monkeypatch.setattr("games.engine.views.redact_event", identity)


def leak_seed_in_the_summary(monkeypatch: pytest.MonkeyPatch, table: Table) -> None:
    from games.api.serializers import GameSummarySerializer
    from games.models import GameSecret

    real = GameSummarySerializer.to_representation

    def summary(self: GameSummarySerializer, game: Game) -> dict[str, Any]:
        data = dict(real(self, game))
        data["etag_salt"] = GameSecret.objects.filter(game=game).values_list("seed", flat=True).first() or ""
        return data

    monkeypatch.setattr(GameSummarySerializer, "to_representation", summary)


def leak_the_pile_in_the_email_board(monkeypatch: pytest.MonkeyPatch, table: Table) -> None:
    from games.presentation import board

    real = board.text_board

    def text_board(cities: list[Any]) -> str:
        state = store.state_of(table.game)
        assert state is not None
        upcoming = ", ".join(str(c + 1) for c in reversed(state.draw_pile))
        return real(cities) + f"\nComing up: {upcoming}"

    monkeypatch.setattr(board, "text_board", text_board)


def leak_another_hand_as_page_cards(monkeypatch: pytest.MonkeyPatch, table: Table) -> None:
    from games.presentation import table as present

    real = present.hand_cards

    def hand_cards(view: engine.PlayerView, legal: Any = None) -> list[Any]:
        if view.seat is None:
            return real(view, legal)
        return real(view._replace(hand=tuple(_other_hand(table.game, view.seat))), legal)

    monkeypatch.setattr(present, "hand_cards", hand_cards)


def leak_another_hand_in_the_email_html(monkeypatch: pytest.MonkeyPatch, table: Table) -> None:
    """Only the HTML part shows the other hand (as mini-cards); the text part is right."""
    real = notification_emails.render_to_string  # type: ignore[attr-defined]

    def render_to_string(name: str, context: dict[str, Any]) -> str:
        if name.endswith("-body.html") and context.get("view"):
            other = [c + 1 for c in _other_hand(table.game, context["notification"].seat)]
            cards = [
                HandCard(index=i, card=card, cells=card_cells(card), lot=card, lot_cells=card_cells(card), cities=[])
                for i, card in enumerate(other)
            ]
            context = {**context, "hand": cards}
        return real(name, context)

    monkeypatch.setattr(notification_emails, "render_to_string", render_to_string)


def leak_raw_payloads_to_the_admin(monkeypatch: pytest.MonkeyPatch, table: Table) -> None:
    from games.admin import GameEventInline

    monkeypatch.setattr(GameEventInline, "public_payload", lambda self, event: json.dumps(event.payload))


def leak_a_hand_in_the_spectator_view(monkeypatch: pytest.MonkeyPatch, table: Table) -> None:
    real = engine.player_view
    monkeypatch.setattr(engine, "spectator_view", lambda state: real(state, 0))


LEAKS: dict[str, tuple[Callable[[pytest.MonkeyPatch, Table], None], str, str]] = {
    # name: (inject, a channel that must report it, words the finding must contain)
    "own hand replaced by the next seat's": (leak_next_seats_hand_as_own, "api", "not the viewer's own"),
    "every hand in the game JSON": (leak_every_hand_in_the_json, "api", "hand after event"),
    "events not redacted": (leak_unredacted_events, "api", "'draw_pile'"),
    "seed in the game summary": (leak_seed_in_the_summary, "api", "the shuffle seed"),
    "draw pile in the email's board": (leak_the_pile_in_the_email_board, "email", "the draw pile's order"),
    "another hand as the page's cards": (leak_another_hand_as_page_cards, "web", "hand cards"),
    "another hand in the email's HTML": (leak_another_hand_in_the_email_html, "email", "(html): seat"),
    "raw payloads in the admin": (leak_raw_payloads_to_the_admin, "admin", "draw pile's order"),
    "a hand in the spectator's states": (leak_a_hand_in_the_spectator_view, "api", "states/"),
}


def test_self_check_the_crawler_finds_nothing_when_nothing_leaks(small_table):
    small_table.crawler.checkpoint("control")
    assert small_table.crawler.findings == []
    assert small_table.crawler.signatures > 100


@pytest.mark.parametrize("leak", sorted(LEAKS))
def test_self_check_the_crawler_catches_an_injected_leak(small_table, monkeypatch, leak):
    inject, channel, words = LEAKS[leak]
    inject(monkeypatch, small_table)
    small_table.crawler.checkpoint(f"leak: {leak}")
    findings = small_table.crawler.findings
    assert findings, f"the crawler missed the injected leak {leak!r}"
    where = {"api": "GET /api", "web": "GET /games", "email": "email", "admin": "GET /admin"}[channel]
    assert any(where in f and words in f for f in findings), "\n".join(findings[:20])
