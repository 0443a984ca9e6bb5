"""The API's side of the one visibility rule (``games.services.visibility``).

A caller who may not see a game gets the 404 ``game_not_found`` an unknown id
gets from every route of that game, whatever they asked, so nothing (not even
a 403 or a 409) tells them a private game exists. Two places apply it to
every route with a ``game_id`` in its path, so a new route needs nothing:

* reads (GET, HEAD, OPTIONS): ``SeesTheGame``, a default permission class,
  checked after authentication and the token's scope, before the view runs.
  The game it read, with its seats, is kept for the view (``seen_game``):
  no second query.
* writes: their services already refuse anyone who is not at the table (and
  everyone who may act may see the game), so the problem layer
  (``hidden_refusal``) turns a write's refusal into the unknown id's 404 when
  the caller may not see the game. Asking only on refusals keeps a move's
  statements as few as they were.
"""

from __future__ import annotations

from typing import Any

from rest_framework import exceptions
from rest_framework.permissions import SAFE_METHODS, BasePermission

from games import store
from games.engine import NotationError, RuleError
from games.errors import GameError, not_found
from games.services import visibility
from games.table import LoadedGame

_SEEN = "_visible_game"
# Answered the same whatever the game, before it is read: they say nothing about it
# (DRF's PermissionDenied: a token's scope, a session's CSRF check).
_KEPT = (
    exceptions.NotAuthenticated,
    exceptions.AuthenticationFailed,
    exceptions.Throttled,
    exceptions.PermissionDenied,
)


def _key(request: Any) -> Any:
    return request.query_params.get("key")


class SeesTheGame(BasePermission):
    def has_permission(self, request: Any, view: Any) -> bool:
        game_id = getattr(view, "kwargs", {}).get("game_id")
        if game_id is None or request.method not in SAFE_METHODS:
            return True
        table = store.load(game_id, fold=False)
        visibility.visible_to(table.game, request.user, _key(request), seats=table.seats)
        setattr(request, _SEEN, table)
        return True


def seen_game(request: Any, game_id: str) -> LoadedGame:
    """The game ``SeesTheGame`` let the caller see, with its seats (no state:
    ``store.loaded`` folds it)."""
    table = getattr(request, _SEEN, None)
    return table if isinstance(table, LoadedGame) else store.load(game_id, fold=False)


def hidden_refusal(exc: Exception, context: dict[str, Any]) -> Exception:
    """``exc``, or the unknown id's 404 if it refuses a write about a game the caller may not see."""
    request, view = context.get("request"), context.get("view")
    game_id = getattr(view, "kwargs", {}).get("game_id")
    if game_id is None or request is None or request.method in SAFE_METHODS:
        return exc
    if isinstance(exc, _KEPT) or not isinstance(exc, (GameError, RuleError, NotationError, exceptions.APIException)):
        return exc
    try:
        game = store.get(game_id)
    except GameError as unknown:
        return unknown
    return exc if visibility.may_see(game, request.user, _key(request)) else not_found()
