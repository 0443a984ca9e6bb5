"""The one way to read and write a game's log.

A game is its append-only event log; its state is the fold of the log. Every
reader (the API, the pages, the emails, the admin, the bots) loads a game
here, and every writer appends here, inside its transaction with the game row
locked. Appending announces the new events through ``games.signals``, so
that other apps (emails, reminders) act in the same transaction without this
app knowing them.

Folding starts from the latest state this process already knows of the game
(``states``, checked against the log, so that a restore needs no restart), so
a request reads and applies only the events appended since — none at all when
it asks for the version the known state is at. Folding the whole log costs
~1.5 ms at the end of a game and made late moves dearer than early ones.

Why the known state is safe: a game's state at version ``v`` is the fold of
its first ``v`` events, and events are never changed or removed while the
service runs (corrections are new events), so a state known at ``v`` is the
right state at ``v`` and the right start for any later version — as long as it
is still the same log. A restore from a backup breaks that: it removes events,
and the moves played after it are new events with the same numbers (and, the
id sequence restored too, often the same row ids). So every state is kept with
its ``Mark``: the row id and time of its last event, and the game row's
``updated`` when the state was the game's latest. A read uses the state without
a query when the game row is at that version with that ``updated``; otherwise
it reads the events from the state's last one on and uses the state only if
that event is still the same row with the same time; otherwise it folds the
whole log. Only states of committed events are kept (on commit), games are
keyed by their public UUID (primary keys can be reused), and the cache is this
process's memory: nothing is shared and nothing leaves the server.
``tests/games/test_snapshots.py`` checks that a state read through the cache
always equals the fold of the whole log.

A player's move is played once per key (``Once``, ``replay``): its receipt
is stored with its events, in the same transaction.
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime
from operator import attrgetter
from typing import Any
from uuid import UUID

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Prefetch, Q, QuerySet
from django.utils import timezone

from accounts.models import User
from games import engine, seat_facts
from games.engine import GameState
from games.engine.events import GAME_FINISHED

from .errors import GameError, StaleVersion, not_found
from .models import Game, GameEvent, IdempotencyKey, Seat
from .signals import Appended, Cause, events_appended
from .table import LoadedGame


def with_seats(games: QuerySet[Game]) -> QuerySet[Game]:
    """``games`` with their seats and players read in one more query, so that
    ``game.seats.all()`` reads them from memory."""
    return games.prefetch_related(Prefetch("seats", queryset=Seat.objects.select_related("user")))


def games_of(user: User) -> QuerySet[Game]:
    """The games ``user`` plays in, and those still waiting that they created
    or are invited to, with their seats: the games ``user`` may see as their
    own (``games.services.visibility``; a creator without a seat, or an
    invitation turned down, sees no more of the game once it is dealt)."""
    waiting = Q(status=Game.Status.LOBBY)
    invited = Q(seats__invited_email__iexact=user.email, seats__user__isnull=True)
    mine = Game.objects.filter(Q(seats__user=user) | (waiting & (Q(creator=user) | invited))).distinct()
    return with_seats(mine)


def _get(games: QuerySet[Game], public_id: Any) -> Game:
    """The game with this public id; an unknown id and one that is not a UUID
    at all are the same to the caller."""
    try:
        return games.get(public_id=public_id)
    except (Game.DoesNotExist, ValueError, TypeError, ValidationError) as error:
        raise not_found() from error


def get(public_id: Any) -> Game:
    """The game with its seats prefetched (``game.seats.all()`` reads them from
    memory), without its state: lobby pages, summaries, the services that take a game."""
    return _get(with_seats(Game.objects.all()), public_id)


def load(public_id: Any, *, lock: bool = False, upto: int | None = None, fold: bool = True) -> LoadedGame:
    """The game, its seats and its state after event ``upto`` (by default its last).

    The game and its seats (with their players) are one statement, read from
    the seats' side: ``loaded.seats`` is the table, and ``game.seats`` is not
    filled (pass the seats on, e.g. ``visibility.may_see(..., seats=...)``).
    With ``lock`` the game row stays locked until the transaction ends (only
    that row: its secret, read with it, may not exist yet), the seats carry
    the facts other apps registered (``seat_facts``), and the state is the one
    every writer must start from: the log is checked to end at the game's version.
    """
    return loaded(_table(public_id, lock=lock), upto=upto, fold=fold)


def _table(public_id: Any, *, lock: bool) -> LoadedGame:
    """The game with this public id and its seats, in one statement; no state.
    Every game has its seats from its creation on, so no seat is no game."""
    try:
        # Unordered here and sorted below: for a read of some 50 columns, compiling an
        # ORDER BY costs Django more CPU (~0.2 ms) than sorting a table's few seats.
        seats = Seat.objects.filter(game__public_id=public_id).select_related("game", "user").order_by()
        if lock:
            # The writer's read also answers what the receivers of its move would ask (seat_facts).
            seats = seats.select_for_update(of=("game",)).select_related("game__secret")
            seats = seats.annotate(**seat_facts.as_annotations())
        table = sorted(seats, key=attrgetter("index"))
    except (ValueError, TypeError, ValidationError) as error:
        raise not_found() from error
    if not table:
        raise not_found()
    game = table[0].game
    for seat in table:
        seat.game = game  # one game for the table, not one copy per row
    return LoadedGame(game, table, None)


def loaded(table: LoadedGame, *, upto: int | None = None, fold: bool = True) -> LoadedGame:
    """``table`` (a game with its seats, no state yet: ``load(fold=False)``) with
    its state after event ``upto``."""
    game, seats = table.game, table.seats
    version = game.version if upto is None else min(upto, game.version)
    if not fold or version < 1:
        return LoadedGame(game, seats, None)
    state = state_of(game, upto=version)
    if state is None or state.seq != version:
        raise GameError("corrupt_log", "This game's log is out of step with the game; an operator has been told.")
    return LoadedGame(game, seats, state)


# --- the states this process knows ---------------------------------------------------------

MAX_GAMES = 512  # ~40 KB a state: about 20 MB a process at most


@dataclass(frozen=True)
class Mark:
    """What a cached state was folded from: its last event's row, and the game row's
    ``updated`` if the state was the game's latest then (``None`` if not known)."""

    event_pk: int
    event_created: datetime
    game_updated: datetime | None = None


