"""The profile and leaderboard pages (public: anyone may read a visible profile)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST, require_safe

from accounts.auth_helpers import request_user
from accounts.models import User
from games.presentation.vocabulary import bot_label

from . import profiles
from .chart import rating_chart


def _visible(player_id: Any, viewer: Any) -> Any:
    try:
        return profiles.visible_player(player_id, viewer)
    except profiles.ProfileNotFound as error:
        raise Http404(_("There is no player with this id.")) from error


def _opponent_label(opponent: profiles.Opponent) -> str:
    if opponent.bot:
        return bot_label(opponent.bot)
    return opponent.name or _("a player with a hidden profile")


@require_safe
def profile(request: HttpRequest, player_id: int) -> HttpResponse:
    viewer = request.user
    user = _visible(player_id, viewer)
    opponent = None
    raw = request.GET.get("opponent", "")
    if raw.isascii() and raw.isdigit() and len(raw) <= 12 and int(raw) != user.pk:
        try:
            opponent = profiles.visible_player(raw, viewer)
        except profiles.ProfileNotFound:
            opponent = None
    shown = profiles.profile_of(user, reader=viewer, opponent=opponent)
    context = {
        "profile": shown,
        "player": user,
        "own": getattr(viewer, "pk", None) == user.pk,
        "ratings": [{"rating": rating, "chart": rating_chart(rating.history)} for rating in shown.ratings],
        "recent": [{"game": game, "opponents": [_opponent_label(o) for o in game.opponents]} for game in shown.recent],
    }
    return render(request, "ratings/profile.html", context)


@login_required
@require_POST
def visibility(request: HttpRequest, player_id: int) -> HttpResponse:
    user = request_user(request)
    if user.pk != player_id:
        raise Http404(_("There is no player with this id."))
    hidden = request.POST.get("hidden") == "1"
    profiles.set_hidden(user=user, hidden=hidden)
    messages.success(request, _("Your profile is now hidden.") if hidden else _("Your profile is now visible."))
    return HttpResponseRedirect(reverse("ratings:profile", args=[user.pk]))


@require_safe
def leaderboard(request: HttpRequest) -> HttpResponse:
    raw = request.GET.get("players", "4")
    players = int(raw) if raw in ("2", "3", "4") else 4
    established = request.GET.get("established") == "1"
    entries = profiles.leaderboard(players, established_only=established)
    rows = [{"entry": entry, "bot": bot_label(entry.bot) if entry.bot else ""} for entry in entries]
    context = {"players": players, "counts": profiles.PLAYER_COUNTS, "rows": rows, "established": established}
    return render(request, "ratings/leaderboard.html", context)


def profile_link(player: User, reader: object) -> str | None:
    """Where a player's name links to on the game pages: their profile, unless
    it is hidden from the reader (then the name stays plain text)."""
    deactivated = not player.is_active and player.closed is None  # a closed account keeps its profile
    if deactivated or (profiles.is_hidden(player) and getattr(reader, "pk", None) != player.pk):
        return None
    return reverse("ratings:profile", args=[player.pk])
