"""The pages' side of the one visibility rule (``games.services.visibility``).

Every page with a ``game_id`` in its path asks it before its view runs (and so
before a sign-in redirect or a refusal): a visitor who may not see the game
gets the same answer as for an unknown id: the 404 page when signed in, the
sign-in page when not (a player following an email link while signed out must
reach the sign-in, and an unknown id sends there too, so it tells nothing). The API's views and the streams
authenticate by token themselves, so they ask the rule after that
(``games.api.permissions.SeesTheGame``, ``streams.views``) and are left alone here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse
from django.utils.translation import gettext as _

from games import store
from games.errors import GameError
from games.services import visibility


def _authenticates_itself(view_func: Any) -> bool:
    return hasattr(view_func, "cls") or getattr(view_func, "__module__", "").startswith("streams.")


class GameVisibilityMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(
        self, request: HttpRequest, view_func: Any, view_args: Any, view_kwargs: dict[str, Any]
    ) -> HttpResponse | None:
        game_id = view_kwargs.get("game_id")
        if game_id is None or _authenticates_itself(view_func):
            return None
        user = getattr(request, "user", None)
        try:
            game = store.get(game_id)
        except GameError:
            return self._not_there(request, user)
        if not visibility.may_see(game, user, request.GET.get("key")):
            return self._not_there(request, user)
        return None

    @staticmethod
    def _not_there(request: HttpRequest, user: Any) -> HttpResponse:
        if not getattr(user, "is_authenticated", False):
            return redirect_to_login(request.get_full_path())
        raise Http404(_("There is no game with this id."))