class StateCache:
    """The latest known state per game, least recently used games dropped first."""

    def __init__(self, max_games: int = MAX_GAMES) -> None:
        self._states: OrderedDict[UUID, tuple[GameState, Mark]] = OrderedDict()
        self._max_games = max_games
        self._lock = threading.Lock()

    def latest(self, game_id: UUID) -> GameState | None:
        """The latest state of ``game_id`` this process knows, or ``None``.
        Callers must not change it (the engine never changes a state it is given)."""
        entry = self.latest_with_mark(game_id)
        return entry[0] if entry else None

    def latest_with_mark(self, game_id: UUID) -> tuple[GameState, Mark] | None:
        """The latest known state with what it was folded from, to be checked against the log."""
        with self._lock:
            entry = self._states.get(game_id)
            if entry is not None:
                self._states.move_to_end(game_id)
            return entry

    def remember(self, game_id: UUID, state: GameState, mark: Mark) -> None:
        """Keep ``state`` if it is later than what is known of the game, or the known one's
        log is gone (``mark`` differs at the same version: a restore)."""
        with self._lock:
            known = self._states.get(game_id)
            if known is None or known[0].seq < state.seq or (known[0].seq == state.seq and known[1] != mark):
                self._states[game_id] = (state, mark)
            self._states.move_to_end(game_id)
            while len(self._states) > self._max_games:
                self._states.popitem(last=False)

    def forget(self, game_id: UUID) -> None:
        with self._lock:
            self._states.pop(game_id, None)

    def clear(self) -> None:
        with self._lock:
            self._states.clear()


states = StateCache()


