"""The API's side of the one visibility rule (``games.services.visibility``).

Every API route with a ``game_id`` in its path asks it before anything about
the game is read or refused: a caller who may not see the game gets the 404
``game_not_found`` an unknown id gets, whatever they asked, so nothing (not
even a 403 or 409) tells them a private game exists. It is a default
permission class, checked after authentication and the token's scope, so it
applies to a new route without that route doing anything.
"""

from __future__ import annotations

from typing import Any

from rest_framework.permissions import BasePermission

from games import store
from games.services import visibility


class SeesTheGame(BasePermission):
    def has_permission(self, request: Any, view: Any) -> bool:
        game_id = getattr(view, "kwargs", {}).get("game_id")
        if game_id is None:
            return True
        visibility.visible_to(store.get(game_id), request.user, request.query_params.get("key"))
        return True
