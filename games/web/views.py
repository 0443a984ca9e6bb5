"""Play pages: my games, and a game's page. (Being built: see issue 4.)"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from accounts.auth_helpers import request_user
from games import services


@login_required
def game_list(request: HttpRequest) -> HttpResponse:
    games = services.games_of(request_user(request)).prefetch_related("seats__user")
    return render(request, "games/list.html", {"games": games})


@login_required
def game_detail(request: HttpRequest, game_id: str) -> HttpResponse:
    game = services.get_game(game_id)
    return render(request, "games/detail.html", {"game": game})