def state_of(game: Game, upto: int | None = None) -> GameState | None:
    """The game's state after event ``upto`` (by default after its last one),
    or ``None`` before it starts."""
    entry = states.latest_with_mark(game.public_id)
    if entry is not None:
        known, mark = entry
        target = game.version if upto is None else upto
        if known.seq == target == game.version and mark.game_updated == game.updated:
            return known  # the game row is as it was when this state was its latest
        if known.seq <= target:
            rows = _event_rows(game, after=known.seq - 1, upto=upto)
            if rows and rows[0][0] == mark.event_pk and rows[0][1] == mark.event_created:
                if len(rows) == 1:
                    _remember_on_commit(game, known, rows[0])
                    return known
                state = engine.fold_from(known, [payload for _pk, _created, payload in rows[1:]])
                _remember_on_commit(game, state, rows[-1])
                return state
        if known.seq > game.version or known.seq <= target:
            # Not the log this state was folded from (a restore replaced it): never use it again.
            states.forget(game.public_id)
    rows = _event_rows(game, upto=upto)
    if not rows:
        return None
    state = engine.fold([payload for _pk, _created, payload in rows])
    _remember_on_commit(game, state, rows[-1])
    return state


def _event_rows(game: Game, *, after: int = 0, upto: int | None = None) -> list[tuple[int, Any, engine.Event]]:
    """(row id, time, payload) of the game's events ``after`` < seq <= ``upto``, in order."""
    events = GameEvent.objects.filter(game=game, seq__gt=after)
    if upto is not None:
        events = events.filter(seq__lte=upto)
    return list(events.order_by("seq").values_list("pk", "created", "payload"))


def event_payloads(game: Game, *, after: int = 0, upto: int | None = None) -> list[engine.Event]:
    """The payloads of the game's events ``after`` < seq <= ``upto``, in order.
    They hold secrets: redact them (``engine.redact_events``) before they leave."""
    events = GameEvent.objects.filter(game=game, seq__gt=after)
    if upto is not None:
        events = events.filter(seq__lte=upto)
    return list(events.order_by("seq").values_list("payload", flat=True))


def winners_of(games: list[Game]) -> dict[int, list[int]]:
    """The winning seats of each finished game among ``games`` (by game pk), in
    one query: a list names its winners without folding any log."""
    finished = [game.pk for game in games if game.status == Game.Status.FINISHED]
    if not finished:
        return {}
    rows = GameEvent.objects.filter(game_id__in=finished, type=GAME_FINISHED).values_list("game_id", "payload")
    return {game_id: list(payload.get("winners", [])) for game_id, payload in rows}


def event_rows(game: Game, *, after: int = 0, limit: int = 1000) -> list[dict[str, Any]]:
    """Events after ``after`` with their sequence number and time (payloads unredacted)."""
    events = GameEvent.objects.filter(game=game, seq__gt=after).order_by("seq")
    return [dict(row) for row in events.values("seq", "payload", "created")[:limit]]


def _remember_on_commit(game: Game, state: GameState, last_event: tuple[Any, ...]) -> None:
    """Cache ``state`` once what it was folded from is committed: a state of a
    move that is rolled back must never be taken for the game's. ``last_event``
    is the (row id, time) of its last event, what a later read checks it against."""
    event_pk, event_created = last_event[0], last_event[1]
    if event_pk is None:
        return
    game_updated = game.updated if state.seq == game.version else None
    mark = Mark(event_pk, event_created, game_updated)
    public_id = game.public_id
    transaction.on_commit(lambda: states.remember(public_id, state, mark))


def chance(seed: str, version: int) -> random.Random:
    """The generator for the command made at ``version``: seeded from the
    game's secret, so the server (and nobody else) could re-derive it."""
    return random.Random(f"{seed}:{version}")


# What ``append`` changes: saving only these keeps a move from rewriting the
# options, the creator and the reminder policy with the values it read.
_APPEND_FIELDS = ["version", "phase", "round", "to_act_seat", "turn_since", "status", "finished", "updated"]


def _in_step(game: Game, state: GameState, now: datetime) -> None:
    """Bring the game's denormalised fields to ``state``, reached at ``now``."""
    game.version = state.seq
    game.phase = state.phase
    game.round = state.round
    game.to_act_seat = state.to_act
    game.turn_since = now if state.to_act is not None else None
    if state.is_finished:
        game.status = Game.Status.FINISHED
        game.finished = now


