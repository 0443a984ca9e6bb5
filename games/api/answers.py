"""What the API answers to an accepted move (``POST …/actions``), built after its commit.

The service hands back the move's result (``play.ActionResult``: the game as
the move left it, the acting seat, the events); the answer is that result as
the mover sees it. A repeat under the same Idempotency-Key gets the first
move's result again, so it gets the same answer.
"""

from __future__ import annotations

from typing import Any

from rest_framework.request import Request
from rest_framework.utils.encoders import JSONEncoder

from games import engine
from games.services.play import ActionResult

from .events import as_seen_from
from .serializers import ActionResultSerializer


def action_answer(result: ActionResult, request: Request) -> dict[str, Any]:
    """The version, the move's events as ``GET …/events`` gives them (seq, created,
    redacted for the mover), and the game as the mover's seat sees it."""
    game, seat = result.game, result.seat
    first = game.version - len(result.events) + 1
    created = JSONEncoder().default(result.created)  # as the renderer writes it
    rows = [{"seq": first + i, "created": created, "payload": event} for i, event in enumerate(result.events)]
    view = engine.player_view(result.state, seat).to_json()
    body = {"version": game.version, "events": as_seen_from(seat, rows), "game": game}
    context = {"request": request, "view": view, "seats": result.loaded.seats}
    return dict(ActionResultSerializer(body, context=context).data)
