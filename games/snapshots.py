"""The latest folded state of recently used games, kept in each process.

A request needs the game's state, which is the fold of its log. Folding the
whole log on every request costs ~1.5 ms at the end of a game (reading ~120
JSON rows and replaying them) and makes late moves dearer than early ones.
With the state this process last saw for the game, a request reads and
applies only the events appended since — usually a handful, often none.

Why this is safe without any invalidation: a game's state at version ``v``
is the fold of its first ``v`` events, and events are never changed or
removed (corrections are new events), so a state cached at ``v`` stays the
right state at ``v`` and the right start for any later version. Only states
of committed events are stored (``remember`` runs on commit), games are
keyed by their public UUID (primary keys can be reused, e.g. by SQLite after
a delete), and the cache is an in-memory dict of this process: nothing is
shared between processes and nothing leaves the server.
``tests/games/test_snapshots.py`` checks that a state read through the cache
always equals the fold of the whole log.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from uuid import UUID

from games.engine import GameState

MAX_GAMES = 512  # ~40 KB a state: about 20 MB a process at most


class StateCache:
    """The latest known state per game, least recently used games dropped first."""

    def __init__(self, max_games: int = MAX_GAMES) -> None:
        self._states: OrderedDict[UUID, GameState] = OrderedDict()
        self._max_games = max_games
        self._lock = threading.Lock()

    def latest(self, game_id: UUID) -> GameState | None:
        """The latest state of ``game_id`` this process knows, or ``None``.
        Callers must not change it (the engine never changes a state it is given)."""
        with self._lock:
            state = self._states.get(game_id)
            if state is not None:
                self._states.move_to_end(game_id)
            return state

    def remember(self, game_id: UUID, state: GameState) -> None:
        """Keep ``state`` if it is later than what is known of the game."""
        with self._lock:
            known = self._states.get(game_id)
            if known is None or known.seq < state.seq:
                self._states[game_id] = state
            self._states.move_to_end(game_id)
            while len(self._states) > self._max_games:
                self._states.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._states.clear()


states = StateCache()