def append(
    loaded: LoadedGame,
    state: GameState,
    events: list[engine.Event],
    *,
    seat: int | None,
    actor: User | None,
    cause: Cause,
    once: Once | None = None,
) -> datetime:
    """Append ``events`` (which led to ``state``) after the game's last one,
    bring the game's denormalised fields in step, and announce them; the
    events' time (their ``created``) is returned. With ``once`` (the actor's
    key) the move's receipt is stored with it, for ``replay``.

    Runs inside the caller's transaction with the game row locked (``load(lock=True)``);
    the unique (game, seq) constraint is the last guard against a second writer.
    ``cause`` says why the events came, for the listeners.
    """
    game = loaded.game
    now = timezone.now()
    first = game.version + 1
    rows = [
        GameEvent(game=game, seq=first + i, type=event["type"], payload=event, seat=seat, actor=actor, created=now)
        for i, event in enumerate(events)
    ]
    try:
        GameEvent.objects.bulk_create(rows)
    except IntegrityError as error:
        raise StaleVersion("Another action was stored first; reload and try again.") from error
    _in_step(game, state, now)
    game.save(update_fields=_APPEND_FIELDS)
    loaded.state = state
    if once is not None and actor is not None:
        receipt = {"first_seq": first, "version": game.version}
        IdempotencyKey.objects.create(
            user=actor, game=game, key=once.key, fingerprint=once.fingerprint, status_code=200, response=receipt
        )
    appended = Appended(loaded, tuple(events), first_seq=first, acting_seat=seat, cause=cause, now=now)
    events_appended.send(sender=Game, appended=appended)
    _remember_on_commit(game, state, (rows[-1].pk, now))
    return now


# What an idempotency key may be (the API's Idempotency-Key, the page's form key,
# an email reply's Message-ID hash): 1 to 200 printable ASCII characters.
_KEY = re.compile(r"[\x20-\x7e]{1,200}")


@dataclass(frozen=True)
class Once:
    """A caller's promise that a request sent again under ``key`` is the same
    move: it is played once, and a repeat gets its receipt (``replay``).
    ``fingerprint`` is what was asked; the key with another ask is refused."""

    key: str
    fingerprint: str

    @classmethod
    def of(cls, key: str, asked: Any, version: int) -> Once:
        if not _KEY.fullmatch(key):
            raise GameError("bad_idempotency_key", "Idempotency-Key must be 1 to 200 printable ASCII characters.")
        digest = hashlib.sha256(json.dumps([asked, version], sort_keys=True, default=str).encode()).hexdigest()
        return cls(key, digest)


@dataclass(frozen=True)
class Replay:
    """A move played before under the same key: the game as that move left it."""

    loaded: LoadedGame
    seat: int
    events: list[engine.Event]
    created: datetime


def replay(loaded: LoadedGame, user: User, once: Once) -> Replay | None:
    """The move ``user`` played under ``once.key`` in this game, as it left the
    game (state, version, turn); ``None`` if none was. A key used with another
    ask is refused."""
    game = loaded.game
    stored = IdempotencyKey.objects.filter(user=user, game=game, key=once.key).first()
    if stored is None:
        return None
    if stored.fingerprint != once.fingerprint:
        raise GameError("idempotency_key_reused", "This Idempotency-Key was already used with a different request.")
    receipt: dict[str, Any] = stored.response
    # A receipt names the move's first and last event; a key stored before receipts
    # holds the answer itself (its version and events), or only the page's move.
    version = int(receipt.get("version", game.version))
    first = int(receipt.get("first_seq") or (receipt.get("events") or [{"seq": version}])[0]["seq"])
    rows = list(
        GameEvent.objects.filter(game=game, seq__gte=first, seq__lte=version)
        .order_by("seq")
        .values_list("payload", "seat", "created")
    )
    state = state_of(game, upto=version)
    seat = rows[-1][1] if rows else None
    if seat is None or state is None:
        raise GameError("corrupt_log", "This game's log is out of step with the game; an operator has been told.")
    then = copy.copy(game)
    _in_step(then, state, rows[-1][2])
    if not state.is_finished:  # a move is played in an active game; what came later is not its answer
        then.status, then.finished = Game.Status.ACTIVE, None
    events = [payload for payload, _seat, _created in rows]
    return Replay(LoadedGame(then, loaded.seats, state), seat, events, rows[-1][2])
