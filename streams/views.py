"""The stream endpoints: async views that answer ``text/event-stream``.

They run under ASGI (``manhattan_site.asgi``); the rest of the site keeps its
synchronous views. Callers authenticate as for the API (a personal token or
the session), and errors before the stream starts are the API's problem
bodies (401, 404, 429, ...).
"""

from __future__ import annotations

import re
from typing import Any

from django.core.handlers.wsgi import WSGIRequest
from django.http import HttpRequest, JsonResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions
from rest_framework.request import Request
from rest_framework.settings import api_settings

from accounts.models import User
from accounts.scopes import GAMES_READ, granted_scopes
from games import store
from games.errors import GameError
from games.services import visibility
from manhattan_site.api.codes import status_for
from manhattan_site.api.problems import PROBLEM_CONTENT_TYPE, problem

from . import feeds, limits
from .streams import GameStream, UserStream
from .threads import run_sync

LAST_EVENT_ID = re.compile(r"^\d{1,12}$")


def _problem(status: int, code: str, detail: str, headers: dict[str, str] | None = None) -> JsonResponse:
    return JsonResponse(
        problem(status, code, detail), status=status, content_type=PROBLEM_CONTENT_TYPE, headers=headers
    )


def _authenticate(request: HttpRequest) -> User | JsonResponse:
    """The caller, by the API's own authentication classes (token or session)."""
    authenticators = [auth() for auth in api_settings.DEFAULT_AUTHENTICATION_CLASSES]  # type: ignore[operator]
    api_request = Request(request, authenticators=authenticators)
    try:
        user = api_request.user
    except exceptions.AuthenticationFailed as error:
        return _problem(401, "authentication_failed", str(error.detail), {"WWW-Authenticate": "Bearer"})
    if not isinstance(user, User):
        return _problem(
            401, "not_authenticated", "Authentication credentials were not provided.", {"WWW-Authenticate": "Bearer"}
        )
    if GAMES_READ not in granted_scopes(api_request.auth):
        return _problem(403, "insufficient_scope", f"This needs a token with the scope '{GAMES_READ}'.")
    return user


def _event_stream(frames: Any) -> StreamingHttpResponse:
    return StreamingHttpResponse(
        frames,
        content_type="text/event-stream",
        # Proxies must pass each event on at once, and keep no copy.
        headers={"Cache-Control": "no-cache, no-store", "X-Accel-Buffering": "no"},
    )


def _not_streaming(request: HttpRequest) -> JsonResponse | None:
    """Only GET; and under WSGI a response is collected whole before it is sent, so
    a stream would never arrive (and would hold a worker thread forever): say so."""
    if request.method not in ("GET", "HEAD"):
        return _problem(405, "method_not_allowed", f"Method {request.method} not allowed.", {"Allow": "GET"})
    if isinstance(request, WSGIRequest):
        return _problem(
            503, "streams_need_asgi", "Event streams are served by the ASGI application (manhattan_site.asgi)."
        )
    return None


async def _is_ahead(user: User, cursor: feeds.Cursor) -> bool:
    return await run_sync(lambda: feeds.cursor_is_ahead(user, cursor))


async def _slot(user: User) -> str | JsonResponse:
    slot = await limits.acquire(user.pk)
    if slot is None:
        return _problem(
            429, "too_many_streams", "You have too many streams open; close one first.", {"Retry-After": "15"}
        )
    return slot


@csrf_exempt  # a POST is answered 405 as a problem, not with the CSRF page (nothing is written)
async def game_stream(request: HttpRequest, game_id: str) -> HttpResponseBase:
    """``GET /api/v1/games/{id}/stream``: the game's events as the caller may see them."""
    if refusal := _not_streaming(request):
        return refusal
    user = await run_sync(lambda: _authenticate(request))
    if isinstance(user, JsonResponse):
        return user
    raw = request.headers.get("Last-Event-ID") or request.GET.get("after") or "0"
    if not LAST_EVENT_ID.match(raw.strip()):
        return _problem(400, "bad_last_event_id", "Last-Event-ID (or 'after') must be an event's seq.")
    try:
        key = request.GET.get("key")  # a private game's watch link
        game = await run_sync(lambda: visibility.visible_to(store.get(game_id), user, key))
    except GameError as error:
        return _problem(status_for(error.code), error.code, error.message)
    if int(raw) > game.version:  # a seq the game has not reached: no stream sent it
        return _problem(400, "bad_last_event_id", f"The game has no event {int(raw)}; its last is {game.version}.")
    slot = await _slot(user)
    if isinstance(slot, JsonResponse):
        return slot
    return _event_stream(GameStream(user=user, slot=slot, game_id=str(game.public_id), after=int(raw)).frames())


@csrf_exempt  # a POST is answered 405 as a problem, not with the CSRF page (nothing is written)
async def user_stream(request: HttpRequest) -> HttpResponseBase:
    """``GET /api/v1/stream``: what happens in the caller's games."""
    if refusal := _not_streaming(request):
        return refusal
    user = await run_sync(lambda: _authenticate(request))
    if isinstance(user, JsonResponse):
        return user
    raw = request.headers.get("Last-Event-ID")
    cursor = None
    if raw is not None:
        cursor = feeds.parse_cursor(raw)
        if cursor is None or await _is_ahead(user, cursor):
            return _problem(400, "bad_last_event_id", "Last-Event-ID must be an id this stream sent.")
    slot = await _slot(user)
    if isinstance(slot, JsonResponse):
        return slot
    return _event_stream(UserStream(user=user, slot=slot, cursor=cursor).frames())
