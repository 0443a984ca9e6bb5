"""The bodies that webhooks POST, in the OpenAPI schema's components.

They are requests this server makes, not operations it serves, so no view
describes them; this postprocessing hook writes them in (OpenAPI 3.0 has no
``webhooks`` section), so that a client generated from the schema can parse
them. docs/api.md ("Events") says when each is sent.
"""

from __future__ import annotations

from typing import Any

from .models import EventType

_COMMON = {
    "game": {"type": "string", "description": "The game's id."},
    "version": {"type": "integer", "description": "The game's version when the event was sent."},
    "seat": {"type": "integer", "description": "The receiving player's seat."},
}


def _envelope(title: str, event_types: list[str], data: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "title": title,
        "required": ["type", "timestamp", "data"],
        "properties": {
            "type": {"type": "string", "enum": event_types},
            "timestamp": {"type": "string", "format": "date-time"},
            "data": {
                "type": "object",
                "required": ["game", "version", "seat", *required],
                "properties": {**_COMMON, **data},
            },
        },
    }


WEBHOOK_SCHEMAS: dict[str, Any] = {
    "WebhookReviewReady": _envelope(
        "WebhookReviewReady",
        [EventType.REVIEW_READY.value],
        {
            "review": {"type": "string", "description": "GET this path for the review (the game_review operation)."},
            "moves_reviewed": {"type": "integer", "minimum": 0},
            "marked": {"type": "integer", "minimum": 0, "description": "Moves marked, of every seat."},
            "marked_yours": {"type": "integer", "minimum": 0, "description": "Moves marked of the receiving seat."},
        },
        ["review", "moves_reviewed", "marked", "marked_yours"],
    ),
}


def document_webhook_events(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: the webhook bodies as components."""
    result.setdefault("components", {}).setdefault("schemas", {}).update(WEBHOOK_SCHEMAS)
    return result
