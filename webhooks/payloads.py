"""The webhook events a game's new events make for one seat, and their bodies.

Each body follows the Standard Webhooks shape ``{"type", "timestamp",
"data"}``. Game events go through the engine's redaction for the seat whose
owner receives them (``engine.redact_events``): another player's hand and the
deck never leave the server, exactly as on ``/api/v1/games/{id}/events``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from games import engine
from games.engine.events import GAME_CREATED, GAME_FINISHED, ROUND_SCORED
from games.models import Game, GameReview
from games.signals import Appended, Cause

from .models import EventType


@dataclass(frozen=True)
class WebhookEvent:
    type: str
    event_id: str  # the webhook-id: the same for every endpoint and every attempt
    body: dict[str, Any]


def event_id(game: Game, seq: int, event_type: str) -> str:
    """A stable id for (game, event, type): a queued twice event is recognised."""
    digest = hashlib.sha256(f"{game.public_id}:{seq}:{event_type}".encode()).hexdigest()
    return f"msg_{digest[:40]}"


def envelope(event_type: str, now: datetime, data: dict[str, Any]) -> dict[str, Any]:
    return {"type": str(event_type), "timestamp": now.isoformat().replace("+00:00", "Z"), "data": data}


def game_events(appended: Appended, *, seat: int) -> list[WebhookEvent]:
    """What the owner of ``seat`` may be told about the ``appended`` events."""
    game, state = appended.loaded.game, appended.loaded.state
    first_seq, last_seq, now, cause = appended.first_seq, appended.last_seq, appended.now, appended.cause
    common = {"game": str(game.public_id), "version": game.version, "seat": seat}
    shown = [
        {"seq": first_seq + offset, **engine.redact_event(event, seat)} for offset, event in enumerate(appended.events)
    ]
    made: list[WebhookEvent] = []

    def add(event_type: str, seq: int, **data: Any) -> None:
        made.append(
            WebhookEvent(str(event_type), event_id(game, seq, event_type), envelope(event_type, now, common | data))
        )

    for event in shown:
        if event["type"] == GAME_CREATED:
            add(EventType.GAME_STARTED, event["seq"], event=event)
    if cause != Cause.START:
        add(EventType.GAME_MOVE, last_seq, acting_seat=appended.acting_seat, cause=str(cause), events=shown)
    for event in shown:
        if event["type"] == ROUND_SCORED:
            add(EventType.ROUND_SCORED, event["seq"], event=event)
        elif event["type"] == GAME_FINISHED:
            add(EventType.GAME_OVER, event["seq"], event=event)
    if state is not None and state.to_act == seat and not state.is_finished:
        add(EventType.YOUR_TURN, last_seq, phase=state.phase, round=state.round)
    return made


def invitation(game: Game, seat: int, inviter: str, now: datetime) -> WebhookEvent:
    data = {"game": str(game.public_id), "version": game.version, "seat": seat, "inviter": inviter}
    event_type = EventType.GAME_INVITED.value
    return WebhookEvent(event_type, event_id(game, 0, f"{event_type}:{seat}"), envelope(event_type, now, data))


def review_ready(game: Game, review: GameReview, seat: int, now: datetime) -> WebhookEvent:
    """The finished game's review is ready: where to read it, and how many of the seat's
    own moves it marked. Once per game: the review is made once."""
    marked = [row for row in review.moves if row.get("mark")]
    data = {
        "game": str(game.public_id),
        "version": game.version,
        "seat": seat,
        "review": f"/api/v1/games/{game.public_id}/review",
        "moves_reviewed": len(review.moves),
        "marked": len(marked),
        "marked_yours": sum(row["seat"] == seat for row in marked),
    }
    event_type = EventType.REVIEW_READY.value
    return WebhookEvent(event_type, event_id(game, game.version, event_type), envelope(event_type, now, data))
