"""The latest folded state of recently used games, kept in each process.

A request needs the game's state, which is the fold of its log. Folding the
whole log on every request costs ~1.5 ms at the end of a game (reading ~120
JSON rows and replaying them) and makes late moves dearer than early ones.
With the state this process last saw for the game, a request reads and
applies only the events appended since — usually a handful, often none.

Why this is safe: a game's state at version ``v`` is the fold of its first ``v``
events, and events are never changed or removed while the service runs
(corrections are new events), so a state cached at ``v`` is the right state at
``v`` and the right start for any later version — as long as it is still the
same log. A restore from a backup breaks that: it removes events, and the moves
played after it are new events with the same numbers (and, since the id
sequence is restored too, often the same row ids). So every state is kept with
its ``Mark``: the row id and time of its last event, and the game row's
``updated`` when the state was the game's latest. A read uses the state without
a query when the game row is at that version with that ``updated``; otherwise
it reads the events from the state's last one on and uses the state only if
that event is still the same row with the same time; otherwise it folds the
whole log. A restore in place therefore needs no restart. Only states of
committed events are stored (``remember`` runs on commit), games are
keyed by their public UUID (primary keys can be reused, e.g. by SQLite after
a delete), and the cache is an in-memory dict of this process: nothing is
shared between processes and nothing leaves the server.
``tests/games/test_snapshots.py`` checks that a state read through the cache
always equals the fold of the whole log.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

from games.engine import GameState

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
