"""The two event streams in the OpenAPI schema.

They are async Django views, not DRF views, so drf-spectacular does not see
them; this postprocessing hook writes their operations in by hand, in the same
terms as the rest of the schema (security, problem bodies), so that a client
generated from the schema knows they exist. The frames themselves are
described in docs/api.md ("Live event streams").
"""

from __future__ import annotations

from typing import Any

from accounts.scopes import GAMES_READ
from manhattan_site.api.schema import problem_content

SECURITY = [{"apiToken": []}, {"oauthApp": [GAMES_READ]}, {"cookieAuth": []}]
PROBLEM = problem_content()
EVENT_STREAM = {
    "text/event-stream": {
        "schema": {
            "type": "string",
            "description": "Server-Sent Events: `id:`, `event:` and `data:` lines (JSON), a blank line after each.",
        }
    }
}
LAST_EVENT_ID = {
    "in": "header",
    "name": "Last-Event-ID",
    "required": False,
    "description": "Resume after this id (an EventSource sends it by itself when it reconnects).",
    "schema": {"type": "string", "maxLength": 8000},
}
AFTER = {
    "in": "query",
    "name": "after",
    "required": False,
    "description": "Start after this event's seq (the header wins when both are given; default 0).",
    "schema": {"type": "integer", "minimum": 0, "maximum": 999999999999},
}
GAME_ID = {"in": "path", "name": "game_id", "required": True, "schema": {"type": "string"}}


def _problem(description: str) -> dict[str, Any]:
    return {"description": description, "content": PROBLEM}


def _errors(*, game: bool) -> dict[str, Any]:
    errors = {
        "400": _problem("Last-Event-ID (or 'after') is not an id this stream sent (code 'bad_last_event_id')."),
        "401": _problem("No valid credentials: send 'Authorization: Bearer <token>' (or sign in)."),
        "403": _problem("The token lacks the scope games:read (code 'insufficient_scope')."),
        "405": _problem("Only GET (code 'method_not_allowed')."),
        "429": _problem("Too many streams open at once (code 'too_many_streams'): close one, or wait Retry-After."),
        "503": _problem("This server runs without the ASGI application, which serves streams ('streams_need_asgi')."),
    }
    if game:
        errors["404"] = _problem("There is no game with this id, or not one you may see.")
    return errors


def _operation(operation_id: str, summary: str, description: str, parameters: list[Any], *, game: bool) -> Any:
    return {
        "get": {
            "operationId": operation_id,
            "summary": summary,
            "description": description,
            "tags": ["streams"],
            "security": SECURITY,
            "parameters": parameters,
            "responses": {"200": {"description": "The stream, open until the client leaves.", "content": EVENT_STREAM}}
            | _errors(game=game),
        }
    }


_GAME_ID = {"type": "string", "description": "The game's id."}
_VERSION = {"type": "integer", "description": "The game's version (its last event's seq)."}
_REVIEW = {"type": "string", "description": "Where to read the review: GET this path (the game_review operation)."}

# The bodies of the stream frames that are not events of the log (those are LoggedEvent).
FRAME_SCHEMAS: dict[str, Any] = {
    "ReviewReadyStreamEvent": {
        "type": "object",
        "title": "ReviewReadyStreamEvent",
        "description": "`event: review_ready` on a finished game's stream, once its review is ready "
        "(and on each new connection after that); its id is the game's last seq.",
        "required": ["type", "game", "version", "review"],
        "properties": {
            "type": {"type": "string", "enum": ["review_ready"]},
            "game": _GAME_ID,
            "version": _VERSION,
            "review": _REVIEW,
        },
    },
    "UserStreamEvent": {
        "type": "object",
        "title": "UserStreamEvent",
        "description": 'A frame of GET /api/v1/stream (after the first, {"type": "ready"}). '
        "`event` is the log's event (absent for your_turn, invitation and review_ready).",
        "required": ["type", "game", "seq", "version"],
        "properties": {
            "type": {
                "type": "string",
                "enum": ["invitation", "game_started", "move", "your_turn", "game_over", "review_ready"],
            },
            "game": _GAME_ID,
            "seq": {"type": "integer"},
            "version": _VERSION,
            "event": {"$ref": "#/components/schemas/LoggedEvent"},
        },
    },
}


def document_streams(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: the game stream and the user's stream."""
    result.setdefault("components", {}).setdefault("schemas", {}).update(FRAME_SCHEMAS)
    paths = result.setdefault("paths", {})
    paths["/api/v1/games/{game_id}/stream"] = _operation(
        "game_stream",
        "Follow one game: its events as you may see them, as they happen",
        "First the events after the one named (Last-Event-ID or ?after=), then each new one; the "
        "event's seq is its id. The same bodies as GET /api/v1/games/{game_id}/events. Table talk "
        "arrives as `event: talk`; a finished game's review, once ready, as `event: review_ready` "
        "(ReviewReadyStreamEvent).",
        [GAME_ID, AFTER, LAST_EVENT_ID],
        game=True,
    )
    paths["/api/v1/stream"] = _operation(
        "user_stream",
        "Follow your games: invitations, starts, moves, your turns, game ends and reviews",
        'A new stream starts now with {"type": "ready"}; with Last-Event-ID it first sends what '
        'you missed. Bodies (UserStreamEvent): {"type": "move" | "your_turn" | "invitation" | '
        '"game_started" | "game_over" | "review_ready", "game": …}.',
        [LAST_EVENT_ID],
        game=False,
    )
    return result
