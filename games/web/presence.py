"""The game page's heartbeat: "I have this game open and visible" (or no longer)."""

from __future__ import annotations

import re

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.http import require_POST

from accounts.auth_helpers import request_user
from games import store
from games.errors import GameError
from games.services import presence
from manhattan_site.api import problems

# The id a page load makes up for itself (empty from a page older than ids).
PAGE_ID = re.compile(r"[A-Za-z0-9-]{0,64}")


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
    page = request.POST.get("page", "")
    if not PAGE_ID.fullmatch(page):
        body = problems.problem(400, "bad_page_id", "The page id is up to 64 letters, digits or dashes.")
        return JsonResponse(body, status=400, content_type=problems.PROBLEM_CONTENT_TYPE)
    presence.mark(game=loaded.game, user=user, visible=request.POST.get("state") != "hidden", page=page)
    return HttpResponse(status=204)
