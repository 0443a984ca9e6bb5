"""A game's log as one caller may see it: the one redaction path for events.

``GET /api/v1/games/{id}/events`` and the live streams both read events here,
so that an event looks the same (and hides the same) wherever it is read.
"""

from __future__ import annotations

from typing import Any

from rest_framework.renderers import JSONRenderer

from games import engine, store
from games.table import LoadedGame


def visible_events(loaded: LoadedGame, user: Any, *, after: int, limit: int = 1000) -> list[dict[str, Any]]:
    """The game's events after ``after`` as ``user`` may see them (their own
    seat's draws; a spectator's view without one), oldest first."""
    return as_seen_by(loaded, user, store.event_rows(loaded.game, after=after, limit=limit))


def as_seen_by(loaded: LoadedGame, user: Any, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows of ``store.event_rows`` redacted for ``user`` (a reader that shares one
    read of the log among several callers redacts each one's copy here)."""
    own = loaded.seat_of(user)
    return as_seen_from(own.index if own is not None else None, rows)


def as_seen_from(seat: int | None, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows of ``store.event_rows`` redacted for the player at ``seat`` (``None``: a spectator)."""
    return [{"seq": row["seq"], "created": row["created"], **engine.redact_event(row["payload"], seat)} for row in rows]


def render_json(body: Any) -> bytes:
    """``body`` in the API's JSON (the renderer the API answers with: times in ISO 8601)."""
    return JSONRenderer().render(body)
