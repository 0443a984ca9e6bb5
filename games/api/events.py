"""A game's log as one caller may see it: the one redaction path for events.

``GET /api/v1/games/{id}/events`` and the live streams both read events here,
so that an event looks the same (and hides the same) wherever it is read.
"""

from __future__ import annotations

from typing import Any

from rest_framework.renderers import JSONRenderer

from games import engine, store


def visible_events(loaded: store.LoadedGame, user: Any, *, after: int, limit: int = 1000) -> list[dict[str, Any]]:
    """The game's events after ``after`` as ``user`` may see them (their own
    seat's draws; a spectator's view without one), oldest first."""
    own = loaded.seat_of(user)
    seat = own.index if own is not None else None
    return [
        {"seq": row["seq"], "created": row["created"], **engine.redact_event(row["payload"], seat)}
        for row in store.event_rows(loaded.game, after=after, limit=limit)
    ]


def render_json(body: Any) -> bytes:
    """``body`` in the API's JSON (the renderer the API answers with: times in ISO 8601)."""
    return JSONRenderer().render(body)
