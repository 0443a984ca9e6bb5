"""The game page's heartbeat: "I have this game open and visible" (or no longer)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_POST

from accounts.auth_helpers import request_user
from games import store
from games.errors import GameError
from games.services import presence


@login_required
@require_POST
def heartbeat(request: HttpRequest, game_id: str) -> HttpResponse:
    try:
        loaded = store.load(game_id, fold=False)
    except GameError:
        return HttpResponse(status=404)
    user = request_user(request)
    if loaded.seat_of(user) is None:
        return HttpResponse(status=403)
    presence.mark(game=loaded.game, user=user, visible=request.POST.get("state") != "hidden")
    return HttpResponse(status=204)
